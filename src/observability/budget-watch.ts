// Warns before the chain budget runs out. Every decision's trace feeds a rolling window per
// hook (its last 100 runs); every 25 runs of a hook the window is judged, and a hook whose
// latency (p95 over half the chain budget, or near its own timeout) or failure rate (a
// fifth of its runs erroring or timing out, each a deny under onError/onTimeout: deny)
// makes denials by exhaustion likely is named in one warning, repeated at most every
// ten minutes while it lasts. A chain whose hooks' p95s add up to most of the budget is
// warned about too, naming its slowest hook. Costs a few array writes per hook run.

import type { DecisionRecord, HookTrace, Recorder } from '../core/index.js'

/** What the watch says, with structured fields for the log. */
export type BudgetWarn = (message: string, fields: Record<string, unknown>) => void

/** Settings of the budget watch. */
export interface BudgetWatchOptions {
  chainBudgetMs: number
  warn: BudgetWarn
  /** Runs kept per hook (default 100). */
  window?: number
  /** Runs between two judgements of one hook (default 25). */
  every?: number
  /** Least time between two warnings about the same hook, in ms (default 10 minutes). */
  repeatMs?: number
  now?: () => number
}

interface HookWindow {
  durations: Float64Array
  failed: Uint8Array
  timedOut: Uint8Array
  next: number
  filled: number
  sinceJudged: number
  p95: number
}

const SLOW_SHARE = 0.5
const CHAIN_SHARE = 0.8
const FAILURE_RATE = 0.2

/** The 95th percentile of the first `count` values. */
function p95Of(values: Float64Array, count: number): number {
  const sorted = Array.from(values.subarray(0, count)).sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0
}

/** The rolling watch; `observe` takes one decision's trace. */
export class BudgetWatch {
  private readonly hooks = new Map<string, HookWindow>()
  private readonly warned = new Map<string, number>()
  private readonly size: number
  private readonly every: number
  private readonly repeatMs: number
  private readonly now: () => number

  constructor(private readonly options: BudgetWatchOptions) {
    this.size = options.window ?? 100
    this.every = options.every ?? 25
    this.repeatMs = options.repeatMs ?? 600_000
    this.now = options.now ?? Date.now
  }

  /** Feeds one decision's per-hook trace. */
  observe(trace: readonly HookTrace[]): void {
    let chainP95 = 0
    let slowest: { id: string; p95: number } | undefined
    let judged = false
    for (const entry of trace) {
      if (entry.outcome === 'skipped') continue
      const window = this.windowOf(entry.id)
      window.durations[window.next] = entry.durationMs
      window.failed[window.next] =
        entry.error && entry.error.kind !== 'breaker-open' && entry.error.kind !== 'turn-cap' ? 1 : 0
      window.timedOut[window.next] = entry.error?.kind === 'timeout' ? 1 : 0
      window.next = (window.next + 1) % this.size
      window.filled = Math.min(this.size, window.filled + 1)
      if (++window.sinceJudged >= this.every) {
        window.sinceJudged = 0
        judged = true
        this.judge(entry.id, window)
      }
      chainP95 += window.p95
      if (!slowest || window.p95 > slowest.p95) slowest = { id: entry.id, p95: window.p95 }
    }
    const budget = this.options.chainBudgetMs
    if (judged && slowest && chainP95 >= budget * CHAIN_SHARE && slowest.p95 < budget * SLOW_SHARE) {
      this.say(
        `chain:${slowest.id}`,
        `hooks of one chain take ${round(chainP95)} ms at p95 together, ${percent(chainP95 / budget)} of the chain budget of ${budget} ms; the slowest is hook "${slowest.id}" (${round(slowest.p95)} ms)`,
        {
          hook: slowest.id,
          chainP95Ms: round(chainP95),
          chainBudgetMs: budget,
        },
      )
    }
  }

  /** A recorder that feeds the watch, then hands the record on. */
  recorder(next: Recorder): Recorder {
    const watched: Recorder = {
      record: (record: DecisionRecord) => {
        this.observe(record.decision.trace)
        return next.record(record)
      },
    }
    if (next.breakerTripped) watched.breakerTripped = next.breakerTripped.bind(next)
    return watched
  }

  private windowOf(id: string): HookWindow {
    let window = this.hooks.get(id)
    if (!window) {
      window = {
        durations: new Float64Array(this.size),
        failed: new Uint8Array(this.size),
        timedOut: new Uint8Array(this.size),
        next: 0,
        filled: 0,
        sinceJudged: 0,
        p95: 0,
      }
      this.hooks.set(id, window)
    }
    return window
  }

  private judge(id: string, window: HookWindow): void {
    const count = window.filled
    window.p95 = p95Of(window.durations, count)
    const budget = this.options.chainBudgetMs
    let failures = 0
    let timeouts = 0
    for (let i = 0; i < count; i++) {
      failures += window.failed[i] ?? 0
      timeouts += window.timedOut[i] ?? 0
    }
    if (window.p95 >= budget * SLOW_SHARE) {
      this.say(
        id,
        `hook "${id}" takes ${round(window.p95)} ms at p95 over its last ${count} runs, ${percent(window.p95 / budget)} of the chain budget of ${budget} ms; chains it is in are likely to run out of time and deny`,
        {
          hook: id,
          p95Ms: round(window.p95),
          chainBudgetMs: budget,
          runs: count,
        },
      )
    } else if (count >= this.every && failures / count >= FAILURE_RATE) {
      this.say(
        id,
        `hook "${id}" failed ${failures} of its last ${count} runs (${timeouts} timed out); each failure decides by its onError/onTimeout (deny unless configured otherwise)`,
        {
          hook: id,
          failures,
          timeouts,
          runs: count,
        },
      )
    }
  }

  private say(key: string, message: string, fields: Record<string, unknown>): void {
    const now = this.now()
    const last = this.warned.get(key)
    if (last !== undefined && now - last < this.repeatMs) return
    this.warned.set(key, now)
    this.options.warn(message, fields)
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`
}
