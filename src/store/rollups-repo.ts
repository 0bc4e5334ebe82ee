// The overview's queries over the rollups: decisions over time by outcome (with the shadow
// hooks' would-be denials), the tools, agents and sessions with most denials, and each
// hook's runs, verdicts, errors, timeouts and latency percentiles (from the fixed-bucket
// histogram). A window up to MINUTE_WINDOW_MS that is still within the minute rows' retention
// reads minute rows; any other reads hour rows for the time series (minute rows for the
// hours not compacted yet), and day rows for the whole compacted days in it plus hour rows
// for the hours on either side for the lists, so a query reads a few thousand rows per
// dimension and tenant whatever the size of the history.

import { type Kysely, type RawBuilder, sql } from 'kysely'
import { StoreError } from './errors.js'
import {
  DAY_MS,
  HOUR_MS,
  LATENCY_BOUNDS_MS,
  LATENCY_COLUMNS,
  MINUTE_MS,
  MINUTE_RETENTION_MS,
} from './rollups-write.js'
import type { Database } from './schema.js'

/** Longest window read from minute rows. */
export const MINUTE_WINDOW_MS = 6 * HOUR_MS
/** Most points of the time series. */
export const MAX_OVERVIEW_POINTS = 120
/** Rows of each top list. */
export const OVERVIEW_TOP = 10

/** What {@link overview} is asked. */
export interface OverviewQuery {
  /** Start of the window (epoch ms, inclusive; rounded down to the rollups' grain). */
  since: number
  /** End of the window (epoch ms, exclusive; rounded up to the rollups' grain). */
  until: number
  /** Only this tenant ("" = events without a tenant); omitted = every tenant. */
  tenant?: string
}

/** Decisions counted by outcome. */
export interface OutcomeCounts {
  total: number
  allow: number
  deny: number
  modify: number
  ask: number
  /** Denials shadow hooks would have made (recorded, not applied). */
  shadowDeny: number
}

/** One point of the time series: the counts of [start, end). */
export interface OverviewPoint extends OutcomeCounts {
  start: number
  end: number
}

/** A tool, agent or session with its counts. */
export interface OverviewItem {
  name: string
  total: number
  deny: number
  ask: number
}

/** A hook's activity within the window. */
export interface OverviewHook {
  hook: string
  runs: number
  deny: number
  ask: number
  modify: number
  errors: number
  timeouts: number
  shadowRuns: number
  shadowDeny: number
  /** Execution time percentiles (ms), interpolated within the histogram's buckets. */
  p50Ms: number
  p99Ms: number
}

/** The overview of a window. */
export interface Overview {
  since: number
  until: number
  /** The width of the rollup rows read (60 000 or 3 600 000 ms). */
  grainMs: number
  /** The width of each point (ms). */
  stepMs: number
  totals: OutcomeCounts
  series: OverviewPoint[]
  tools: OverviewItem[]
  agents: OverviewItem[]
  sessions: OverviewItem[]
  hooks: OverviewHook[]
}

/**
 * The `q`-quantile of a histogram (counts per bucket of LATENCY_BOUNDS_MS, the last one
 * open-ended), interpolated linearly within its bucket; 0 when empty.
 */
export function histogramQuantile(counts: readonly number[], q: number): number {
  const total = counts.reduce((a, b) => a + b, 0)
  if (total === 0) return 0
  const rank = q * total
  let seen = 0
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i] ?? 0
    if (n > 0 && seen + n >= rank) {
      const low = i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] as number)
      const high = LATENCY_BOUNDS_MS[i]
      if (high === undefined) return low
      return low + ((high - low) * Math.max(0, rank - seen)) / n
    }
    seen += n
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] as number
}

const num = (v: unknown) => Number(v ?? 0)

function tenantFilter(tenant: string | undefined): RawBuilder<unknown> {
  return tenant === undefined ? sql`` : sql` and tenant = ${tenant}`
}

interface Window {
  since: number
  until: number
  grain: number
  step: number
}

/** The grain, the aligned window and the width of the points. */
function windowOf(query: OverviewQuery, now: number): Window {
  const { since, until } = query
  if (!Number.isSafeInteger(since) || !Number.isSafeInteger(until) || since < 0 || until <= since) {
    throw new StoreError('invalid-query', 'the overview window needs whole-ms 0 <= since < until')
  }
  const recent = now - MINUTE_RETENTION_MS + HOUR_MS
  const grain = until - since <= MINUTE_WINDOW_MS && since >= recent ? MINUTE_MS : HOUR_MS
  const start = since - (since % grain)
  const end = Math.ceil(until / grain) * grain
  const step = grain * Math.max(1, Math.ceil((end - start) / grain / MAX_OVERVIEW_POINTS))
  return { since: start, until: end, grain, step }
}

