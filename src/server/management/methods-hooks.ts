// The `hooks.*` methods: list, get, create, update, delete, toggle, test (a dry run of a
// stored hook or an unsaved definition) and history. Hooks created here are stored (and
// reach every instance through the change feed); hooks from files can only be toggled.
// A tenant token sees and changes its tenant's hooks only; any other id is "not found".

import { z } from 'zod'
import {
  errorMessage,
  type HookDefinition,
  type HookSpec,
  type JsonObject,
  WardenError,
} from '../../core/index.js'
import { type HookInput, type StoredHook, StoreError, toHookDefinition } from '../../store/index.js'
import { type PlaneContext, recordChange } from './context.js'
import { ApiError, EDITORS, type MethodDef, method, READERS } from './protocol.js'
import type { Principal } from './tokens.js'
import {
  fileView,
  type HookView,
  isStoredSpec,
  specDefinition,
  storedView,
  unmaskConfig,
  visibleTo,
} from './views.js'

const id = z.string({ error: 'must be a hook id string' }).min(1, 'must not be empty').max(300)
const limit = z.number().int().min(1).max(1000).optional()
const object = z.record(z.string(), z.unknown(), { error: 'must be an object' })

/** The definition fields the API takes (the hook model checks each of them again). */
const definition = z
  .object({
    name: z.string({ error: 'must be a string' }),
    event: z.string({ error: 'must be a string' }),
    handler: object,
    matcher: z.string().optional(),
    if: z.string().optional(),
    priority: z.number().optional(),
    timeoutMs: z.number().optional(),
    onTimeout: z.string().optional(),
    onError: z.string().optional(),
    scope: object.optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    policy: object.optional(),
  })
  .strict()

type DefinitionParams = z.infer<typeof definition>

const editable = definition.partial().omit({ name: true }).strict()

/** The field a hook-model error message names (`hook "x": handler.url must …`). */
function fieldOf(message: string): string | undefined {
  let rest = message.replace(/^hook(?: "[^"]*")?: /, '')
  // A handler's own check: `hook "x": handler: reason must …`.
  const inHandler = rest.startsWith('handler: ')
  if (inHandler) rest = rest.slice('handler: '.length)
  const at = (field: string) => (inHandler ? `handler.${field}` : field)
  const unknown = /^unknown fields? "([^"]+)"(?:.* in (\S+?):)?/.exec(rest)
  if (unknown?.[1]) return at(unknown[2] ? `${unknown[2]}.${unknown[1]}` : unknown[1])
  const event = /^event "/.exec(rest)
  if (event && !inHandler) return 'event'
  const field = /^([A-Za-z][\w.[\]]*)\s/.exec(rest)
  if (field?.[1]) return at(field[1])
  return inHandler ? 'handler' : undefined
}

/** A hook-model or store error as an `invalid-params` API error. */
function invalid(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof WardenError || error instanceof StoreError) {
    const field = fieldOf(error.message)
    return new ApiError('invalid-params', error.message, field)
  }
  return new ApiError('internal', errorMessage(error))
}

/** Where a hook stands: stored, from a file, or nowhere visible. */
type Found = { kind: 'stored'; hook: StoredHook } | { kind: 'file'; spec: HookSpec }

async function find(plane: PlaneContext, principal: Principal, hookId: string): Promise<Found> {
  const stored = await plane.store.getHook(hookId)
  if (stored && visibleTo(principal, stored.tenant)) return { kind: 'stored', hook: stored }
  if (!stored) {
    const spec = plane.engine.hooks().find((h) => h.id === hookId && !isStoredSpec(h))
    if (spec && visibleTo(principal, spec.scope.tenant)) return { kind: 'file', spec }
  }
  throw new ApiError('not-found', `no hook "${hookId}"`, 'id')
}

function viewOf(plane: PlaneContext, found: Found): HookView {
  const trips = new Map(plane.engine.openBreakers().map((t) => [t.hookId, t]))
  return found.kind === 'stored'
    ? storedView(found.hook, trips.get(found.hook.id))
    : fileView(found.spec, trips.get(found.spec.id))
}

/** Every hook the principal may see: stored ones and those from files. */
async function allViews(plane: PlaneContext, principal: Principal): Promise<HookView[]> {
  const trips = new Map(plane.engine.openBreakers().map((t) => [t.hookId, t]))
  const stored = await plane.store.listHooks()
  const views = stored
    .filter((h) => visibleTo(principal, h.tenant))
    .map((h) => storedView(h, trips.get(h.id)))
  const taken = new Set(views.map((v) => v.id))
  for (const spec of plane.engine.hooks()) {
    if (isStoredSpec(spec) || taken.has(spec.id) || !visibleTo(principal, spec.scope.tenant)) continue
    views.push(fileView(spec, trips.get(spec.id)))
  }
  return views.sort(
    (a, b) => a.event.localeCompare(b.event) || a.priority - b.priority || a.id.localeCompare(b.id),
  )
}

