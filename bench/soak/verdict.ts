// The soak's end: the client's log of answered decision ids compared with the audit rows in
// the store (lost, refused, duplicated), and the table of every check with PASS or FAIL.

import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'

/** One row of the final table. */
export interface Row {
  check: string
  result: 'PASS' | 'FAIL' | 'INFO'
  detail: string
}

/** What the store holds. */
export interface StoredAudit {
  ids: Set<string>
  /** Executions stored twice for the same decision and position. */
  duplicateExecutions: number
}

/** Reads every decision id and counts duplicated execution rows. */
export async function readStore(backend: 'sqlite' | 'postgres', location: string): Promise<StoredAudit> {
  const duplicates =
    'SELECT count(*) AS n FROM (SELECT decision_id, position FROM hook_executions GROUP BY decision_id, position HAVING count(*) > 1) AS d'
  if (backend === 'sqlite') {
    const db = new BetterSqlite3(location, { readonly: true })
    try {
      const ids = new Set<string>()
      for (const row of db.prepare('SELECT id FROM decisions').iterate() as Iterable<{ id: string }>) {
        ids.add(row.id)
      }
      const dup = db.prepare(duplicates).get() as { n: number }
      return { ids, duplicateExecutions: Number(dup.n) }
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: location })
  await client.connect()
  try {
    const rows = await client.query<{ id: string }>('SELECT id FROM decisions')
    const dup = await client.query<{ n: string }>(duplicates)
    return { ids: new Set(rows.rows.map((r) => r.id)), duplicateExecutions: Number(dup.rows[0]?.n ?? 0) }
  } finally {
    await client.end()
  }
}

/** How the answered decisions compare with the store. */
export interface AuditComparison {
  answered: number
  stored: number
  /** Denied because their record could not be written: never in the store, by design. */
  refused: number
  /** Answered, not refused, not stored, within the documented window before a kill -9 (async). */
  inWindow: number
  /** Answered, not refused, not stored, and not excused. */
  lost: number
  lostSample: string[]
  /** Stored rows no answer names (notifications, answers cut off by a kill). */
  unanswered: number
}

/**
 * Compares the client's log with the store. In async mode a decision answered at most
 * `windowMs` before a kill -9 may be missing; in sync mode none may.
 */
export function compareAudit(
  answered: Map<string, number>,
  refused: Set<string>,
  stored: Set<string>,
  mode: 'sync' | 'async',
  kills: number[],
  windowMs: number,
): AuditComparison {
  const result: AuditComparison = {
    answered: answered.size,
    stored: stored.size,
    refused: 0,
    inWindow: 0,
    lost: 0,
    lostSample: [],
    unanswered: 0,
  }
  for (const [id, at] of answered) {
    if (stored.has(id)) continue
    if (refused.has(id)) {
      result.refused++
      continue
    }
    const killAfter = kills.find((k) => k >= at)
    if (mode === 'async' && killAfter !== undefined && killAfter - at <= windowMs) {
      result.inWindow++
      continue
    }
    result.lost++
    if (result.lostSample.length < 5) {
      result.lostSample.push(
        `${id} (answered ${killAfter === undefined ? 'with no kill after' : `${killAfter - at} ms before a kill`})`,
      )
    }
  }
  for (const id of stored) if (!answered.has(id)) result.unanswered++
  return result
}

/** Prints the table; returns whether every check passed. */
export function printTable(rows: Row[], write: (line: string) => void): boolean {
  const width = Math.max(...rows.map((r) => r.check.length), 5)
  write(`| ${'check'.padEnd(width)} | result | detail |`)
  write(`| ${'-'.repeat(width)} | ------ | ------ |`)
  for (const row of rows)
    write(`| ${row.check.padEnd(width)} | ${row.result.padEnd(6)} | ${row.detail.replaceAll('|', '/')} |`)
  const failed = rows.filter((r) => r.result === 'FAIL')
  write(
    failed.length === 0
      ? 'soak: every check passed'
      : `soak: MISS: ${failed.length} check(s) failed: ${failed.map((r) => r.check).join(', ')}`,
  )
  return failed.length === 0
}

/** A row for a value at the end that must stay within `tolerance` of its level after warm-up. */
export function steadyRow(
  check: string,
  baseline: number,
  end: number,
  tolerance: number,
  unit: (v: number) => string,
): Row {
  const limit = baseline * (1 + tolerance)
  const change = baseline > 0 ? ((end - baseline) / baseline) * 100 : 0
  return {
    check,
    result: baseline > 0 && end <= limit ? 'PASS' : 'FAIL',
    detail: `${unit(baseline)} after warm-up, ${unit(end)} at the end (${change >= 0 ? '+' : ''}${change.toFixed(1)}%, limit +${tolerance * 100}%)`,
  }
}
