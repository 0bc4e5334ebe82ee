// The audit hot path: writing a batch of decisions and hook executions in one transaction
// at close to the driver's own speed. SQLite runs cached prepared statements inside one
// synchronous transaction while holding the query layer's connection; PostgreSQL sends
// each table as one INSERT … SELECT FROM unnest(...) (one parameter per column, whatever
// the batch size). Both skip rows already written, so a retried batch never doubles a row.

import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type Kysely } from 'kysely'
import type { Database } from './schema.js'
import type { AuditBatch, DecisionRow, ExecutionRow } from './types.js'

/** Writes the decisions and executions of a batch (approvals go through the query layer). */
export type AuditRowWriter = (batch: AuditBatch) => Promise<void>

const DECISION_COLUMNS = [
  'id',
  'request_id',
  'tenant',
  'agent_id',
  'session_id',
  'event',
  'decision',
  'reason',
  'reason_code',
  'deciding_hooks',
  'policies',
  'duration_ms',
  'blocking',
  'input',
  'output',
  'trace_id',
  'created_at',
] as const

const EXECUTION_COLUMNS = [
  'dedup_key',
  'decision_id',
  'tenant',
  'hook_id',
  'hook_ref',
  'hook_name',
  'hook_version',
  'handler',
  'decision',
  'reason',
  'duration_ms',
  'error',
  'error_sealed',
  'error_kind',
  'skipped',
  'policy_id',
  'policy_version',
  'position',
  'created_at',
] as const

const DECISION_TYPES =
  'text,text,text,text,text,text,text,text,text,text,text,float8,int4,text,text,text,int8'
const EXECUTION_TYPES =
  'text,text,text,text,text,text,int4,text,text,text,float8,text,text,text,text,text,text,int4,int8'

/** The column values of a decision row, in DECISION_COLUMNS order. */
export function decisionTuple(row: DecisionRow): unknown[] {
  return [
    row.id,
    row.requestId ?? null,
    row.tenant,
    row.agentId ?? null,
    row.sessionId ?? null,
    row.event,
    row.decision,
    row.reason,
    JSON.stringify(row.reasonCode),
    JSON.stringify(row.decidingHooks),
    JSON.stringify(row.policies),
    row.durationMs,
    row.blocking ? 1 : 0,
    JSON.stringify(row.input),
    JSON.stringify(row.output),
    row.traceId ?? null,
    row.createdAt,
  ]
}

/** The column values of an execution row, in EXECUTION_COLUMNS order. */
export function executionTuple(row: ExecutionRow, hookId: string | null): unknown[] {
  return [
    row.dedupKey,
    row.decisionId,
    row.tenant,
    hookId,
    row.hookRef,
    row.hookName,
    row.hookVersion,
    row.handler,
    row.decision,
    row.reason ?? null,
    row.durationMs,
    row.error ?? null,
    row.errorSealed ?? null,
    row.errorKind ?? null,
    row.skipped ?? null,
    row.policyId ?? null,
    row.policyVersion ?? null,
    row.position,
    row.createdAt,
  ]
}

/** The stored hook an execution links to: the tenant's own hook first, else the global one. */
function linkHooks(executions: ExecutionRow[], stored: Set<string>): (string | null)[] {
  return executions.map((e) =>
    stored.has(e.hookRef) ? e.hookRef : stored.has(e.hookName) ? e.hookName : null,
  )
}

function candidateIds(executions: ExecutionRow[]): string[] {
  const ids = new Set<string>()
  for (const e of executions) {
    ids.add(e.hookRef)
    ids.add(e.hookName)
  }
  return [...ids]
}

/** The SQLite writer: prepared statements, one synchronous transaction. */
export function sqliteAuditWriter(db: Kysely<Database>, database: BetterSqlite3.Database): AuditRowWriter {
  const insertDecision = database.prepare(
    `insert into decisions (${DECISION_COLUMNS.join(', ')}) values (${DECISION_COLUMNS.map(() => '?').join(', ')}) on conflict (id) do nothing`,
  )
  const insertExecution = database.prepare(
    `insert into hook_executions (${EXECUTION_COLUMNS.join(', ')}) values (${EXECUTION_COLUMNS.map(() => '?').join(', ')}) on conflict (dedup_key) do nothing`,
  )
  const findHook = database.prepare('select 1 from hooks where id = ?').pluck()
  const write = database.transaction((batch: AuditBatch) => {
    for (const row of batch.decisions) insertDecision.run(decisionTuple(row))
    const stored = new Set(candidateIds(batch.executions).filter((id) => findHook.get(id) !== undefined))
    const links = linkHooks(batch.executions, stored)
    batch.executions.forEach((row, i) => {
      insertExecution.run(executionTuple(row, links[i] ?? null))
    })
  })
  return (batch) => db.connection().execute(async () => write(batch))
}

function columnsOf(rows: unknown[][], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => new Array(rows.length))
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as unknown[]
    for (let c = 0; c < width; c++) (columns[c] as unknown[])[r] = row[c]
  }
  return columns
}

function unnestInsert(table: string, columns: readonly string[], types: string, conflict: string): string {
  const params = types
    .split(',')
    .map((type, i) => `$${i + 1}::${type}[]`)
    .join(', ')
  return `insert into ${table} (${columns.join(', ')}) select * from unnest(${params}) on conflict (${conflict}) do nothing`
}

const PG_DECISIONS = unnestInsert('decisions', DECISION_COLUMNS, DECISION_TYPES, 'id')
const PG_EXECUTIONS = unnestInsert('hook_executions', EXECUTION_COLUMNS, EXECUTION_TYPES, 'dedup_key')

/** The PostgreSQL writer: one INSERT … unnest per table, in one transaction. */
export function postgresAuditWriter(db: Kysely<Database>): AuditRowWriter {
  return (batch) =>
    db.transaction().execute(async (trx) => {
      if (batch.decisions.length > 0) {
        const rows = batch.decisions.map(decisionTuple)
        await trx.executeQuery(CompiledQuery.raw(PG_DECISIONS, columnsOf(rows, DECISION_COLUMNS.length)))
      }
      if (batch.executions.length > 0) {
        const found = await trx.executeQuery<{ id: string }>(
          CompiledQuery.raw('select id from hooks where id = any($1::text[])', [
            candidateIds(batch.executions),
          ]),
        )
        const links = linkHooks(batch.executions, new Set(found.rows.map((r) => r.id)))
        const rows = batch.executions.map((row, i) => executionTuple(row, links[i] ?? null))
        await trx.executeQuery(CompiledQuery.raw(PG_EXECUTIONS, columnsOf(rows, EXECUTION_COLUMNS.length)))
      }
    })
}
