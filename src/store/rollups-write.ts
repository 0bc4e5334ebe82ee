// The overview's rollups: per-minute, per-hour and per-day counts of decisions by outcome
// (for the tenant, its tools, agents and denied sessions) and of hook runs (verdicts,
// errors, timeouts, shadow would-be denials and a fixed-bucket latency histogram). A batch's
// writer stores what it wrote as one row of pending counts (rollups-count.ts) in its own
// transaction; a fold adds the pending rows to these tables and deletes them
// (rollups-roll.ts). Minute rows older than MINUTE_RETENTION_MS are pruned once an hour;
// hour and day rows are kept.

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

/** Text PostgreSQL can store: a NUL (which it refuses in text) becomes U+FFFD, as in the audit rows. */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\ufffd') : text
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
  /** A batch's pending counts (JSON of PendingCounts), written in the batch's transaction. */
  insertPending: 'insert into rollup_pending (counts) values (?)',
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
  insertPending: 'insert into rollup_pending (counts) values ($1)',
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
