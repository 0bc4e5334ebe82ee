// The overview's rollups: per-minute, per-hour and per-day counts of decisions by outcome
// (for the tenant, its tools, agents and denied sessions) and of hook runs (verdicts,
// errors, timeouts, shadow would-be denials and a fixed-bucket latency histogram). On
// PostgreSQL each audit batch is folded in memory and added by upsert in the batch's own
// transaction (rows already written are not counted again). SQLite folds in SQL instead,
// about once a second (rollups-roll.ts). Minute rows older than MINUTE_RETENTION_MS are
// pruned once an hour; hour and day rows are kept.

import { CompiledQuery, type Transaction } from 'kysely'
import type { Database } from './schema.js'
import type { AuditBatch, DecisionRow, ExecutionRow } from './types.js'

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000
/** How long minute rows are kept (short windows read them; longer ones read hour rows). */
export const MINUTE_RETENTION_MS = 48 * HOUR_MS

/** Upper bounds (ms) of the latency histogram's buckets; a last bucket holds the rest. */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000] as const
/** The histogram's columns, `l0` … `l13`. */
export const LATENCY_COLUMNS = Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) => `l${i}`)

/** The dimensions decisions are counted by: '' (the tenant as a whole), tool, agent, session. */
export type RollupDimension = '' | 'tool' | 'agent' | 'session'

/** Columns of `rollup_decisions`: the key, then the counts. */
export const DECISION_ROLLUP_KEY = ['span', 'dim', 'tenant', 'bucket', 'item'] as const
export const DECISION_ROLLUP_COUNTS = ['total', 'n_allow', 'n_deny', 'n_modify', 'n_ask'] as const
/** Columns of `rollup_hooks`: the key, then the counts and the histogram. */
export const HOOK_ROLLUP_KEY = ['span', 'tenant', 'bucket', 'hook'] as const
export const HOOK_ROLLUP_COUNTS = [
  'runs',
  'n_deny',
  'n_ask',
  'n_modify',
  'errors',
  'timeouts',
  'shadow_runs',
  'shadow_deny',
  ...LATENCY_COLUMNS,
] as const

/** What one batch adds to the rollups, as column tuples in key order (sorted: a stable lock order). */
export interface RollupRows {
  decisions: unknown[][]
  hooks: unknown[][]
  /** Minute rows before this time are to be deleted (set once an hour). */
  pruneBefore?: number
}

const OUTCOME_COLUMN: Record<string, number> = { allow: 1, deny: 2, modify: 3, ask: 4 }

/** The histogram bucket of a duration. */
export function latencyBucket(durationMs: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) {
    if (durationMs <= (LATENCY_BOUNDS_MS[i] as number)) return i
  }
  return LATENCY_BOUNDS_MS.length
}

/** Text PostgreSQL can store: a NUL (which it refuses in text) becomes U+FFFD, as in the audit rows. */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\ufffd') : text
}

/** Adds one decision to its row of `map` (made at zero when new). */
function countDecision(
  map: Map<string, unknown[]>,
  key: readonly [span: number, dim: RollupDimension, tenant: string, bucket: number, item: string],
  outcome: number | undefined,
): void {
  const id = `${key[0]}\u0000${key[1]}\u0000${key[2]}\u0000${key[3]}\u0000${key[4]}`
  let row = map.get(id)
  if (!row) {
    row = [...key, 0, 0, 0, 0, 0]
    map.set(id, row)
  }
  const offset = DECISION_ROLLUP_KEY.length
  row[offset] = (row[offset] as number) + 1
  if (outcome !== undefined) row[offset + outcome] = (row[offset + outcome] as number) + 1
}

function addDecision(map: Map<string, unknown[]>, row: DecisionRow, span: number): void {
  const bucket = row.createdAt - (row.createdAt % span)
  const outcome = OUTCOME_COLUMN[row.decision]
  const tenant = storableText(row.tenant)
  countDecision(map, [span, '', tenant, bucket, ''], outcome)
  if (row.tool) countDecision(map, [span, 'tool', tenant, bucket, storableText(row.tool)], outcome)
  if (row.agentId) countDecision(map, [span, 'agent', tenant, bucket, storableText(row.agentId)], outcome)
  // Sessions are many: only those with a denial are counted.
  if (row.sessionId && row.decision === 'deny') {
    countDecision(map, [span, 'session', tenant, bucket, storableText(row.sessionId)], outcome)
  }
}

