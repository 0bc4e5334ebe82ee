// The PostgreSQL audit writer: a batch's decisions and hook executions each go as one
// INSERT … SELECT FROM json_to_recordset($1), the rows sent as one JSON text built by one
// JSON.stringify (no per-value array escaping in the driver). Rows already written are
// skipped, so a retried batch never doubles a row, and the overview's rollups
// (rollups-write.ts) count only the rows this transaction wrote.

import { CompiledQuery, type Kysely } from 'kysely'
import {
  type AuditRowWriter,
  DECISION_FIELDS,
  EXECUTION_FIELDS,
  type Field,
  type FieldKind,
  linkHooks,
  storedHookCandidates,
} from './audit-write.js'
import { postgresRollupWriter } from './rollups-write.js'
import type { Database } from './schema.js'
import type { DecisionRow, ExecutionRow } from './types.js'

/** The PostgreSQL type of each decision column, in DECISION_FIELDS order. */
const DECISION_TYPES =
  'text,text,text,text,text,text,text,text,text,text,text,float8,int4,text,text,text,text,int8'.split(',')
/** The PostgreSQL type of each execution column, in EXECUTION_FIELDS order. */
const EXECUTION_TYPES =
  'text,text,text,text,text,text,int4,text,text,text,float8,text,text,text,text,text,text,int4,int8,text,text'.split(
    ',',
  )

const isJson = (kind: FieldKind) => kind === 'json' || kind === 'json?'

/**
 * The INSERT of one table from a JSON array of objects keyed `c0`, `c1`, … in field order.
 * JSON columns arrive as json values and are stored as their text, exactly as sent.
 */
export function recordsetInsert(
  table: string,
  fields: readonly Field[],
  types: readonly string[],
  conflict: string,
): string {
  const columns = fields.map(([column]) => column).join(', ')
  const values = fields.map(([, , kind], i) => (isJson(kind) ? `c${i}::text` : `c${i}`)).join(', ')
  const shape = fields.map(([, , kind], i) => `c${i} ${isJson(kind) ? 'json' : types[i]}`).join(', ')
  return `insert into ${table} (${columns}) select ${values} from json_to_recordset($1::json) as r(${shape}) on conflict (${conflict}) do nothing returning ${conflict}`
}

const PG_DECISIONS = recordsetInsert('decisions', DECISION_FIELDS, DECISION_TYPES, 'id')
const PG_EXECUTIONS = recordsetInsert('hook_executions', EXECUTION_FIELDS, EXECUTION_TYPES, 'dedup_key')

/** The JSON keys of the fields, `c0` … in field order. */
const keys = (fields: readonly Field[]) => fields.map((_, i) => `c${i}`)
const DECISION_KEYS = keys(DECISION_FIELDS)
const EXECUTION_KEYS = keys(EXECUTION_FIELDS)
const HOOK_ID = EXECUTION_FIELDS.findIndex(([column]) => column === 'hook_id')

/**
 * One row as the object the recordset reads. JSON fields stay values (the batch is
 * stringified once); flags become 0/1; a number that JSON cannot carry (NaN, ±Infinity)
 * becomes 0 rather than failing the whole batch on a NOT NULL column.
 */
function record(fields: readonly Field[], names: readonly string[], row: object): Record<string, unknown> {
  const source = row as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (let i = 0; i < fields.length; i++) {
    const [, property, kind] = fields[i] as Field
    const value = source[property]
    const name = names[i] as string
    if (kind === 'flag') out[name] = value ? 1 : 0
    else if (typeof value === 'number' && !Number.isFinite(value)) out[name] = 0
    else out[name] = value ?? null
  }
  return out
}

/** A lone surrogate or NUL as JSON.stringify escapes it (pairs are written as they are). */
const UNSTORABLE = /(\\+)u(?:0000|d[89a-f][0-9a-f]{2})/g

/**
 * The batch's JSON text with what PostgreSQL refuses in text (NUL, a lone UTF-16 surrogate)
 * replaced by U+FFFD, as the driver does with a lone surrogate: one such value must not
 * make the whole batch fail again on every retry.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value)
  if (!text.includes('\\u')) return text
  return text.replace(UNSTORABLE, (match: string, slashes: string) =>
    // An even run of backslashes is escaped backslashes followed by a literal "u…".
    slashes.length % 2 === 0 ? match : `${slashes}ufffd`,
  )
}

/** The decisions of a batch as the recordset's JSON text. */
export function decisionsJson(rows: readonly DecisionRow[]): string {
  return storableJson(rows.map((row) => record(DECISION_FIELDS, DECISION_KEYS, row)))
}

/** The executions of a batch, each linked to its stored hook (or null), as the recordset's JSON text. */
export function executionsJson(rows: readonly ExecutionRow[], hookIds: readonly (string | null)[]): string {
  const key = EXECUTION_KEYS[HOOK_ID] as string
  return storableJson(
    rows.map((row, i) => {
      const out = record(EXECUTION_FIELDS, EXECUTION_KEYS, row)
      out[key] = hookIds[i] ?? null
      return out
    }),
  )
}

/**
 * The PostgreSQL writer: one INSERT per table, in one transaction, then the rollups of the
 * rows written. `rollups: false` leaves the overview's rollups out (to measure what they cost).
 */
export function postgresAuditWriter(
  db: Kysely<Database>,
  options: { rollups?: boolean } = {},
): AuditRowWriter {
  const rollUp = options.rollups === false ? async () => {} : postgresRollupWriter()
  return (batch) =>
    db.transaction().execute(async (trx) => {
      const written = new Set<unknown>()
      if (batch.decisions.length > 0) {
        const result = await trx.executeQuery<{ id: string }>(
          CompiledQuery.raw(PG_DECISIONS, [decisionsJson(batch.decisions)]),
        )
        for (const r of result.rows) written.add(r.id)
      }
      if (batch.executions.length > 0) {
        const found = await trx.executeQuery<{ id: string }>(
          CompiledQuery.raw('select id from hooks where id = any($1::text[])', [
            storedHookCandidates(batch.executions),
          ]),
        )
        const links = linkHooks(batch.executions, new Set(found.rows.map((r) => r.id)))
        const result = await trx.executeQuery<{ dedup_key: string }>(
          CompiledQuery.raw(PG_EXECUTIONS, [executionsJson(batch.executions, links)]),
        )
        for (const r of result.rows) written.add(r.dedup_key)
      }
      await rollUp(trx, {
        decisions: batch.decisions.filter((row) => written.has(row.id)),
        executions: batch.executions.filter((row) => written.has(row.dedupKey)),
      })
    })
}