/** The tenant a definition is for, checked against the principal. */
function tenantFor(
  principal: Principal,
  params: { scope?: Record<string, unknown> | undefined },
): string | undefined {
  const asked = params.scope?.tenant
  if (asked !== undefined && typeof asked !== 'string') {
    throw new ApiError('invalid-params', 'scope.tenant must be a tenant id string', 'scope.tenant')
  }
  if (principal.tenant === undefined) return asked === '' ? undefined : asked
  if (asked !== undefined && asked !== principal.tenant) {
    throw new ApiError(
      'forbidden',
      `this token belongs to tenant "${principal.tenant}" and cannot make hooks for "${asked}"`,
      'scope.tenant',
    )
  }
  return principal.tenant
}

function refuseCommand(plane: PlaneContext, handler: Record<string, unknown>): void {
  if (handler.type === 'command' && !plane.settings.allowCommandHooks) {
    throw new ApiError(
      'forbidden',
      'command hooks run programs on the server, and this Warden does not allow them through the API; set management.allowCommandHooks: true in warden.yaml to allow it',
      'handler.type',
    )
  }
}

/** The store input of a definition (validated by the engine's own rules first). */
function toInput(plane: PlaneContext, principal: Principal, params: DefinitionParams): HookInput {
  refuseCommand(plane, params.handler)
  const tenant = tenantFor(principal, params)
  const scope = { ...(params.scope ?? {}) }
  delete scope.tenant
  const hook = {
    ...params,
    ...(tenant ? { scope: { ...scope, tenant } } : { scope }),
  } as unknown as HookDefinition
  let spec: HookSpec
  try {
    spec = plane.engine.validate(hook)
  } catch (error) {
    throw invalid(error)
  }
  const input: HookInput = {
    name: spec.name,
    event: spec.event,
    handler: params.handler as HookInput['handler'],
    priority: spec.priority,
    timeoutMs: spec.timeoutMs,
    onTimeout: spec.onTimeout,
    onError: spec.onError,
    enabled: spec.enabled,
    source: 'user',
  }
  if (spec.scope.tenant) input.tenant = spec.scope.tenant
  if (spec.scope.agents) input.agents = spec.scope.agents
  if (spec.matcher !== undefined) input.matcher = spec.matcher
  if (spec.if !== undefined) input.if = spec.if
  if (spec.policy) input.policy = spec.policy
  return input
}

/** A stored hook as definition params again (for an update to merge into). */
function paramsOf(hook: StoredHook): DefinitionParams {
  const params: DefinitionParams = {
    name: hook.name,
    event: hook.event,
    handler: hook.handler,
    priority: hook.priority,
    timeoutMs: hook.timeoutMs,
    onTimeout: hook.onTimeout,
    onError: hook.onError,
    enabled: hook.enabled,
  }
  const scope: Record<string, unknown> = {}
  if (hook.tenant) scope.tenant = hook.tenant
  if (hook.agents.length > 0) scope.agents = hook.agents
  params.scope = scope
  if (hook.matcher !== undefined) params.matcher = hook.matcher
  if (hook.if !== undefined) params.if = hook.if
  if (hook.policy) params.policy = hook.policy as unknown as Record<string, unknown>
  return params
}

async function save(plane: PlaneContext, input: HookInput): Promise<StoredHook> {
  try {
    return await plane.store.putHook(input)
  } catch (error) {
    throw invalid(error)
  }
}

/** The sample event of a dry run. */
const sampleEvent = z
  .object({ payload: object, context: object.optional() }, { error: 'must be { payload, context? }' })
  .strict()

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
          source: z.enum(['api', 'file']).optional(),
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
              `${h.id} ${h.event} ${h.handlerType} ${h.matcher ?? ''}`.toLowerCase().includes(needle)),
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
      params: z.object({ id, enabled: z.boolean({ error: 'must be true or false' }) }).strict(),
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
        after.enabled = p.enabled
        await recordChange(plane, principal, {
          action: 'hooks.toggle',
          target: p.id,
          tenant: before.tenant ?? '',
          before,
          after,
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
          refuseCommand(plane, given.handler)
          const tenant = tenantFor(principal, given)
          hook = {
            ...given,
            scope: { ...(given.scope ?? {}), ...(tenant ? { tenant } : {}) },
          } as HookDefinition
        }
        const context = { ...(p.event.context ?? {}) } as JsonObject
        const tenant = principal.tenant ?? hook.scope?.tenant
        if (tenant !== undefined) context.tenantId = tenant
        try {
          return await plane.engine.dryRun(hook, { event: hook.event, payload: p.event.payload, context })
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
          })),
          ...(page.next ? { next: page.next } : {}),
        }
      },
    }),
  }
}
