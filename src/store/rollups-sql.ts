// The SQL that folds recorded rows into the rollup tables: one INSERT … SELECT … GROUP BY
// per grain and dimension (decisions) and per grain (hook executions), adding to the rows
// already there. The same statements backfill the whole history in the migration (range
// "1 = 1") and, on SQLite, fold the rows written since the last fold (a rowid / id range
// given as parameters: SQLite commits rows in that order, so the range misses none).

import { DAY_MS, HOUR_MS, LATENCY_BOUNDS_MS, LATENCY_COLUMNS, MINUTE_MS } from './rollups-write.js'

/** The grains kept: minute rows (recent), hour and day rows (the whole history). */
export const ROLLUP_SPANS = [MINUTE_MS, HOUR_MS, DAY_MS] as const

const count = (condition: string) => `sum(case when ${condition} then 1 else 0 end)`

/** The histogram's sums: bucket i holds durations above bound i-1 and at most bound i. */
function latencySums(): string {
  return LATENCY_COLUMNS.map((_, i) => {
    const low = i === 0 ? undefined : LATENCY_BOUNDS_MS[i - 1]
    const high = LATENCY_BOUNDS_MS[i]
    const parts = [
      ...(low !== undefined ? [`duration_ms > ${low}`] : []),
      ...(high !== undefined ? [`duration_ms <= ${high}`] : []),
    ]
    return count(parts.length > 0 ? parts.join(' and ') : '1 = 1')
  }).join(', ')
}

function adding(table: string, columns: readonly string[]): string {
  return columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')
}

const DIMENSIONS: [dim: string, item: string, where: string][] = [
  ['', "''", '1 = 1'],
  ['tool', 'tool', 'tool is not null'],
  ['agent', 'agent_id', 'agent_id is not null'],
  ['session', 'session_id', "session_id is not null and decision = 'deny'"],
]

const DECISION_COUNTS = ['total', 'n_allow', 'n_deny', 'n_modify', 'n_ask']
const HOOK_COUNTS = [
  'runs',
  'n_deny',
  'n_ask',
  'n_modify',
  'errors',
  'timeouts',
  'shadow_runs',
  'shadow_deny',
]

/**
 * The statements that fold decisions into `rollup_decisions` for one grain, one per
 * dimension, limited by `range` (a condition on the decisions, e.g. on rowid) and by
 * `created_at >= since` (a literal or a parameter).
 */
export function decisionFoldSql(span: number, range: string, since: string): string[] {
  const bucket = `(created_at / ${span}) * ${span}`
  const outcomes = `count(*), ${count("decision = 'allow'")}, ${count("decision = 'deny'")}, ${count("decision = 'modify'")}, ${count("decision = 'ask'")}`
  return DIMENSIONS.map(
    ([dim, item, where]) =>
      `insert into rollup_decisions (span, dim, tenant, bucket, item, ${DECISION_COUNTS.join(', ')})
       select ${span}, '${dim}', tenant, ${bucket}, ${item}, ${outcomes}
       from decisions where ${range} and created_at >= ${since} and ${where}
       group by tenant, ${bucket}${dim === '' ? '' : `, ${item}`}
       on conflict (span, dim, tenant, bucket, item) do update set ${adding('rollup_decisions', DECISION_COUNTS)}`,
  )
}

/** The statement that folds hook executions into `rollup_hooks` for one grain (skipped runs left out). */
export function hookFoldSql(span: number, range: string, since: string): string {
  const bucket = `(created_at / ${span}) * ${span}`
  const shadow = "coalesce(mode, '') = 'shadow'"
  const enforced = (verdict: string) => count(`decision = '${verdict}' and not (${shadow})`)
  const columns = [...HOOK_COUNTS, ...LATENCY_COLUMNS]
  return `insert into rollup_hooks (span, tenant, bucket, hook, ${columns.join(', ')})
    select ${span}, tenant, ${bucket}, hook_ref, count(*), ${enforced('deny')}, ${enforced('ask')}, ${enforced('modify')},
      ${count("error_kind is not null and error_kind <> 'timeout'")}, ${count("error_kind = 'timeout'")},
      ${count(shadow)}, ${count(`${shadow} and decision = 'deny'`)}, ${latencySums()}
    from hook_executions where ${range} and created_at >= ${since} and decision <> 'skipped'
    group by tenant, ${bucket}, hook_ref
    on conflict (span, tenant, bucket, hook) do update set ${adding('rollup_hooks', columns)}`
}

/**
 * The statements of one compaction step over the buckets [from, to) (`from` and `to` the
 * dialect's two parameters): hour rows summed from minute rows, or day rows from hour rows;
 * each for both tables.
 */
export function compactionSql(
  from: string,
  to: string,
): Record<'hoursFromMinutes' | 'daysFromHours', string[]> {
  const step = (source: number, span: number) => {
    const bucket = `(bucket / ${span}) * ${span}`
    const hookColumns = [...HOOK_COUNTS, ...LATENCY_COLUMNS]
    const sums = (columns: readonly string[]) => columns.map((c) => `sum(${c})`).join(', ')
    return [
      `insert into rollup_decisions (span, dim, tenant, bucket, item, ${DECISION_COUNTS.join(', ')})
       select ${span}, dim, tenant, ${bucket}, item, ${sums(DECISION_COUNTS)}
       from rollup_decisions where span = ${source} and bucket >= ${from} and bucket < ${to}
       group by dim, tenant, ${bucket}, item
       on conflict (span, dim, tenant, bucket, item) do update set ${adding('rollup_decisions', DECISION_COUNTS)}`,
      `insert into rollup_hooks (span, tenant, bucket, hook, ${hookColumns.join(', ')})
       select ${span}, tenant, ${bucket}, hook, ${sums(hookColumns)}
       from rollup_hooks where span = ${source} and bucket >= ${from} and bucket < ${to}
       group by tenant, ${bucket}, hook
       on conflict (span, tenant, bucket, hook) do update set ${adding('rollup_hooks', hookColumns)}`,
    ]
  }
  return {
    hoursFromMinutes: step(MINUTE_MS, HOUR_MS),
    daysFromHours: step(HOUR_MS, DAY_MS),
  }
}
