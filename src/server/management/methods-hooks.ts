// The `hooks.*` methods: list, get, create, update, delete, toggle, test (a dry run of a
// stored hook or an unsaved definition) and history. Hooks created here are stored (and
// reach every instance through the change feed); hooks from files can only be toggled.
// A tenant token sees and changes its tenant's hooks only; any other id is "not found".

import { z } from 'zod'
import { type HookDefinition, type JsonObject, WardenError } from '../../core/index.js'
import { withHooksViewer } from '../../handlers/index.js'
import { API_SOURCE_PREFIX } from '../../sources/index.js'
import { toHookDefinition } from '../../store/index.js'
import { type PlaneContext, recordChange } from './context.js'
import {
  allViews,
  type DefinitionParams,
  definition,
  editable,
  find,
  id,
  invalid,
  limit,
  paramsOf,
  refuseHostAccess,
  sampleEvent,
  save,
  tenantFor,
  toInput,
  viewOf,
} from './hook-inputs.js'
import { ApiError, EDITORS, type MethodDef, method, READERS } from './protocol.js'
import { specDefinition, storedView, unmaskConfig } from './views.js'

/** The `hooks.*` methods. */
export function hookMethods(plane: PlaneContext): Record<string, MethodDef> {
  return {
    'hooks.list': method({
      params: z
        .object({
          event: z.string().optional(),
          scope: z.enum(['global', 'tenant', 'agent']).optional(),
          tenant: z.string().optional(),
          agent: z.string().optional(),
          enabled: z.boolean().optional(),
          source: z.enum(['api', 'file', 'builtin']).optional(),
          search: z.string().max(200).optional(),
          limit,
          offset: z.number().int().min(0).optional(),
        })
        .strict(),
      roles: READERS,
      async run(p, { principal }) {
        const all = await allViews(plane, principal)
        const needle = p.search?.toLowerCase()
        const hooks = all.filter(
          (h) =>
            (p.event === undefined || h.event === p.event) &&
            (p.scope === undefined || h.scope === p.scope) &&
            (p.tenant === undefined || (h.tenant ?? '') === p.tenant) &&
            (p.agent === undefined || h.agents.includes(p.agent)) &&
            (p.enabled === undefined || h.enabled === p.enabled) &&
            (p.source === undefined || h.source === p.source) &&
            (needle === undefined ||
              `${h.id} ${h.event} ${h.handlerType} ${h.matcher ?? ''} ${h.description ?? ''}`
                .toLowerCase()
                .includes(needle)),
        )
        const offset = p.offset ?? 0
        const size = p.limit ?? 100
        const page = hooks.slice(offset, offset + size)
        return {
          hooks: page,
          total: hooks.length,
          ...(offset + size < hooks.length ? { next: offset + size } : {}),
        }
      },
    }),
    'hooks.get': method({
      params: z.object({ id }).strict(),
      roles: READERS,
      async run(p, { principal }) {
        return viewOf(plane, await find(plane, principal, p.id))
      },
    }),
    'hooks.create': method({
      params: definition,
      roles: EDITORS,
      async run(p, { principal }) {
        const input = toInput(plane, principal, p)
        const hookId = input.tenant ? `${input.tenant}/${input.name}` : input.name
        if ((await plane.store.getHook(hookId)) || plane.engine.hooks().some((h) => h.id === hookId)) {
          throw new ApiError(
            'conflict',
            `a hook "${hookId}" already exists; pick another name or update it`,
            'name',
          )
        }
        const saved = await save(plane, input)
        await plane.refresh()
        const view = storedView(saved)
        await recordChange(plane, principal, {
          action: 'hooks.create',
          target: saved.id,
          tenant: saved.tenant ?? '',
          after: view,
        })
        return view
      },
    }),
    'hooks.update': method({
      params: z
        .object({
          id,
          /** The version the caller edited: a newer stored version is a conflict. */
          version: z.number().int().positive().optional(),
          changes: editable,
        })
        .strict(),
      roles: EDITORS,
      async run(p, { principal }) {
        const found = await find(plane, principal, p.id)
        if (found.kind === 'file') {
          throw new ApiError(
            'forbidden',
            `hook "${p.id}" comes from ${found.spec.source ?? 'the config'}; edit that file, or toggle it`,
            'id',
          )
        }
        const before = found.hook
        if (p.version !== undefined && p.version !== before.version) {
          throw new ApiError(
            'conflict',
            `hook "${p.id}" is at version ${before.version}, not ${p.version}: someone changed it; reload and edit again`,
            'version',
          )
        }
        const current = paramsOf(before)
        const next: DefinitionParams = { ...current, ...p.changes, name: before.name } as DefinitionParams
        if (p.changes.handler)
          next.handler = unmaskConfig(p.changes.handler, before.handler) as Record<string, unknown>
        const scope = { ...(next.scope ?? {}) }
        if ((scope.tenant ?? undefined) !== before.tenant) {
          throw new ApiError(
            'invalid-params',
            'scope.tenant cannot change; create the hook anew for another tenant',
            'changes.scope.tenant',
          )
        }
        const saved = await save(plane, toInput(plane, principal, next))
        await plane.refresh()
        const view = storedView(saved)
        await recordChange(plane, principal, {
          action: 'hooks.update',
          target: saved.id,
          tenant: saved.tenant ?? '',
          before: storedView(before),
          after: view,
        })
        return view
      },
    }),
    'hooks.delete': method({
      params: z.object({ id }).strict(),
      roles: EDITORS,
      async run(p, { principal }) {
        const found = await find(plane, principal, p.id)
        if (found.kind === 'file') {
          throw new ApiError(
            'forbidden',
            `hook "${p.id}" comes from ${found.spec.source ?? 'the config'}; remove it there, or toggle it off`,
            'id',
          )
        }
        await plane.store.deleteHook(p.id)
        await plane.refresh()
        await recordChange(plane, principal, {
          action: 'hooks.delete',
          target: p.id,
          tenant: found.hook.tenant ?? '',
          before: storedView(found.hook),
        })
        return { id: p.id, deleted: true }
      },
    }),
    'hooks.toggle': method({
      params: z
        .object({
          id,
          enabled: z.boolean({ error: 'must be true or false' }),
          /** Why (recorded in the change record); the UI asks for it when a hook is switched off. */
          reason: z.string({ error: 'must be text' }).max(500, 'must be at most 500 characters').optional(),
        })
        .strict(),
      roles: EDITORS,
      async run(p, { principal }) {
        const found = await find(plane, principal, p.id)
        const before = viewOf(plane, found)
        if (p.enabled) plane.engine.resetBreaker(p.id)
        if (found.kind === 'stored') {
          if (found.hook.enabled !== p.enabled) await plane.store.setHookEnabled(p.id, p.enabled)
        } else {
          await plane.store.setHookOverride(p.id, p.enabled)
          plane.engine.register({ ...specDefinition(found.spec), enabled: p.enabled }, { replace: true })
        }
        await plane.refresh()
        const after = viewOf(plane, await find(plane, principal, p.id))
        await recordChange(plane, principal, {
          action: 'hooks.toggle',
          target: p.id,
          tenant: before.tenant ?? '',
          before,
          after,
          ...(p.reason?.trim() ? { reason: p.reason.trim() } : {}),
        })
        return after
      },
    }),
    'hooks.test': method({
      params: z
        .object({ id: id.optional(), hook: definition.optional(), event: sampleEvent })
        .strict()
        .refine((p) => (p.id === undefined) !== (p.hook === undefined), {
          message: 'needs either id (a saved hook) or hook (an unsaved definition), not both',
          path: ['id'],
        }),
      roles: EDITORS,
      async run(p, { principal }) {
        let hook: HookDefinition
        if (p.id !== undefined) {
          const found = await find(plane, principal, p.id)
          hook = found.kind === 'stored' ? toHookDefinition(found.hook) : specDefinition(found.spec)
        } else {
          const given = p.hook as DefinitionParams
          refuseHostAccess(plane, given.handler)
          const tenant = tenantFor(principal, given)
          // An unsaved definition is held to the rules of hooks made through the API.
          hook = {
            ...given,
            scope: { ...(given.scope ?? {}), ...(tenant ? { tenant } : {}) },
            source: `${API_SOURCE_PREFIX}test`,
          } as HookDefinition
        }
        const context = { ...(p.event.context ?? {}) } as JsonObject
        const tenant = principal.tenant ?? hook.scope?.tenant
        if (tenant !== undefined) context.tenantId = tenant
        try {
          // A tenant's script lists only what that tenant may read here (no global hooks).
          const viewer = principal.tenant !== undefined ? { tenant: principal.tenant } : undefined
          return await withHooksViewer(viewer, () =>
            plane.engine.dryRun(hook, { event: hook.event, payload: p.event.payload, context }),
          )
        } catch (error) {
          const failed = invalid(error)
          if (error instanceof WardenError && error.code === 'invalid-event') {
            throw new ApiError('invalid-params', error.message, 'event.payload')
          }
          throw failed
        }
      },
    }),
    'hooks.history': method({
      params: z
        .object({
          id,
          decision: z.enum(['allow', 'deny', 'modify', 'ask', 'abstain', 'skipped']).optional(),
          since: z.number().int().min(0).optional(),
          until: z.number().int().min(0).optional(),
          limit,
          cursor: z.string().regex(/^\d+$/, 'must be the next value of the previous page').optional(),
        })
        .strict(),
      roles: READERS,
      async run(p, { principal }) {
        await find(plane, principal, p.id)
        const page = await plane.store.listExecutions({
          hookRef: p.id,
          ...(principal.tenant !== undefined ? { tenant: principal.tenant } : {}),
          ...(p.decision ? { decision: p.decision } : {}),
          ...(p.since !== undefined ? { since: p.since } : {}),
          ...(p.until !== undefined ? { until: p.until } : {}),
          ...(p.limit ? { limit: p.limit } : {}),
          ...(p.cursor ? { cursor: p.cursor } : {}),
        })
        return {
          executions: page.rows.map((r) => ({
            decisionId: r.decisionId,
            at: r.createdAt,
            decision: r.decision,
            durationMs: r.durationMs,
            version: r.hookVersion,
            ...(r.reason ? { reason: r.reason } : {}),
            ...(r.error ? { error: r.error, errorKind: r.errorKind } : {}),
            ...(r.skipped ? { skipped: r.skipped } : {}),
            ...(r.metadata ? { metadata: r.metadata } : {}),
          })),
          ...(page.next ? { next: page.next } : {}),
        }
      },
    }),
  }
}
