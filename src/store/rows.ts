// Small helpers the repos share: JSON columns, page sizes, and splitting multi-row inserts
// under the databases' limits on bound parameters.

/** Bound parameters per statement, under SQLite's and PostgreSQL's limits. */
const MAX_PARAMS = 30_000

/** Splits rows into parts whose multi-row INSERT stays under the bound-parameter limit. */
export function chunks<T>(rows: T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMS / columns))
  if (rows.length <= size) return [rows]
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/** A value as JSON text, null when absent. */
export function jsonOrNull(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value)
}

/** A page size: `limit` floored and clamped to 1..max, `fallback` when absent. */
export function pageSize(limit: number | undefined, fallback: number, max: number): number {
  const n = limit === undefined || !Number.isFinite(limit) ? fallback : Math.floor(limit)
  return Math.min(Math.max(1, n), max)
}
