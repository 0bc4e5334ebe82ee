// The state Starlark hooks may keep between calls, bounded in size: counters (`metrics`),
// shared by every script hook of one handler, and a key/value cache per run (the agent
// session; events without a session share one cache). Writes made while a script runs are
// staged and committed only when its run is final, so a replayed run never counts twice.

import type { CheckedEvent, Json, JsonObject } from '../core/index.js'

/** Most counters kept. */
export const MAX_METRICS = 10_000
/** Most runs (sessions) whose caches are kept; the oldest is dropped first. */
export const MAX_CACHED_RUNS = 1_000
/** Most entries in one run's cache. */
export const MAX_CACHE_ENTRIES = 1_000
/** Largest cached value, as JSON characters. */
export const MAX_CACHE_VALUE_CHARS = 64 * 1024

/** Most turns whose log lines are kept for their `turn.end` event. */
export const MAX_LOGGED_TURNS = 1_000
/** Most log lines kept per turn. */
export const MAX_TURN_LOG_LINES = 200

/** Counters, caches and per-turn logs of one script handler. */
export class ScriptState {
  readonly metrics = new Map<string, number>()
  private readonly caches = new Map<string, Map<string, Json>>()
  private readonly turnLogs = new Map<string, string[]>()

  /** Keeps log lines of a turn, for the `turn.end` (agent.response) payload. */
  addTurnLogs(turn: string, lines: readonly string[]): void {
    if (lines.length === 0) return
    let kept = this.turnLogs.get(turn)
    if (!kept) {
      kept = []
      this.turnLogs.set(turn, kept)
      if (this.turnLogs.size > MAX_LOGGED_TURNS) {
        const oldest = this.turnLogs.keys().next().value
        if (oldest !== undefined) this.turnLogs.delete(oldest)
      }
    }
    for (const line of lines) if (kept.length < MAX_TURN_LOG_LINES) kept.push(line)
  }

  /** The log lines of a turn so far (a copy). */
  turnLogsOf(turn: string): string[] {
    return [...(this.turnLogs.get(turn) ?? [])]
  }

  /** The cache of a run (created when missing, refreshed as most recent). */
  cache(run: string): Map<string, Json> {
    let cache = this.caches.get(run)
    if (cache) {
      this.caches.delete(run)
      this.caches.set(run, cache)
      return cache
    }
    cache = new Map()
    this.caches.set(run, cache)
    if (this.caches.size > MAX_CACHED_RUNS) {
      const oldest = this.caches.keys().next().value
      if (oldest !== undefined) this.caches.delete(oldest)
    }
    return cache
  }
}

/** The writes of one script run, applied to the state on commit. */
export class StagedWrites {
  private readonly metricDeltas = new Map<string, number>()
  /** Gauges set by this run (absolute values, later increments included). */
  private readonly metricValues = new Map<string, number>()
  private readonly cacheWrites = new Map<string, Json>()

  constructor(
    private readonly state: ScriptState,
    private readonly run: string,
  ) {}

  /** Adds to a counter (staged); returns its new value. */
  incr(name: string, by: number): number {
    this.checkRoom(name, 'metrics.incr')
    const gauge = this.metricValues.get(name)
    if (gauge !== undefined) {
      this.metricValues.set(name, gauge + by)
      return gauge + by
    }
    const delta = (this.metricDeltas.get(name) ?? 0) + by
    this.metricDeltas.set(name, delta)
    return (this.state.metrics.get(name) ?? 0) + delta
  }

  /** Sets a gauge (staged); returns the value. */
  set(name: string, value: number): number {
    this.checkRoom(name, 'metrics.set')
    this.metricDeltas.delete(name)
    this.metricValues.set(name, value)
    return value
  }

  private checkRoom(name: string, what: string): void {
    if (
      !this.state.metrics.has(name) &&
      !this.metricDeltas.has(name) &&
      !this.metricValues.has(name) &&
      this.state.metrics.size >= MAX_METRICS
    ) {
      throw new Error(`${what}: too many metrics (limit ${MAX_METRICS})`)
    }
  }

  /** A counter's (or gauge's) value as this run sees it. */
  get(name: string): number {
    const gauge = this.metricValues.get(name)
    if (gauge !== undefined) return gauge
    return (this.state.metrics.get(name) ?? 0) + (this.metricDeltas.get(name) ?? 0)
  }

  /** Every counter as this run sees it, sorted by name. */
  snapshot(): Record<string, number> {
    const names = new Set([
      ...this.state.metrics.keys(),
      ...this.metricDeltas.keys(),
      ...this.metricValues.keys(),
    ])
    const out: Record<string, number> = {}
    for (const name of [...names].sort()) out[name] = this.get(name)
    return out
  }

  /** A cached value of this run, or undefined. */
  cacheGet(key: string): Json | undefined {
    if (this.cacheWrites.has(key)) return this.cacheWrites.get(key)
    return this.state.cache(this.run).get(key)
  }

  /** Stages a cache write; the value must be JSON and small. */
  cacheSet(key: string, value: Json): void {
    const size = JSON.stringify(value)?.length ?? 0
    if (size > MAX_CACHE_VALUE_CHARS) {
      throw new Error(`cache.set: the value is ${size} characters as JSON (limit ${MAX_CACHE_VALUE_CHARS})`)
    }
    const cache = this.state.cache(this.run)
    if (
      !cache.has(key) &&
      !this.cacheWrites.has(key) &&
      cache.size + this.cacheWrites.size >= MAX_CACHE_ENTRIES
    ) {
      throw new Error(`cache.set: this run's cache is full (limit ${MAX_CACHE_ENTRIES} entries)`)
    }
    this.cacheWrites.set(key, value)
  }

  /** Applies the staged writes. */
  commit(): void {
    for (const [name, delta] of this.metricDeltas) {
      this.state.metrics.set(name, (this.state.metrics.get(name) ?? 0) + delta)
    }
    for (const [name, value] of this.metricValues) this.state.metrics.set(name, value)
    if (this.cacheWrites.size > 0) {
      const cache = this.state.cache(this.run)
      for (const [key, value] of this.cacheWrites) cache.set(key, value)
    }
  }
}

/** The turn a script run belongs to (session and turn id), for the turn's log lines. */
export function turnKey(event: CheckedEvent): string {
  return `${event.context.session?.id ?? ''}\u0000${event.context.turnId ?? ''}`
}

/**
 * For `turn.end` (agent.response), the payload view with `logs`: the lines scripts logged
 * during the turn, as AI Harness hands them to its turn.end hooks.
 */
export function withTurnLogs(
  event: CheckedEvent,
  view: JsonObject,
  shared: ScriptState,
  turn: string,
): JsonObject {
  if (event.event !== 'agent.response' || view.logs !== undefined) return view
  return { ...view, logs: shared.turnLogsOf(turn) }
}
