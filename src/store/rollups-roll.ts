// SQLite's rollups: the rows written since the last fold (decisions past a rowid mark,
// hook executions past an id mark, both kept in `rollup_state`) are folded in SQL into the
// minute, hour and day rows, and the marks moved, in one IMMEDIATE transaction, so that a
// row is counted exactly once whichever connection or process folds it. SQLite commits
// rows in rowid order (one writer at a time), so a mark never passes a row not yet folded.
// The audit writer's thread folds about once a second (one pass for many batches costs a
// few percent of the writes); the store folds what is left before it answers an overview.
// The fold is plain JavaScript source, run as is on the writer's thread and compiled once
// here for the calling thread.

import type BetterSqlite3 from 'better-sqlite3'
import { decisionFoldSql, hookFoldSql, ROLLUP_SPANS } from './rollups-sql.js'
import { MINUTE_MS, MINUTE_RETENTION_MS, ROLLUP_DIMENSIONS } from './rollups-write.js'

/** How often the writer's thread folds while batches arrive. */
export const FOLD_INTERVAL_MS = 1000

/** The statements of a fold (plain data: it crosses to the writer's thread). */
export const SQLITE_FOLD_SQL = {
  marks: 'select key, value from rollup_state',
  setMark:
    'insert into rollup_state (key, value) values (?, ?) on conflict (key) do update set value = excluded.value',
  maxDecision: 'select max(rowid) from decisions',
  maxExecution: 'select max(id) from hook_executions',
  decisionSteps: ROLLUP_SPANS.flatMap((span) =>
    decisionFoldSql(span, 'rowid > ? and rowid <= ?', '?').map((sql) => ({
      sql,
      minute: span === MINUTE_MS,
    })),
  ),
  hookSteps: ROLLUP_SPANS.map((span) => ({
    sql: hookFoldSql(span, 'id > ? and id <= ?', '?'),
    minute: span === MINUTE_MS,
  })),
  pruneDecisions: `delete from rollup_decisions where span = ${MINUTE_MS} and dim = ? and bucket < ?`,
  pruneHooks: `delete from rollup_hooks where span = ${MINUTE_MS} and bucket < ?`,
  dimensions: ROLLUP_DIMENSIONS,
  retentionMs: MINUTE_RETENTION_MS,
}

/**
 * `makeFolder(db, statements)`: returns a function that folds what is new, for a
 * better-sqlite3 connection. Source text, so that the writer's thread runs the same code.
 */
export const FOLD_SOURCE = `function makeFolder(db, s) {
  const marks = db.prepare(s.marks)
  const setMark = db.prepare(s.setMark)
  const ranges = [
    ['decisions', db.prepare(s.maxDecision).pluck(), s.decisionSteps.map((x) => [db.prepare(x.sql), x.minute])],
    ['executions', db.prepare(s.maxExecution).pluck(), s.hookSteps.map((x) => [db.prepare(x.sql), x.minute])],
  ]
  const pruneDecisions = db.prepare(s.pruneDecisions)
  const pruneHooks = db.prepare(s.pruneHooks)
  let prunedHour = 0
  const fold = db.transaction(() => {
    const now = Date.now()
    const minuteSince = now - s.retentionMs
    const mark = new Map(marks.all().map((r) => [r.key, Number(r.value)]))
    for (const [key, max, steps] of ranges) {
      const from = mark.get(key) ?? 0
      const to = Number(max.get() ?? 0)
      if (to <= from) continue
      for (const [statement, minute] of steps) statement.run(from, to, minute ? minuteSince : 0)
      setMark.run(key, to)
    }
    const hour = Math.floor(now / 3600000)
    if (hour !== prunedHour) {
      prunedHour = hour
      for (const dim of s.dimensions) pruneDecisions.run(dim, minuteSince)
      pruneHooks.run(minuteSince)
    }
  })
  return () => fold.immediate()
}`

/** Folds the rows written since the last fold into the rollups, on this connection. */
export function sqliteFolder(database: BetterSqlite3.Database): () => void {
  const make = new Function(`return ${FOLD_SOURCE}`)() as (
    db: BetterSqlite3.Database,
    statements: typeof SQLITE_FOLD_SQL,
  ) => () => void
  return make(database, SQLITE_FOLD_SQL)
}