/** Where compaction stands (rollups-roll.ts); Infinity when every grain is written at once. */
interface Marks {
  hours: number
  days: number
}

async function marksOf(db: Kysely<Database>): Promise<Marks> {
  const rows = await sql<{ key: string; value: unknown }>`select key, value from rollup_state
    where key in ('hours', 'days')`.execute(db)
  const mark = (key: string) => {
    const row = rows.rows.find((r) => r.key === key)
    return row ? Number(row.value) : Number.POSITIVE_INFINITY
  }
  return { hours: mark('hours'), days: mark('days') }
}

type Piece = [span: number, since: number, until: number]

/** Hour rows for the compacted hours of [since, until), minute rows for the rest. */
function hourPieces(since: number, until: number, marks: Marks): Piece[] {
  const cut = Math.min(Math.max(marks.hours, since), until)
  return [
    [HOUR_MS, since, cut],
    [MINUTE_MS, cut, until],
  ]
}

/**
 * The rollup rows that cover a window exactly: minute rows, or hour rows (minute rows for
 * the hours not compacted yet), and for a window with whole compacted days in it, day rows
 * for those days.
 */
function pieces(w: Window, marks: Marks, days = true): Piece[] {
  if (w.grain === MINUTE_MS) return [[MINUTE_MS, w.since, w.until]]
  const firstDay = Math.ceil(w.since / DAY_MS) * DAY_MS
  const lastDay = Math.min(Math.floor(w.until / DAY_MS) * DAY_MS, Math.max(firstDay, marks.days))
  const all: Piece[] =
    !days || lastDay <= firstDay
      ? hourPieces(w.since, w.until, marks)
      : [
          ...hourPieces(w.since, firstDay, marks),
          [DAY_MS, firstDay, lastDay],
          ...hourPieces(lastDay, w.until, marks),
        ]
  return all.filter(([, since, until]) => until > since)
}

/** One select per piece, joined by union all. */
function pieceSelects(parts: Piece[], select: RawBuilder<unknown>, from: string, where: RawBuilder<unknown>) {
  return sql.join(
    parts.map(
      ([span, since, until]) => sql`select ${select} from ${sql.table(from)}
        where span = ${span}${where} and bucket >= ${since} and bucket < ${until}`,
    ),
    sql` union all `,
  )
}

/**
 * Sums of `columns` per `key` over the pieces of a window (each piece one indexed range),
 * added up in SQL; with `rank`, only the OVERVIEW_TOP keys of highest rank above 0.
 */
async function summed(
  db: Kysely<Database>,
  w: Window,
  marks: Marks,
  from: 'rollup_decisions' | 'rollup_hooks',
  key: 'item' | 'hook',
  columns: readonly string[],
  where: RawBuilder<unknown>,
  rank?: string,
): Promise<Map<string, number[]>> {
  const parts = pieces(w, marks)
  const out = new Map<string, number[]>()
  if (parts.length === 0) return out
  const select = sql`${sql.ref(key)} as k, ${sql.raw(columns.join(', '))}`
  const sums = sql.raw(columns.map((c) => `sum(${c}) as ${c}`).join(', '))
  const top = rank
    ? sql` having ${sql.raw(rank)} > 0 order by ${sql.raw(rank)} desc, k limit ${OVERVIEW_TOP}`
    : sql``
  const rows = await sql<
    Record<string, unknown>
  >`select k, ${sums} from (${pieceSelects(parts, select, from, where)}) as pieces
    group by k${top}`.execute(db)
  for (const row of rows.rows)
    out.set(
      String(row.k),
      columns.map((c) => num(row[c])),
    )
  return out
}

async function topItems(
  db: Kysely<Database>,
  w: Window,
  marks: Marks,
  tenant: string | undefined,
  dim: string,
  order: 'deny' | 'deny+ask',
): Promise<OverviewItem[]> {
  const rank = order === 'deny' ? 'sum(n_deny)' : 'sum(n_deny) + sum(n_ask)'
  const where = sql` and dim = ${dim}${tenantFilter(tenant)}`
  const sums = await summed(
    db,
    w,
    marks,
    'rollup_decisions',
    'item',
    ['total', 'n_deny', 'n_ask'],
    where,
    rank,
  )
  const items = [...sums].map(([name, [total = 0, deny = 0, ask = 0]]) => ({ name, total, deny, ask }))
  const score = (i: OverviewItem) => i.deny + (order === 'deny' ? 0 : i.ask)
  return items.sort((a, b) => score(b) - score(a) || (a.name < b.name ? -1 : 1))
}

