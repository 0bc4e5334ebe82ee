// Folding the overview's pending counts into the rollups. Each audit batch stores what it
// wrote as one row of `rollup_pending` (rollups-count.ts); a fold reads the pending rows,
// sums them into minute, hour and day rows, adds those to the rollup tables and deletes the
// pending rows it read, in one transaction, so whichever connection, thread or instance
// folds, each row is counted exactly once. On SQLite the fold runs in an IMMEDIATE
// transaction (one writer at a time); on PostgreSQL folds take a transaction-scoped
// advisory lock, so two instances fold one after the other and never deadlock on the
// rollup rows. The audit writer folds every five seconds while batches arrive (at once when
// 64 of its batches are pending); the store folds what is left before it answers an
// overview, so the figures include every decision recorded. Minute rows past their
// retention (and compacted) are pruned about once an hour.

import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type Kysely, type Transaction } from 'kysely'
import { countBatch, type PendingCounts, type RollupMarks, rollupCode } from './rollups-count.js'
import { compactionSql, ROLLUP_SPANS } from './rollups-sql.js'
import {
  DECISION_ROLLUP_COUNTS,
  DECISION_ROLLUP_KEY,
  HOOK_ROLLUP_COUNTS,
  HOOK_ROLLUP_KEY,
  HOUR_MS,
  LATENCY_BOUNDS_MS,
  MINUTE_RETENTION_MS,
  POSTGRES_ROLLUP_SQL,
  ROLLUP_DIMENSIONS,
  rollupColumns,
  SQLITE_ROLLUP_SQL,
} from './rollups-write.js'
import type { Database } from './schema.js'
import type { AuditBatch } from './types.js'

/**
 * How often an audit writer folds while batches arrive. An overview folds what is pending
 * before it answers, so the figures do not wait for it; a longer interval adds the same
 * keys (the tenants', tools', agents' and hooks' of the minute) fewer times.
 */
export const FOLD_INTERVAL_MS = 5000
/** A writer folds at once when this many of its batches are pending (bounds what it holds). */
export const FOLD_PENDING_LIMIT = 64

/** Pending rows one PostgreSQL fold takes at most (the rest are left to the next one). */
const POSTGRES_FOLD_LIMIT = 2000

/** The key of the advisory lock PostgreSQL folds hold ("wrdn" "roll"). */
const FOLD_LOCK_KEY = 0x7772646e726f6c6cn

/** The statements of a SQLite fold (plain data: it crosses to the writer's thread). */
export const SQLITE_FOLD_SQL = {
  marks: "select key, value from rollup_state where key in ('hours', 'days')",
  setMark:
    'insert into rollup_state (key, value) values (?, ?) on conflict (key) do update set value = excluded.value',
  compact: compactionSql('?', '?'),
  pendingIds: 'select id from rollup_pending order by id',
  pendingCounts: 'select counts from rollup_pending where id = ?',
  dropPending: 'delete from rollup_pending where id <= ?',
  upsertDecisions: SQLITE_ROLLUP_SQL.decisions,
  upsertHooks: SQLITE_ROLLUP_SQL.hooks,
  pruneDecisions: SQLITE_ROLLUP_SQL.pruneDecisions,
  pruneHooks: SQLITE_ROLLUP_SQL.pruneHooks,
  dimensions: ROLLUP_DIMENSIONS,
  spans: ROLLUP_SPANS,
  retentionMs: MINUTE_RETENTION_MS,
}

/** Folds the pending counts into the rollups now, on this better-sqlite3 connection. */
export function sqliteFolder(database: BetterSqlite3.Database): () => void {
  return rollupCode.makeRollupFold(database, SQLITE_FOLD_SQL)
}

/**
 * Folds batches' rows straight into rollup rows of the given grains (without pending rows):
 * the rows as the fold would add them for `marks` (none: every grain), for tests and the
 * benchmark's generated history.
 */
export function rollupFolder(
  spans: readonly number[] = ROLLUP_SPANS,
  minuteSince = Date.now() - MINUTE_RETENTION_MS,
  marks?: RollupMarks,
): (batch: Pick<AuditBatch, 'decisions' | 'executions'>) => {
  decisions: unknown[][]
  hooks: unknown[][]
} {
  return (batch) => {
    const counts = countBatch(newCounter(), batch)
    return rollupCode.rollupGrains(counts ? [counts] : [], spans, minuteSince, marks)
  }
}

/** A counter of the rows a batch wrote, with the latency bounds of the histogram. */
export function newCounter(): ReturnType<typeof rollupCode.rollupCounter> {
  return rollupCode.rollupCounter(LATENCY_BOUNDS_MS)
}

const DECISION_WIDTH = DECISION_ROLLUP_KEY.length + DECISION_ROLLUP_COUNTS.length
const HOOK_WIDTH = HOOK_ROLLUP_KEY.length + HOOK_ROLLUP_COUNTS.length