function addExecution(map: Map<string, unknown[]>, row: ExecutionRow, span: number): void {
  if (row.decision === 'skipped') return
  const bucket = row.createdAt - (row.createdAt % span)
  const tenant = storableText(row.tenant)
  const hook = storableText(row.hookRef)
  const id = `${span}\u0000${tenant}\u0000${bucket}\u0000${hook}`
  let c = map.get(id)
  if (!c) {
    c = [span, tenant, bucket, hook, ...new Array<number>(HOOK_ROLLUP_COUNTS.length).fill(0)]
    map.set(id, c)
  }
  const counts = c
  const o = HOOK_ROLLUP_KEY.length
  const bump = (i: number) => {
    counts[o + i] = (counts[o + i] as number) + 1
  }
  bump(0)
  if (row.mode === 'shadow') {
    bump(6)
    if (row.decision === 'deny') bump(7)
  } else if (row.decision === 'deny') bump(1)
  else if (row.decision === 'ask') bump(2)
  else if (row.decision === 'modify') bump(3)
  if (row.errorKind === 'timeout') bump(5)
  else if (row.errorKind) bump(4)
  bump(8 + latencyBucket(row.durationMs))
}

/**
 * Adds rows of a finer span into `map` at a coarser one: the key's span and bucket (at
 * `bucketAt`) are replaced and the counts (from `countsAt` on) summed.
 */
function rollUpInto(
  map: Map<string, unknown[]>,
  rows: readonly unknown[][],
  span: number,
  bucketAt: number,
  countsAt: number,
): void {
  for (const fine of rows) {
    const key = fine.slice(0, countsAt)
    key[0] = span
    key[bucketAt] = (key[bucketAt] as number) - ((key[bucketAt] as number) % span)
    const id = key.join('\u0000')
    const row = map.get(id)
    if (!row) {
      map.set(id, [...key, ...fine.slice(countsAt)])
      continue
    }
    for (let i = countsAt; i < fine.length; i++) row[i] = (row[i] as number) + (fine[i] as number)
  }
}

function sorted(map: Map<string, unknown[]>): unknown[][] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row)
}

const SPANS = [MINUTE_MS, HOUR_MS, DAY_MS]

/**
 * Folds batches into rollup rows (of the given grains); remembers when minute rows were last
 * pruned. Rows are counted at the finest grain and the coarser grains summed from those
 * rows (when each is a multiple of the finest), so a row is looked up once, not once per grain.
 */
export function rollupFolder(
  spans: readonly number[] = SPANS,
): (batch: Pick<AuditBatch, 'decisions' | 'executions'>) => RollupRows {
  const finest = Math.min(...spans)
  const coarser = spans.filter((span) => span !== finest)
  const nested = coarser.every((span) => span % finest === 0)
  const direct = nested ? [finest] : spans
  let prunedHour = 0
  return (batch) => {
    const decisions = new Map<string, unknown[]>()
    const hooks = new Map<string, unknown[]>()
    for (const row of batch.decisions) {
      for (const span of direct) addDecision(decisions, row, span)
    }
    for (const row of batch.executions) {
      for (const span of direct) addExecution(hooks, row, span)
    }
    if (nested && coarser.length > 0) {
      const fineDecisions = [...decisions.values()]
      const fineHooks = [...hooks.values()]
      for (const span of coarser) {
        rollUpInto(decisions, fineDecisions, span, 3, DECISION_ROLLUP_KEY.length)
        rollUpInto(hooks, fineHooks, span, 2, HOOK_ROLLUP_KEY.length)
      }
    }
    const out: RollupRows = { decisions: sorted(decisions), hooks: sorted(hooks) }
    const hour = Math.floor(Date.now() / HOUR_MS)
    if (hour !== prunedHour) {
      prunedHour = hour
      out.pruneBefore = hour * HOUR_MS - MINUTE_RETENTION_MS
    }
    return out
  }
}

function upsert(table: string, key: readonly string[], counts: readonly string[], values: string): string {
  const sets = counts.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')
  return `insert into ${table} (${[...key, ...counts].join(', ')}) ${values} on conflict (${key.join(', ')}) do update set ${sets}`
}

const placeholders = (n: number) => `values (${new Array(n).fill('?').join(', ')})`

