// Migration 0016_rollup_pending: the overview's rollups are fed from pending counts (one
// row per audit batch, rollups-roll.ts) instead of SQLite's fold marks and PostgreSQL's
// upserts in each batch, and hour and day rows are compacted from finer rows once their
// hour or day is over instead of being written with each batch. On SQLite the rows written
// after the marks of 0014 are folded in SQL first, so that nothing recorded before the
// upgrade is left out, and those marks go.

import { type Kysely, type Migration, sql } from 'kysely'
import { decisionFoldSql, hookFoldSql, ROLLUP_SPANS } from './rollups-sql.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, MINUTE_RETENTION_MS } from './rollups-write.js'

/** Folds the rows past SQLite's 0014 marks (rowid and id ranges) into the rollups. */
async function foldPastMarks(db: Kysely<unknown>, now: number): Promise<void> {
  const marks = await sql<{ key: string; value: unknown }>`select key, value from rollup_state`.execute(db)
  const mark = (key: string) => Number(marks.rows.find((r) => r.key === key)?.value ?? 0)
  const decisions = `rowid > ${mark('decisions')}`
  const executions = `id > ${mark('executions')}`
  for (const span of ROLLUP_SPANS) {
    const since = String(span === MINUTE_MS ? now - MINUTE_RETENTION_MS : 0)
    for (const statement of decisionFoldSql(span, decisions, since)) await sql.raw(statement).execute(db)
    await sql.raw(hookFoldSql(span, executions, since)).execute(db)
  }
  await sql`delete from rollup_state where key in ('decisions', 'executions')`.execute(db)
}

/**
 * From now on hour rows are compacted from minute rows once an hour is over, and day rows
 * from hour rows once a day is: the hours before this one keep the hour rows written with
 * each batch until now, and this hour's hour rows and today's day rows are taken away, to be
 * summed from the minute rows (kept for the last 48 hours) and hour rows when they are over.
 */
async function startCompaction(db: Kysely<unknown>, now: number): Promise<void> {
  const hours = now - (now % HOUR_MS)
  const days = now - (now % DAY_MS)
  for (const [span, from] of [
    [HOUR_MS, hours],
    [DAY_MS, days],
  ] as const) {
    await sql`delete from rollup_decisions where span = ${span} and bucket >= ${from}`.execute(db)
    await sql`delete from rollup_hooks where span = ${span} and bucket >= ${from}`.execute(db)
  }
  await sql`delete from rollup_state where key in ('hours', 'days')`.execute(db)
  await sql`insert into rollup_state (key, value) values ('hours', ${hours}), ('days', ${days})`.execute(db)
}

/** 0016: the pending counts table (ids never reused: a writer may remember its own). */
export function rollupPendingMigration(
  dialect: 'sqlite' | 'postgres',
  now: () => number = Date.now,
): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('rollup_pending')
        .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('counts', 'text', (c) => c.notNull())
        .execute()
      const at = now()
      if (dialect === 'sqlite') await foldPastMarks(db, at)
      await startCompaction(db, at)
    },
  }
}
