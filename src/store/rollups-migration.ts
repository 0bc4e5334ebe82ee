// Migration 0014_rollups: the overview's rollup tables (and SQLite's fold marks), filled from
// the decisions and hook executions already recorded so that the overview is right after an
// upgrade. Hour and day rows are backfilled for the whole history, minute rows for the last
// MINUTE_RETENTION_MS (the write path keeps them from then on: rollups-write.ts and
// rollups-roll.ts).

import { type Kysely, type Migration, sql } from 'kysely'
import { decisionFoldSql, hookFoldSql, ROLLUP_SPANS } from './rollups-sql.js'
import { LATENCY_COLUMNS, MINUTE_MS, MINUTE_RETENTION_MS } from './rollups-write.js'

async function createTables(db: Kysely<unknown>): Promise<void> {
  let decisions = db.schema
    .createTable('rollup_decisions')
    .addColumn('span', 'bigint', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('item', 'text', (c) => c.notNull())
  for (const column of ['total', 'n_allow', 'n_deny', 'n_modify', 'n_ask']) {
    decisions = decisions.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
  }
  await decisions
    .addPrimaryKeyConstraint('rollup_decisions_pk', ['span', 'dim', 'tenant', 'bucket', 'item'])
    .execute()
  await db.schema
    .createIndex('rollup_decisions_time')
    .on('rollup_decisions')
    .columns(['span', 'dim', 'bucket'])
    .execute()

  let hooks = db.schema
    .createTable('rollup_hooks')
    .addColumn('span', 'bigint', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('hook', 'text', (c) => c.notNull())
  const counts = ['runs', 'n_deny', 'n_ask', 'n_modify', 'errors', 'timeouts', 'shadow_runs', 'shadow_deny']
  for (const column of [...counts, ...LATENCY_COLUMNS]) {
    hooks = hooks.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
  }
  await hooks.addPrimaryKeyConstraint('rollup_hooks_pk', ['span', 'tenant', 'bucket', 'hook']).execute()
  await db.schema.createIndex('rollup_hooks_time').on('rollup_hooks').columns(['span', 'bucket']).execute()
  // The chart's shadow marks read only the few rows with would-be denials.
  await sql`create index rollup_hooks_shadow on rollup_hooks (span, bucket) where shadow_deny > 0`.execute(db)
  await db.schema
    .createTable('rollup_state')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute()
}

/** Folds the whole history: hour and day rows of every row, minute rows of the recent ones. */
async function backfill(db: Kysely<unknown>, minutesSince: number): Promise<void> {
  for (const span of ROLLUP_SPANS) {
    const since = String(span === MINUTE_MS ? minutesSince : 0)
    for (const statement of decisionFoldSql(span, '1 = 1', since)) await sql.raw(statement).execute(db)
    await sql.raw(hookFoldSql(span, '1 = 1', since)).execute(db)
  }
}

/**
 * 0014: the rollup tables, backfilled from the recorded decisions and executions; on
 * SQLite the fold marks start after the rows backfilled.
 */
export function rollupsMigration(dialect: 'sqlite' | 'postgres', now: () => number = Date.now): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await createTables(db)
      await backfill(db, now() - MINUTE_RETENTION_MS)
      if (dialect === 'sqlite') {
        await sql`insert into rollup_state (key, value)
          select 'decisions', coalesce(max(rowid), 0) from decisions
          union all select 'executions', coalesce(max(id), 0) from hook_executions`.execute(db)
      }
    },
  }
}