/** The SQLite statements: one upsert per rollup row, and the prune of old minute rows. */
export const SQLITE_ROLLUP_SQL = {
  decisions: upsert(
    'rollup_decisions',
    DECISION_ROLLUP_KEY,
    DECISION_ROLLUP_COUNTS,
    placeholders(DECISION_ROLLUP_KEY.length + DECISION_ROLLUP_COUNTS.length),
  ),
  hooks: upsert(
    'rollup_hooks',
    HOOK_ROLLUP_KEY,
    HOOK_ROLLUP_COUNTS,
    placeholders(HOOK_ROLLUP_KEY.length + HOOK_ROLLUP_COUNTS.length),
  ),
  pruneDecisions: `delete from rollup_decisions where span = ${MINUTE_MS} and dim = ? and bucket < ?`,
  pruneHooks: `delete from rollup_hooks where span = ${MINUTE_MS} and bucket < ?`,
}

/** The dimensions, for pruning one index range at a time. */
export const ROLLUP_DIMENSIONS: readonly RollupDimension[] = ['', 'tool', 'agent', 'session']

function unnest(types: string[], offset = 0): string {
  return `select * from unnest(${types.map((t, i) => `$${offset + i + 1}::${t}[]`).join(', ')})`
}

const DECISION_TYPES = ['int8', 'text', 'text', 'int8', 'text', ...DECISION_ROLLUP_COUNTS.map(() => 'int8')]
const HOOK_TYPES = ['int8', 'text', 'int8', 'text', ...HOOK_ROLLUP_COUNTS.map(() => 'int8')]

/** The PostgreSQL statements: one upsert per table from unnest'ed column arrays. */
export const POSTGRES_ROLLUP_SQL = {
  decisions: upsert('rollup_decisions', DECISION_ROLLUP_KEY, DECISION_ROLLUP_COUNTS, unnest(DECISION_TYPES)),
  hooks: upsert('rollup_hooks', HOOK_ROLLUP_KEY, HOOK_ROLLUP_COUNTS, unnest(HOOK_TYPES)),
  /** Both upserts in one round trip. */
  both: `with d as (${upsert('rollup_decisions', DECISION_ROLLUP_KEY, DECISION_ROLLUP_COUNTS, unnest(DECISION_TYPES))} returning 1),
    h as (${upsert('rollup_hooks', HOOK_ROLLUP_KEY, HOOK_ROLLUP_COUNTS, unnest(HOOK_TYPES, DECISION_TYPES.length))} returning 1)
    select (select count(*) from d) as d, (select count(*) from h) as h`,
  prune: `delete from rollup_decisions where span = ${MINUTE_MS} and bucket < $1`,
  pruneHooks: `delete from rollup_hooks where span = ${MINUTE_MS} and bucket < $1`,
}

/** Row tuples as one array per column (for unnest). */
export function rollupColumns(rows: unknown[][], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => new Array(rows.length))
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as unknown[]
    for (let c = 0; c < width; c++) (columns[c] as unknown[])[r] = row[c]
  }
  return columns
}

/** The PostgreSQL rollup step of a batch: call it inside the batch's transaction. */
export function postgresRollupWriter(): (
  trx: Transaction<Database>,
  batch: Pick<AuditBatch, 'decisions' | 'executions'>,
) => Promise<void> {
  const fold = rollupFolder()
  const decisionWidth = DECISION_ROLLUP_KEY.length + DECISION_ROLLUP_COUNTS.length
  const hookWidth = HOOK_ROLLUP_KEY.length + HOOK_ROLLUP_COUNTS.length
  return async (trx, batch) => {
    const rows = fold(batch)
    if (rows.decisions.length > 0 && rows.hooks.length > 0) {
      const params = [
        ...rollupColumns(rows.decisions, decisionWidth),
        ...rollupColumns(rows.hooks, hookWidth),
      ]
      await trx.executeQuery(CompiledQuery.raw(POSTGRES_ROLLUP_SQL.both, params))
    } else if (rows.decisions.length > 0) {
      await trx.executeQuery(
        CompiledQuery.raw(POSTGRES_ROLLUP_SQL.decisions, rollupColumns(rows.decisions, decisionWidth)),
      )
    } else if (rows.hooks.length > 0) {
      await trx.executeQuery(
        CompiledQuery.raw(POSTGRES_ROLLUP_SQL.hooks, rollupColumns(rows.hooks, hookWidth)),
      )
    }
    if (rows.pruneBefore !== undefined) {
      await trx.executeQuery(CompiledQuery.raw(POSTGRES_ROLLUP_SQL.prune, [rows.pruneBefore]))
      await trx.executeQuery(CompiledQuery.raw(POSTGRES_ROLLUP_SQL.pruneHooks, [rows.pruneBefore]))
    }
  }
}
