// Methods that help read and write hooks: `hooks.activity` (each hook's runs and denials
// over a recent window, per bucket, for the hooks list's trend lines) and
// `events.reference` (the variables a CEL `if` condition can use for an event, for the
// hook form's reference and completion).
//
// Reach: `hooks.activity` counts only executions within decisions of the caller's tenant
// (a tenant token) and only hooks the caller may see; `events.reference` reads no stored
// data. Neither touches the host. The window is capped (7 days, 96 buckets), so one call
// reads a bounded slice of the audit tables through the decisions' time index.

import { z } from 'zod'
import { conditionReference, lookupEventName } from '../../core/index.js'
import { MAX_ACTIVITY_BUCKETS } from '../../store/index.js'
import type { PlaneContext } from './context.js'
import { allViews } from './hook-inputs.js'
import { ApiError, type MethodDef, method, READERS } from './protocol.js'

const HOUR = 3_600_000

/** The insight methods. */
export function insightMethods(plane: PlaneContext): Record<string, MethodDef> {
  return {
    'hooks.activity': method({
      params: z
        .object({
          hours: z.number().int().min(1).max(168, 'must be at most 168 (7 days)').optional(),
          buckets: z.number().int().min(1).max(MAX_ACTIVITY_BUCKETS).optional(),
        })
        .strict(),
      roles: READERS,
      async run(p, { principal }) {
        const until = Date.now()
        const hours = p.hours ?? 24
        const since = until - hours * HOUR
        const buckets = p.buckets ?? 24
        const visible = new Set((await allViews(plane, principal)).map((h) => h.id))
        const rows = await plane.store.hookActivity({
          since,
          until,
          buckets,
          ...(principal.tenant !== undefined ? { tenant: principal.tenant } : {}),
        })
        return {
          since,
          until,
          buckets,
          hooks: rows
            .filter((r) => visible.has(r.hookRef))
            .map((r) => ({
              id: r.hookRef,
              runs: r.runs,
              denials: r.denials,
              lastRunAt: r.lastRunAt,
              runsByBucket: r.runsByBucket,
              denialsByBucket: r.denialsByBucket,
            })),
        }
      },
    }),
    'events.reference': method({
      params: z.object({ event: z.string({ error: 'must be an event name' }).min(1).max(200) }).strict(),
      roles: READERS,
      run(p) {
        const event = lookupEventName(p.event)
        if (!event) throw new ApiError('invalid-params', `unknown event "${p.event}"`, 'event')
        return { event, variables: conditionReference(event) }
      },
    }),
  }
}
