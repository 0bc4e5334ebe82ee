// The audit hot path: writing a batch of decisions and hook executions in one transaction
// at close to the driver's own speed. The columns of both tables are named here once; SQLite
// runs cached prepared statements inside one synchronous transaction while holding the query
// layer's connection (PostgreSQL's writer is audit-write-postgres.ts). Both skip rows already
// written, so a retried batch never doubles a row, and store the counts of the rows they
// wrote for the overview's rollups (rollups-roll.ts).

import type BetterSqlite3 from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { FOLD_INTERVAL_MS, FOLD_PENDING_LIMIT, newCounter } from './rollups-roll.js'
import { SQLITE_ROLLUP_SQL } from './rollups-write.js'
import type { Database } from './schema.js'
import type { AuditBatch, DecisionRow, ExecutionRow } from './types.js'

/** Writes the decisions and executions of a batch (approvals go through the query layer). */
export type AuditRowWriter = (batch: AuditBatch) => Promise<void>

/**
 * How a row property becomes a column value: as is (absent = NULL), JSON text, JSON text
 * or NULL when absent (`json?`), or 0/1.
 */
export type FieldKind = 'value' | 'json' | 'json?' | 'flag'

/** One column: its name, the row property it is read from, and how. */
export type Field = readonly [column: string, property: string, kind: FieldKind]

/** The columns of a decision row, in tuple order. */
export const DECISION_FIELDS: readonly Field[] = [
  ['id', 'id', 'value'],
  ['request_id', 'requestId', 'value'],
  ['tenant', 'tenant', 'value'],
  ['agent_id', 'agentId', 'value'],
  ['session_id', 'sessionId', 'value'],
  ['event', 'event', 'value'],
  ['decision', 'decision', 'value'],
  ['reason', 'reason', 'value'],
  ['reason_code', 'reasonCode', 'json'],
  ['deciding_hooks', 'decidingHooks', 'json'],
  ['policies', 'policies', 'json'],
  ['duration_ms', 'durationMs', 'value'],
  ['blocking', 'blocking', 'flag'],
  ['input', 'input', 'json'],
  ['output', 'output', 'json'],
  ['trace_id', 'traceId', 'value'],
  ['tool', 'tool', 'value'],
  ['created_at', 'createdAt', 'value'],
]

/** The columns of a hook execution row, in tuple order (`hook_id` is filled in by the writer). */
export const EXECUTION_FIELDS: readonly Field[] = [
  ['dedup_key', 'dedupKey', 'value'],
  ['decision_id', 'decisionId', 'value'],
  ['tenant', 'tenant', 'value'],
  ['hook_id', 'hookId', 'value'],
  ['hook_ref', 'hookRef', 'value'],
  ['hook_name', 'hookName', 'value'],
  ['hook_version', 'hookVersion', 'value'],
  ['handler', 'handler', 'value'],
  ['decision', 'decision', 'value'],
  ['reason', 'reason', 'value'],
  ['duration_ms', 'durationMs', 'value'],
  ['error', 'error', 'value'],
  ['error_sealed', 'errorSealed', 'value'],
  ['error_kind', 'errorKind', 'value'],
  ['skipped', 'skipped', 'value'],
  ['policy_id', 'policyId', 'value'],
  ['policy_version', 'policyVersion', 'value'],
  ['position', 'position', 'value'],
  ['created_at', 'createdAt', 'value'],
  ['metadata', 'metadata', 'json?'],
  ['mode', 'mode', 'value'],
]

const HOOK_ID = EXECUTION_FIELDS.findIndex(([column]) => column === 'hook_id')

/** One property as its column value. */
function columnValue(kind: FieldKind, value: unknown): unknown {
  switch (kind) {
    case 'json':
      return JSON.stringify(value)
    case 'json?':
      return value === undefined ? null : JSON.stringify(value)
    case 'flag':
      return value ? 1 : 0
    default:
      return value ?? null
  }
}

/** A row's column values in field order. */
export function columnValues(fields: readonly Field[], row: object): unknown[] {
  const record = row as Record<string, unknown>
  const out = new Array<unknown>(fields.length)
  for (let i = 0; i < fields.length; i++) {
    const [, property, kind] = fields[i] as Field
    out[i] = columnValue(kind, record[property])
  }
  return out
}

/** The column values of a decision row, in DECISION_FIELDS order. */
export function decisionTuple(row: DecisionRow): unknown[] {
  return columnValues(DECISION_FIELDS, row)
}

/** The column values of an execution row, in EXECUTION_FIELDS order. */
export function executionTuple(row: ExecutionRow, hookId: string | null): unknown[] {
  const out = columnValues(EXECUTION_FIELDS, row)
  out[HOOK_ID] = hookId
  return out
}

/** The stored hook each execution links to: the tenant's own hook first, else the global one. */
export function linkHooks(executions: ExecutionRow[], stored: Set<string>): (string | null)[] {
  return executions.map((e) =>
    stored.has(e.hookRef) ? e.hookRef : stored.has(e.hookName) ? e.hookName : null,
  )
}

/** The hook ids the executions may link to (their refs and names), to look up in one query. */
export function storedHookCandidates(executions: ExecutionRow[]): string[] {
  const ids = new Set<string>()
  for (const e of executions) {
    ids.add(e.hookRef)
    ids.add(e.hookName)
  }
  return [...ids]
}

/** A one-row SQLite INSERT that skips a row already written. */
export function sqliteInsert(table: string, fields: readonly Field[], conflict: string): string {
  const columns = fields.map(([column]) => column)
  return `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')}) on conflict (${conflict}) do nothing`
}

/**
 * The SQLite writer on the calling thread: prepared statements, one synchronous
 * transaction, the rows written counted as one pending row of the overview's rollups
 * (folded by `fold` every few seconds, and by the store before an overview). Used where
 * no second connection can reach the data (`:memory:`); a file database writes on its own
 * thread (audit-thread.ts).
 */
export function sqliteAuditWriter(
  db: Kysely<Database>,
  database: BetterSqlite3.Database,
  fold: () => void,
): AuditRowWriter {
  const insertDecision = database.prepare(sqliteInsert('decisions', DECISION_FIELDS, 'id'))
  const insertExecution = database.prepare(sqliteInsert('hook_executions', EXECUTION_FIELDS, 'dedup_key'))
  const insertPending = database.prepare(SQLITE_ROLLUP_SQL.insertPending)
  const findHook = database.prepare('select 1 from hooks where id = ?').pluck()
  const counter = newCounter()
  let lastFold = Date.now()
  let pending = 0
  const write = database.transaction((batch: AuditBatch) => {
    for (const row of batch.decisions) {
      if (insertDecision.run(decisionTuple(row)).changes > 0) counter.decision(row, 1)
    }
    const stored = new Set(
      storedHookCandidates(batch.executions).filter((id) => findHook.get(id) !== undefined),
    )
    const links = linkHooks(batch.executions, stored)
    batch.executions.forEach((row, i) => {
      if (insertExecution.run(executionTuple(row, links[i] ?? null)).changes > 0) counter.execution(row)
    })
    const counts = counter.take()
    if (counts) insertPending.run(JSON.stringify(counts))
  })
  return (batch) =>
    db.connection().execute(async () => {
      try {
        write(batch)
      } catch (error) {
        counter.take()
        throw error
      }
      pending++
      if (pending >= FOLD_PENDING_LIMIT || Date.now() - lastFold >= FOLD_INTERVAL_MS) {
        lastFold = Date.now()
        pending = 0
        try {
          fold()
        } catch {
          // left pending: the next fold (or the overview's) takes it
        }
      }
    })
}