async function series(
  db: Kysely<Database>,
  w: Window,
  marks: Marks,
  tenant: string | undefined,
): Promise<OverviewPoint[]> {
  const points: OverviewPoint[] = []
  for (let start = w.since; start < w.until; start += w.step) {
    points.push({
      start,
      end: Math.min(w.until, start + w.step),
      total: 0,
      allow: 0,
      deny: 0,
      modify: 0,
      ask: 0,
      shadowDeny: 0,
    })
  }
  const at = (bucket: unknown) => points[Math.floor((num(bucket) - w.since) / w.step)]
  const parts = pieces(w, marks, false)
  if (parts.length === 0) return points
  const tenantOnly = tenantFilter(tenant)
  const [decisions, shadow] = await Promise.all([
    sql<Record<string, unknown>>`
      select bucket, sum(total) as total, sum(n_allow) as allow, sum(n_deny) as deny,
        sum(n_modify) as modify, sum(n_ask) as ask
      from (${pieceSelects(parts, sql`bucket, total, n_allow, n_deny, n_modify, n_ask`, 'rollup_decisions', sql` and dim = ''${tenantOnly}`)}) as pieces
      group by bucket`.execute(db),
    sql<{ bucket: unknown; shadow: unknown }>`
      select bucket, sum(shadow_deny) as shadow
      from (${pieceSelects(parts, sql`bucket, shadow_deny`, 'rollup_hooks', sql` and shadow_deny > 0${tenantOnly}`)}) as pieces
      group by bucket`.execute(db),
  ])
  for (const row of decisions.rows) {
    const point = at(row.bucket)
    if (!point) continue
    point.total += num(row.total)
    point.allow += num(row.allow)
    point.deny += num(row.deny)
    point.modify += num(row.modify)
    point.ask += num(row.ask)
  }
  for (const row of shadow.rows) {
    const point = at(row.bucket)
    if (point) point.shadowDeny += num(row.shadow)
  }
  return points
}

const HOOK_SUMS = [
  'runs',
  'n_deny',
  'n_ask',
  'n_modify',
  'errors',
  'timeouts',
  'shadow_runs',
  'shadow_deny',
  ...LATENCY_COLUMNS,
] as const

async function hooks(
  db: Kysely<Database>,
  w: Window,
  marks: Marks,
  tenant: string | undefined,
): Promise<OverviewHook[]> {
  const sums = await summed(db, w, marks, 'rollup_hooks', 'hook', HOOK_SUMS, tenantFilter(tenant))
  return [...sums].map(([hook, c]) => {
    const at = (i: number) => c[i] ?? 0
    const histogram = c.slice(8)
    return {
      hook,
      runs: at(0),
      deny: at(1),
      ask: at(2),
      modify: at(3),
      errors: at(4),
      timeouts: at(5),
      shadowRuns: at(6),
      shadowDeny: at(7),
      p50Ms: histogramQuantile(histogram, 0.5),
      p99Ms: histogramQuantile(histogram, 0.99),
    }
  })
}

/**
 * The overview of a window from the rollups.
 * @throws StoreError `invalid-query` when the window is not a valid range.
 */
export async function overview(
  db: Kysely<Database>,
  query: OverviewQuery,
  now = Date.now(),
): Promise<Overview> {
  const w = windowOf(query, now)
  const marks = await marksOf(db)
  const [points, tools, agents, sessions, hookRows] = await Promise.all([
    series(db, w, marks, query.tenant),
    topItems(db, w, marks, query.tenant, 'tool', 'deny+ask'),
    topItems(db, w, marks, query.tenant, 'agent', 'deny'),
    topItems(db, w, marks, query.tenant, 'session', 'deny'),
    hooks(db, w, marks, query.tenant),
  ])
  const totals: OutcomeCounts = { total: 0, allow: 0, deny: 0, modify: 0, ask: 0, shadowDeny: 0 }
  for (const p of points) {
    totals.total += p.total
    totals.allow += p.allow
    totals.deny += p.deny
    totals.modify += p.modify
    totals.ask += p.ask
    totals.shadowDeny += p.shadowDeny
  }
  return {
    since: w.since,
    until: w.until,
    grainMs: w.grain,
    stepMs: w.step,
    totals,
    series: points,
    tools,
    agents,
    sessions,
    hooks: hookRows,
  }
}
