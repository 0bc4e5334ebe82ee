// The policy lifecycle methods: `hooks.shadow` (what a hook in shadow mode would have
// decided: its would-be denials over a window), `hooks.promote` (shadow → enforce in one
// action, recorded with who and why) and `hooks.impact` (a draft or a stored hook's new
// version replayed against recorded decisions: how many would be decided differently).
// Tenant tokens reach their tenant's hooks and decisions only; an impact preview is bounded
// in rows and time and runs one at a time per server.

import { z } from 'zod'
import { previewImpact } from '../../audit/index.js'
import type { HookDefinition } from '../../core/index.js'
import { API_SOURCE_PREFIX } from '../../sources/index.js'
import { toHookDefinition } from '../../store/index.js'
import { type PlaneContext, recordChange } from './context.js'
import {
  type DefinitionParams,
  definition,
  editable,
  find,
  id,
  invalid,
  paramsOf,
  refuseHostAccess,
  save,
  tenantFor,
  toInput,
  viewOf,
} from './hook-inputs.js'
import { ApiError, EDITORS, type MethodDef, method, READERS } from './protocol.js'
import { specDefinition, storedView, unmaskConfig } from './views.js'

const DAY_MS = 86_400_000
/** Bounds of an impact preview. */
export const IMPACT_LIMITS = {
  defaultRows: 10_000,
  maxRows: 100_000,
  defaultTimeMs: 20_000,
  maxTimeMs: 60_000,
  maxRangeMs: 90 * DAY_MS,
  maxEvents: 100,
} as const

const time = z.number().int().min(0)

/** The lifecycle methods. */
export function lifecycleMethods(plane: PlaneContext): Record<string, MethodDef> {
  let previewing = false
  return {
    'hooks.shadow': method({
      params: z.object({ id, since: time.optional() }).strict(),
      roles: READERS,
      async run(p, { principal }) {
        const found = await find(plane, principal, p.id)
        const since = p.since ?? Date.now() - DAY_MS
        const counts = await plane.store.countExecutions({
          hookRef: p.id,
          mode: 'shadow',
          since,
          ...(principal.tenant !== undefined ? { tenant: principal.tenant } : {}),
        })
        const ran = Object.entries(counts)
          .filter(([decision]) => decision !== 'skipped')
          .reduce((sum, [, n]) => sum + n, 0)
        return { id: p.id, mode: viewOf(plane, found).mode, since, wouldDeny: counts.deny ?? 0, ran, counts }
      },
    }),
    'hooks.promote': method({
      params: z
        .object({
          id,
          reason: z
            .string({ error: 'is required: say why the hook is enforced now' })
            .trim()
            .min(3, 'must say why (at least 3 characters)')
            .max(1000),
          version: z.number().int().positive().optional(),
        })
        .strict(),
      roles: EDITORS,
      async run(p, { principal }) {
        const found = await find(plane, principal, p.id)
        if (found.kind === 'file') {
          throw new ApiError(
            'forbidden',
            `hook "${p.id}" comes from ${found.spec.source ?? 'the config'}; set mode: enforce in that file`,
            'id',
          )
        }
        const before = found.hook
        if (before.mode !== 'shadow') {
          throw new ApiError('conflict', `hook "${p.id}" is already enforced`, 'id')
        }
        if (p.version !== undefined && p.version !== before.version) {
          throw new ApiError(
            'conflict',
            `hook "${p.id}" is at version ${before.version}, not ${p.version}: someone changed it; reload and try again`,
            'version',
          )
        }
        const saved = await save(plane, toInput(plane, principal, { ...paramsOf(before), mode: 'enforce' }))
        await plane.refresh()
        const view = storedView(saved)
        await recordChange(plane, principal, {
          action: 'hooks.promote',
          target: saved.id,
          tenant: saved.tenant ?? '',
          before: storedView(before),
          after: view,
          reason: p.reason,
        })
        return view
      },
    }),
    'hooks.impact': method({
      params: z
        .object({
          id: id.optional(),
          changes: editable.optional(),
          hook: definition.optional(),
          since: time.optional(),
          until: time.optional(),
          limit: z.number().int().min(1).max(IMPACT_LIMITS.maxRows).optional(),
          timeLimitMs: z.number().int().min(100).max(IMPACT_LIMITS.maxTimeMs).optional(),
        })
        .strict()
        .refine((p) => (p.id === undefined) !== (p.hook === undefined), {
          message: 'needs either id (a stored hook, with changes for its new version) or hook (a draft)',
          path: ['id'],
        })
        .refine((p) => p.changes === undefined || p.id !== undefined, {
          message: 'changes go with id (the stored hook they change)',
          path: ['changes'],
        }),
      roles: EDITORS,
      async run(p, { principal }) {
        const until = p.until ?? Date.now()
        const since = p.since ?? until - 7 * DAY_MS
        if (since >= until) throw new ApiError('invalid-params', 'since must be before until', 'since')
        if (until - since > IMPACT_LIMITS.maxRangeMs)
          throw new ApiError('invalid-params', 'the range must be at most 90 days', 'since')
        const { hook, events } = await changedHook(plane, principal, p)
        const tenant = principal.tenant ?? hook.scope?.tenant
        if (previewing)
          throw new ApiError('unavailable', 'another impact preview is running; try again when it ends')
        previewing = true
        const engine = plane.replayEngine()
        try {
          let spec: ReturnType<typeof engine.register>
          try {
            spec = engine.register(hook, { replace: true })
          } catch (error) {
            throw invalid(error)
          }
          const report = await previewImpact(plane.store, engine, {
            since,
            until,
            events: [...new Set([spec.event, ...events])],
            limit: p.limit ?? IMPACT_LIMITS.defaultRows,
            timeLimitMs: p.timeLimitMs ?? IMPACT_LIMITS.defaultTimeMs,
            maxEvents: IMPACT_LIMITS.maxEvents,
            ...(tenant !== undefined ? { tenant } : {}),
          })
          return { hook: spec.id, ...report }
        } finally {
          previewing = false
          await engine.close()
        }
      },
    }),
  }
}

