// Impact preview: replays recorded events against a changed hook set and tells how many
// would be decided differently, grouped old → new decision, with the events themselves.
// Only events the change can touch are replayed (the changed hook's events, blocking ones:
// a non-blocking event is always allowed), newest first, within a row limit and a time
// limit; the engine given must not record, so history is never rewritten.

import type { DecisionKind, Engine, JsonObject } from '../core/index.js'
import type { DecisionQuery, DecisionRow, Store } from '../store/index.js'

/** What to replay and how far. */
export interface ImpactOptions {
  /** Only decisions recorded at or after this time (ms). */
  since: number
  /** Only decisions recorded before this time (ms); default now. */
  until?: number
  /** Only this tenant's decisions; omitted = every tenant. */
  tenant?: string
  /** The events the change can affect (canonical names); empty = every event. */
  events: readonly string[]
  /** Most decisions replayed. */
  limit: number
  /** Stop replaying after this many ms; the answer then says it is partial. */
  timeLimitMs: number
  /** Most changed events returned (the counts still cover every replayed one). */
  maxEvents?: number
  /** Told after each page: replayed so far, and the limit. */
  onProgress?(done: number, limit: number): void
  /** Rows read per page; default 2000. */
  pageSize?: number
}

/** One recorded event decided differently. */
export interface ImpactEvent {
  decisionId: string
  event: string
  tenant: string
  at: number
  old: { decision: string; reason: string }
  new: { decision: DecisionKind; reason: string }
}

/** The answer of a preview. */
export interface ImpactReport {
  /** Decisions replayed. */
  replayed: number
  /** Of those, decided differently. */
  changed: number
  /** Changed decisions grouped `old → new`, e.g. `{ "allow → deny": 12 }`. */
  transitions: Record<string, number>
  /** The changed events, newest first, at most `maxEvents`. */
  events: ImpactEvent[]
  /** True when the row or time limit stopped the replay before the range was covered. */
  truncated: boolean
  /** Why it stopped early: `limit` or `time`. */
  stoppedBy?: 'limit' | 'time'
  since: number
  until: number
  durationMs: number
}

/** The arrow between an old and a new decision in {@link ImpactReport.transitions}. */
export const TRANSITION_ARROW = ' → '

/**
 * Replays the recorded decisions of the range against an engine holding the changed hooks.
 * Never throws for a hook that fails: its failure is its decision, as in production.
 */
export async function previewImpact(
  store: Store,
  engine: Engine,
  options: ImpactOptions,
): Promise<ImpactReport> {
  const started = Date.now()
  const until = options.until ?? started
  const pageSize = Math.max(1, Math.min(options.pageSize ?? 2000, 10_000))
  const maxEvents = options.maxEvents ?? 100
  const wanted = new Set(options.events)
  const report: ImpactReport = {
    replayed: 0,
    changed: 0,
    transitions: {},
    events: [],
    truncated: false,
    since: options.since,
    until,
    durationMs: 0,
  }
  const event = wanted.size === 1 ? [...wanted][0] : undefined
  const query: DecisionQuery = {
    since: options.since,
    until,
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    ...(event !== undefined ? { event } : {}),
  }
  for await (const rows of recordedPages(store, query, pageSize)) {
    for (const row of rows) {
      if (!row.blocking || (wanted.size > 0 && !wanted.has(row.event))) continue
      if (report.replayed >= options.limit) return finish(report, started, 'limit')
      if (Date.now() - started >= options.timeLimitMs) return finish(report, started, 'time')
      await replayRow(engine, row, report, maxEvents)
    }
    options.onProgress?.(report.replayed, options.limit)
  }
  return finish(report, started)
}

/**
 * The recorded decisions of a query, newest first, page by page. Pages are keyed on the
 * time of the last row read (and how many rows of that very millisecond were read), so
 * each page costs the same however deep into the history it is.
 */
export async function* recordedPages(
  store: Store,
  query: Omit<DecisionQuery, 'limit' | 'offset'>,
  pageSize: number,
): AsyncGenerator<DecisionRow[]> {
  let until = query.until
  let seenAtLast = 0
  for (;;) {
    const rows = await store.listDecisions({
      ...query,
      ...(until !== undefined ? { until } : {}),
      limit: pageSize,
      offset: seenAtLast,
    })
    if (rows.length > 0) yield rows
    if (rows.length < pageSize) return
    const last = (rows[rows.length - 1] as DecisionRow).createdAt
    const sameAsLast = rows.filter((r) => r.createdAt === last).length
    seenAtLast = until === last + 1 ? seenAtLast + sameAsLast : sameAsLast
    until = last + 1
  }
}

/** Replays one recorded decision and counts it. */
async function replayRow(engine: Engine, row: DecisionRow, report: ImpactReport, maxEvents: number) {
  const input = (row.input ?? {}) as { event?: string; payload?: JsonObject; context?: JsonObject }
  const now = await engine.dispatch({
    event: input.event ?? row.event,
    payload: input.payload ?? {},
    context: input.context ?? {},
  })
  report.replayed++
  // A held ask counts as `ask` on both sides, whatever the human (or no one) answered.
  const before = (row.output as { approval?: unknown } | undefined)?.approval ? 'ask' : row.decision
  const after: DecisionKind = now.approval ? 'ask' : now.decision
  if (after === before) return
  report.changed++
  const key = `${before}${TRANSITION_ARROW}${after}`
  report.transitions[key] = (report.transitions[key] ?? 0) + 1
  if (report.events.length < maxEvents) {
    report.events.push({
      decisionId: row.id,
      event: row.event,
      tenant: row.tenant,
      at: row.createdAt,
      old: { decision: before, reason: row.reason },
      new: { decision: after, reason: now.reason },
    })
  }
}

function finish(report: ImpactReport, started: number, stoppedBy?: 'limit' | 'time'): ImpactReport {
  if (stoppedBy) {
    report.truncated = true
    report.stoppedBy = stoppedBy
  }
  report.durationMs = Date.now() - started
  return report
}

/** The report as text: the counts by transition, then the changed events. */
export function formatImpact(report: ImpactReport): string {
  const lines = [
    `replayed ${report.replayed} recorded decision${report.replayed === 1 ? '' : 's'} from ${new Date(report.since).toISOString()} to ${new Date(report.until).toISOString()} in ${(report.durationMs / 1000).toFixed(1)} s`,
    `${report.changed} would be decided differently`,
  ]
  for (const [transition, count] of Object.entries(report.transitions).sort((a, b) => b[1] - a[1]))
    lines.push(`  ${transition.padEnd(20)} ${count}`)
  if (report.truncated)
    lines.push(
      `stopped early (${report.stoppedBy === 'time' ? 'time limit' : 'row limit'}): older decisions were not replayed`,
    )
  if (report.events.length > 0) {
    lines.push('', 'changed decisions (newest first):')
    for (const e of report.events) {
      lines.push(
        `  ${e.decisionId}  ${new Date(e.at).toISOString()}  ${e.event}${e.tenant ? ` [${e.tenant}]` : ''}  ${e.old.decision} -> ${e.new.decision}: ${e.new.reason}`,
      )
    }
  }
  return `${lines.join('\n')}\n`
}
