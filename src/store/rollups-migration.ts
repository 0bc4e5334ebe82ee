// Migration 0014_rollups: the overview's rollup tables, filled from the decisions and hook
// executions already recorded so that the overview is right after an upgrade. Hour rows are
// backfilled for the whole history, minute rows for the last MINUTE_RETENTION_MS (the write
// path keeps both from then on, see rollups-write.ts).

import { type Kysely, type Migration, sql } from 'kysely'
import {
  HOUR_MS,
  LATENCY_BOUNDS_MS,
  LATENCY_COLUMNS,
  MINUTE_MS,
  MINUTE_RETENTION_MS,
} from './rollups-write.js'

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
}

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

async function backfill(db: Kysely<unknown>, span: number, since: number): Promise<void> {
  const bucket = `(created_at / ${span}) * ${span}`
  const outcomes = `count(*), ${count("decision = 'allow'")}, ${count("decision = 'deny'")}, ${count("decision = 'modify'")}, ${count("decision = 'ask'")}`
  const dims: [string, string, string][] = [
    ["''", "''", '1 = 1'],
    ["'tool'", 'tool', 'tool is not null'],
    ["'agent'", 'agent_id', 'agent_id is not null'],
    ["'session'", 'session_id', "session_id is not null and decision = 'deny'"],
  ]
  for (const [dim, item, where] of dims) {
    await sql
      .raw(
        `insert into rollup_decisions (span, dim, tenant, bucket, item, total, n_allow, n_deny, n_modify, n_ask)
         select ${span}, ${dim}, tenant, ${bucket}, ${item}, ${outcomes}
         from decisions where created_at >= ${since} and ${where}
         group by tenant, ${bucket}${item === "''" ? '' : `, ${item}`}`,
      )
      .execute(db)
  }
  const shadow = "coalesce(mode, '') = 'shadow'"
  await sql
    .raw(
      `insert into rollup_hooks (span, tenant, bucket, hook, runs, n_deny, n_ask, n_modify, errors, timeouts,
         shadow_runs, shadow_deny, ${LATENCY_COLUMNS.join(', ')})
       select ${span}, tenant, ${bucket}, hook_ref, count(*),
         ${count(`decision = 'deny' and not (${shadow})`)}, ${count(`decision = 'ask' and not (${shadow})`)},
         ${count(`decision = 'modify' and not (${shadow})`)},
         ${count("error_kind is not null and error_kind <> 'timeout'")}, ${count("error_kind = 'timeout'")},
         ${count(shadow)}, ${count(`${shadow} and decision = 'deny'`)}, ${latencySums()}
       from hook_executions where created_at >= ${since} and decision <> 'skipped'
       group by tenant, ${bucket}, hook_ref`,
    )
    .execute(db)
}

/** 0014: the rollup tables, backfilled from the recorded decisions and executions. */
export function rollupsMigration(now: () => number = Date.now): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await createTables(db)
      await backfill(db, HOUR_MS, 0)
      const recent = Math.floor(now() / HOUR_MS) * HOUR_MS - MINUTE_RETENTION_MS
      await backfill(db, MINUTE_MS, recent)
    },
  }
}