/** The hook definition an impact preview replays with (enforced), and the events it had before. */
async function changedHook(
  plane: PlaneContext,
  principal: Parameters<typeof find>[1],
  p: { id?: string | undefined; changes?: Partial<DefinitionParams> | undefined; hook?: DefinitionParams },
): Promise<{ hook: HookDefinition; events: string[] }> {
  if (p.id !== undefined) {
    const found = await find(plane, principal, p.id)
    const before = found.kind === 'stored' ? toHookDefinition(found.hook) : specDefinition(found.spec)
    if (!p.changes) return { hook: { ...before, mode: 'enforce' }, events: [] }
    const current: DefinitionParams =
      found.kind === 'stored'
        ? paramsOf(found.hook)
        : ({ ...before, scope: before.scope ?? {} } as unknown as DefinitionParams)
    const next = { ...current, ...p.changes, name: before.name } as DefinitionParams
    if (p.changes.handler)
      next.handler = unmaskConfig(p.changes.handler, before.handler) as Record<string, unknown>
    if ((next.scope?.tenant ?? undefined) !== (before.scope?.tenant ?? undefined))
      throw new ApiError('invalid-params', 'scope.tenant cannot change', 'changes.scope.tenant')
    refuseHostAccess(plane, next.handler)
    const hook = {
      ...next,
      mode: 'enforce',
      source: before.source ?? `${API_SOURCE_PREFIX}user`,
    } as unknown as HookDefinition
    return { hook, events: [before.event] }
  }
  const given = p.hook as DefinitionParams
  refuseHostAccess(plane, given.handler)
  const tenant = tenantFor(principal, given)
  const hook = {
    ...given,
    mode: 'enforce',
    scope: { ...(given.scope ?? {}), ...(tenant ? { tenant } : {}) },
    source: `${API_SOURCE_PREFIX}impact`,
  } as HookDefinition
  return { hook, events: [] }
}
