// What the hooks list shows of each hook's activity: runs and denials per time bucket over a
// window (24 h in the UI), and when each hook last ran. Runs are executions that were not
// skipped (a false `if` or matcher is not a run); a shadow run's deny is not a denial. Both queries start from the decisions of
// the window (through their time index) and reach the executions by decision id, so their
// cost follows the traffic of the window, not the size of the whole history.

import { type Kysely, sql } from 'kysely'
import { StoreError } from './errors.js'
import type { Database } from './schema.js'

/** The window and buckets of {@link Store.hookActivity}. */
export interface HookActivityQuery {
  /** Start of the window (epoch ms, inclusive). */
  since: number
  /** End of the window (epoch ms, exclusive). */
  until: number
  /** Equal buckets the window is cut into (1–96). */
  buckets: number
  /** Only executions in this tenant's decisions; omitted = every tenant. */
  tenant?: string
}

/** One hook's activity within the window. */
export interface HookActivity {
  /** The hook's engine id (`name` or `tenant/name`). */
  hookRef: string
  runs: number
  denials: number
  /** Runs per bucket, oldest first. */
  runsByBucket: number[]
  /** Denials per bucket, oldest first. */
  denialsByBucket: number[]
  /** The latest run within the window (epoch ms). */
  lastRunAt: number
}

/** Most buckets a query may ask for. */
export const MAX_ACTIVITY_BUCKETS = 96

/**
 * Runs and denials of every hook with executions in the window, per bucket.
 * @throws StoreError `invalid-query` when the window or the bucket count is out of range.
 */
export async function hookActivity(db: Kysely<Database>, query: HookActivityQuery): Promise<HookActivity[]> {
  const { since, until, buckets } = query
  if (!Number.isSafeInteger(since) || !Number.isSafeInteger(until) || until <= since) {
    throw new StoreError('invalid-query', 'the activity window needs whole-ms since < until')
  }
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > MAX_ACTIVITY_BUCKETS) {
    throw new StoreError('invalid-query', `the activity needs 1 to ${MAX_ACTIVITY_BUCKETS} buckets`)
  }
  const width = Math.ceil((until - since) / buckets)
  // Literal numbers (checked integers above): the same text in select and group by.
  const bucket = sql<number>`floor((${sql.ref('e.created_at')} - ${sql.lit(since)}) / ${sql.lit(width)})`
  let select = db
    .selectFrom('decisions as d')
    .innerJoin('hook_executions as e', 'e.decision_id', 'd.id')
    .select([
      'e.hook_ref as hook',
      bucket.as('bucket'),
      (eb) => eb.fn.countAll<number>().as('runs'),
      // A shadow hook's deny was recorded, not applied: not a denial.
      sql<number>`sum(case when ${sql.ref('e.decision')} = 'deny' and ${sql.ref('e.mode')} is null then 1 else 0 end)`.as(
        'denials',
      ),
      (eb) => eb.fn.max('e.created_at').as('last'),
    ])
    .where('d.created_at', '>=', since)
    .where('d.created_at', '<', until)
    .where('e.decision', '!=', 'skipped')
  if (query.tenant !== undefined) select = select.where('d.tenant', '=', query.tenant)
  const rows = await select.groupBy(['e.hook_ref', bucket]).execute()
  const byHook = new Map<string, HookActivity>()
  for (const row of rows) {
    let entry = byHook.get(row.hook)
    if (!entry) {
      entry = {
        hookRef: row.hook,
        runs: 0,
        denials: 0,
        runsByBucket: new Array<number>(buckets).fill(0),
        denialsByBucket: new Array<number>(buckets).fill(0),
        lastRunAt: 0,
      }
      byHook.set(row.hook, entry)
    }
    const at = Math.min(buckets - 1, Math.max(0, Number(row.bucket)))
    const runs = Number(row.runs)
    const denials = Number(row.denials)
    entry.runs += runs
    entry.denials += denials
    entry.runsByBucket[at] = (entry.runsByBucket[at] ?? 0) + runs
    entry.denialsByBucket[at] = (entry.denialsByBucket[at] ?? 0) + denials
    entry.lastRunAt = Math.max(entry.lastRunAt, Number(row.last))
  }
  return [...byHook.values()]
}
