// `overview.get`: how the fleet is doing over a window, for the UI's home page. Decisions
// over time by outcome with the shadow hooks' would-be denials, the tools, agents and
// sessions with most denials, each hook's runs, verdicts, errors, timeouts and p50/p99
// execution time (all from the store's rollups), the open circuit breakers and the pending
// approvals with their age.
//
// Reach: a tenant token reads only its tenant's rollups, breakers and approvals (asking for
// another tenant is refused); an operator token reads every tenant's, or one tenant's when
// it names it. Every role may read it; it changes nothing and touches nothing on the host.
// The window is bounded (at most 400 days, at most 120 points), so one call reads a bounded
// number of rollup rows whatever the size of the history.

import { z } from 'zod'
import type { PlaneContext } from './context.js'
import { ApiError, type MethodDef, method, READERS } from './protocol.js'
import type { Principal } from './tokens.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** The named windows the UI offers. */
export const OVERVIEW_WINDOWS: Record<string, number> = {
  '1h': HOUR,
  '24h': DAY,
  '7d': 7 * DAY,
  '30d': 30 * DAY,
}
/** Longest window a call may ask for. */
const MAX_WINDOW_MS = 400 * DAY
/** Most pending approvals listed. */
const MAX_PENDING = 50

const params = z
  .object({
    window: z.enum(['1h', '24h', '7d', '30d'], { error: 'must be "1h", "24h", "7d" or "30d"' }).optional(),
    since: z.number().int().min(0).optional(),
    until: z.number().int().min(0).optional(),
    tenant: z.string().max(200, 'must be at most 200 characters').optional(),
  })
  .strict()

/** The tenant the call is limited to: the token's, or the one an operator token asked for. */
function tenantOf(principal: Principal, asked: string | undefined): string | undefined {
  if (principal.tenant === undefined) return asked
  if (asked !== undefined && asked !== principal.tenant) {
    throw new ApiError('forbidden', `this token belongs to tenant "${principal.tenant}"`, 'tenant')
  }
  return principal.tenant
}

/** The window asked for: a named one ending now, or since/until (until defaults to now). */
function windowOf(p: z.infer<typeof params>, now: number): { since: number; until: number } {
  if (p.window !== undefined) {
    if (p.since !== undefined || p.until !== undefined) {
      throw new ApiError('invalid-params', 'give either window or since/until, not both', 'window')
    }
    return { since: now - (OVERVIEW_WINDOWS[p.window] ?? DAY), until: now }
  }
  const until = p.until ?? now
  const since = p.since ?? until - DAY
  if (since >= until) throw new ApiError('invalid-params', 'since must be before until', 'since')
  if (until - since > MAX_WINDOW_MS) {
    throw new ApiError('invalid-params', 'the window must be at most 400 days', 'since')
  }
  return { since, until }
}

/** The overview method. */
export function overviewMethods(plane: PlaneContext): Record<string, MethodDef> {
  return {
    'overview.get': method({
      params,
      roles: READERS,
      async run(p, { principal }) {
        const now = Date.now()
        const tenant = tenantOf(principal, p.tenant)
        const window = windowOf(p, now)
        const [view, breakers, pending] = await Promise.all([
          plane.store.overview({ ...window, ...(tenant !== undefined ? { tenant } : {}) }),
          plane.store.loadBreakers(),
          plane.store.listApprovals({
            status: 'pending',
            limit: MAX_PENDING,
            ...(tenant !== undefined ? { tenant } : {}),
          }),
        ])
        return {
          ...view,
          now,
          tenant: tenant ?? null,
          breakers: breakers
            .filter((b) => tenant === undefined || (b.tenant ?? '') === tenant)
            .map((b) => ({
              hook: b.hookId,
              tenant: b.tenant ?? '',
              openedAt: b.openedAt,
              failures: b.failures,
              lastError: b.lastError,
            })),
          approvals: pending.map((a) => ({
            id: a.id,
            decisionId: a.decisionId,
            tenant: a.tenant,
            event: a.event ?? null,
            hooks: (a.asks ?? []).map((ask) => ask.hook),
            requestedAt: a.requestedAt,
            ageMs: Math.max(0, now - a.requestedAt),
            ...(a.deadline !== undefined ? { deadline: a.deadline } : {}),
          })),
        }
      },
    }),
  }
}
