// The PostgreSQL audit writer: a batch's decisions and hook executions each go as one
// INSERT … SELECT FROM unnest(...), one array parameter per column whatever the batch size.
// Each column's array literal is written by one JSON.stringify where that gives PostgreSQL's
// own syntax (no string needs more than its quotes and backslashes escaped), which costs a
// fraction of the driver's escaping value by value; other columns go through the driver,
// any NUL (which PostgreSQL refuses in text) replaced by U+FFFD so that one value cannot
// fail its batch on every retry. Rows already written are skipped, so a retried batch never
// doubles a row, and the overview's pending rollup counts (rollups-roll.ts) count only the
// rows written.

import { CompiledQuery, type Kysely } from 'kysely'
import {
  type AuditRowWriter,
  DECISION_FIELDS,
  decisionTuple,
  EXECUTION_FIELDS,
  executionTuple,
  type Field,
  linkHooks,
  storedHookCandidates,
} from './audit-write.js'
import { newCounter, type PostgresFolding } from './rollups-roll.js'
import { POSTGRES_ROLLUP_SQL, storableText } from './rollups-write.js'
import type { Database } from './schema.js'

/** The PostgreSQL type of each decision column, in DECISION_FIELDS order. */
const DECISION_TYPES =
  'text,text,text,text,text,text,text,text,text,text,text,float8,int4,text,text,text,text,int8'.split(',')
/** The PostgreSQL type of each execution column, in EXECUTION_FIELDS order. */
const EXECUTION_TYPES =
  'text,text,text,text,text,text,int4,text,text,text,float8,text,text,text,text,text,text,int4,int8,text,text'.split(
    ',',
  )

function unnestInsert(
  table: string,
  fields: readonly Field[],
  types: readonly string[],
  conflict: string,
): string {
  const columns = fields.map(([column]) => column).join(', ')
  const params = types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')
  return `insert into ${table} (${columns}) select * from unnest(${params}) on conflict (${conflict}) do nothing returning ${conflict}`
}

const PG_DECISIONS = unnestInsert('decisions', DECISION_FIELDS, DECISION_TYPES, 'id')
const PG_EXECUTIONS = unnestInsert('hook_executions', EXECUTION_FIELDS, EXECUTION_TYPES, 'dedup_key')

/**
 * A JSON escape other than \" and \\ (a control character, a lone surrogate, NUL): a backslash
 * after an even run of them, followed by anything but a quote or a backslash.
 */
const OTHER_ESCAPE = /(?<!\\)(?:\\\\)*\\[^"\\]/
/** What such an escape needs to appear at all (a quick look before the exact one). */
const MAYBE_OTHER_ESCAPE = /\\[bfnrtu]/

/**
 * One column's values as a PostgreSQL array literal, or the values for the driver to encode.
 * JSON's `["a\"b",null,1.5]` is PostgreSQL's `{"a\"b",null,1.5}` as long as no string needed
 * an escape PostgreSQL reads otherwise (`\n` is "n" to it): those columns, and numbers JSON
 * cannot write (NaN, ±Infinity), are left to the driver.
 */
export function arrayLiteral(values: readonly unknown[]): string | unknown[] {
  const json = JSON.stringify(values)
  if (!MAYBE_OTHER_ESCAPE.test(json) || !OTHER_ESCAPE.test(json)) {
    let lossless = true
    for (const value of values) {
      if (typeof value === 'number' && !Number.isFinite(value)) lossless = false
    }
    if (lossless) return `{${json.slice(1, -1)}}`
  }
  return values.map((value) => (typeof value === 'string' ? storableText(value) : value))
}

/** Row tuples as one array parameter per column. */
export function columnParams(rows: readonly unknown[][], width: number): (string | unknown[])[] {
  const out = new Array<string | unknown[]>(width)
  const column = new Array<unknown>(rows.length)
  for (let c = 0; c < width; c++) {
    for (let r = 0; r < rows.length; r++) column[r] = (rows[r] as unknown[])[c]
    out[c] = arrayLiteral(column.slice())
  }
  return out
}

/**
 * The PostgreSQL writer: one INSERT … unnest per table, then the counts of the rows written
 * as one pending row of the overview's rollups, in one transaction; `folding` is told of
 * each batch written. `rollups: false` leaves the rollups out (to measure what they cost).
 */
export function postgresAuditWriter(
  db: Kysely<Database>,
  options: { rollups?: boolean; folding?: PostgresFolding } = {},
): AuditRowWriter {
  const counting = options.rollups !== false
  return async (batch) => {
    await db.transaction().execute(async (trx) => {
      const written = new Set<unknown>()
      if (batch.decisions.length > 0) {
        const rows = batch.decisions.map(decisionTuple)
        const result = await trx.executeQuery<{ id: string }>(
          CompiledQuery.raw(PG_DECISIONS, columnParams(rows, DECISION_TYPES.length)),
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
        const rows = batch.executions.map((row, i) => executionTuple(row, links[i] ?? null))
        const result = await trx.executeQuery<{ dedup_key: string }>(
          CompiledQuery.raw(PG_EXECUTIONS, columnParams(rows, EXECUTION_TYPES.length)),
        )
        for (const r of result.rows) written.add(r.dedup_key)
      }
      if (!counting || written.size === 0) return
      const counter = newCounter()
      for (const row of batch.decisions) if (written.has(row.id)) counter.decision(row, 1)
      for (const row of batch.executions) if (written.has(row.dedupKey)) counter.execution(row)
      const counts = counter.take()
      if (counts) {
        await trx.executeQuery(CompiledQuery.raw(POSTGRES_ROLLUP_SQL.insertPending, [JSON.stringify(counts)]))
      }
    })
    options.folding?.written()
  }
}