const POSTGRES_COMPACTION = compactionSql('$1', '$2')

/** Compacts what is due on PostgreSQL and returns the marks after it (undefined: none kept). */
async function compactPostgres(trx: Transaction<Database>, now: number): Promise<RollupMarks | undefined> {
  const stored = await trx.executeQuery<{ key: string; value: unknown }>(
    CompiledQuery.raw("select key, value from rollup_state where key in ('hours', 'days')"),
  )
  const hours = stored.rows.find((r) => r.key === 'hours')
  const days = stored.rows.find((r) => r.key === 'days')
  if (!hours || !days) return undefined
  const before = { hours: Number(hours.value), days: Number(days.value) }
  const due = rollupCode.rollupCompaction(now, before)
  for (const [name, from, to] of due.steps) {
    for (const statement of POSTGRES_COMPACTION[name]) {
      await trx.executeQuery(CompiledQuery.raw(statement, [from, to]))
    }
  }
  for (const key of ['hours', 'days'] as const) {
    if (due.marks[key] === before[key]) continue
    await trx.executeQuery(
      CompiledQuery.raw('update rollup_state set value = $1 where key = $2', [due.marks[key], key]),
    )
  }
  return due.marks
}

/** One PostgreSQL fold: takes up to POSTGRES_FOLD_LIMIT pending rows. Resolves true when some were left. */
async function foldPostgresOnce(db: Kysely<Database>, prune: boolean): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw('select pg_advisory_xact_lock($1)', [FOLD_LOCK_KEY.toString()]))
    const now = Date.now()
    const minuteSince = now - MINUTE_RETENTION_MS
    const marks = await compactPostgres(trx, now)
    const taken = await trx.executeQuery<{ counts: string }>(
      CompiledQuery.raw(
        'delete from rollup_pending where id in (select id from rollup_pending order by id limit $1) returning counts',
        [POSTGRES_FOLD_LIMIT],
      ),
    )
    if (taken.rows.length > 0) {
      const pendings = taken.rows.map((row) => JSON.parse(row.counts) as PendingCounts)
      const rows = rollupCode.rollupGrains(pendings, ROLLUP_SPANS, minuteSince, marks)
      const params = [
        ...rollupColumns(rows.decisions, DECISION_WIDTH),
        ...rollupColumns(rows.hooks, HOOK_WIDTH),
      ]
      await trx.executeQuery(CompiledQuery.raw(POSTGRES_ROLLUP_SQL.both, params))
    }
    if (prune) {
      // Minute rows not compacted yet are kept whatever their age.
      const before = marks ? Math.min(minuteSince, marks.hours) : minuteSince
      await trx.executeQuery(CompiledQuery.raw(POSTGRES_ROLLUP_SQL.prune, [before]))
      await trx.executeQuery(CompiledQuery.raw(POSTGRES_ROLLUP_SQL.pruneHooks, [before]))
    }
    return taken.rows.length === POSTGRES_FOLD_LIMIT
  })
}

/** Folds on PostgreSQL: after batches (every FOLD_INTERVAL_MS, or FOLD_PENDING_LIMIT batches), now, and at close. */
export interface PostgresFolding {
  /** A batch was written: fold within FOLD_INTERVAL_MS, or now once FOLD_PENDING_LIMIT are pending. */
  written(): void
  /** Folds every pending row now (waits for a fold under way). */
  now(): Promise<void>
  /** Stops the timer and folds what is left (its failure is left pending for the next start). */
  close(): Promise<void>
}

/** The PostgreSQL fold of one store. */
export function postgresFolding(db: Kysely<Database>): PostgresFolding {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let prunedHour = 0
  let closed = false
  let pending = 0
  const fold = (): Promise<void> => {
    const next = running.then(async () => {
      const hour = Math.floor(Date.now() / HOUR_MS)
      const prune = hour !== prunedHour
      let more = await foldPostgresOnce(db, prune)
      while (more) more = await foldPostgresOnce(db, false)
      if (prune) prunedHour = hour
    })
    running = next.catch(() => undefined)
    return next
  }
  return {
    written() {
      if (closed) return
      pending++
      if (pending >= FOLD_PENDING_LIMIT) {
        clearTimeout(timer)
        timer = undefined
        pending = 0
        void fold().catch(() => undefined)
        return
      }
      if (timer) return
      timer = setTimeout(() => {
        timer = undefined
        pending = 0
        // A fold that fails (an outage) leaves the pending rows for the next one.
        void fold().catch(() => undefined)
      }, FOLD_INTERVAL_MS)
      timer.unref()
    },
    now: fold,
    async close() {
      closed = true
      clearTimeout(timer)
      timer = undefined
      await fold().catch(() => undefined)
    },
  }
}
