// The state Starlark hooks may keep between calls, bounded in size, and always within one
// tenant: counters (`metrics`) per tenant, shared by the script hooks of one handler that
// run for that tenant; a key/value cache per tenant and agent session (events without a
// session share their tenant's one cache); log lines per tenant, session and turn for the
// `turn.end` payload. No tenant reaches another's. Writes made while a script runs are
// staged and committed only when its run is final, so a replayed run never counts twice.

import type { CheckedEvent, Json, JsonObject } from '../core/index.js'

/** Most counters kept per tenant. */
export const MAX_METRICS = 10_000
/** Most tenants whose counters are kept; the least recently used is dropped first. */
export const MAX_METRIC_TENANTS = 1_000
/** Most runs (tenant and session) whose caches are kept; the oldest is dropped first. */
export const MAX_CACHED_RUNS = 1_000
/** Most entries in one run's cache. */
export const MAX_CACHE_ENTRIES = 1_000
/** Largest cached value, as JSON characters. */
export const MAX_CACHE_VALUE_CHARS = 64 * 1024

/** Most turns whose log lines are kept for their `turn.end` event. */
export const MAX_LOGGED_TURNS = 1_000
/** Most log lines kept per turn. */
export const MAX_TURN_LOG_LINES = 200

/** The part of a Map a staged run reads. */
export interface MapView<V> {
  get(key: string): V | undefined
  has(key: string): boolean
  readonly size: number
  keys(): Iterable<string>
}

/** The writes of one run, as plain data (a script worker sends them back to be committed). */
export interface WriteSet {
  /** Increments of counters. */
  deltas: [string, number][]
  /** Gauges set (absolute values). */
  values: [string, number][]
  /** Cache entries written. */
  cache: [string, Json][]
}

/** Where a staged run reads counters and cache entries, and where its writes go on commit. */
export interface StateSource {
  metrics(tenant: string): MapView<number>
  cache(run: string): MapView<Json>
  apply(tenant: string, run: string, writes: WriteSet): void
}

/** Counters, caches and per-turn logs of one script handler, each kept per tenant. */
export class ScriptState implements StateSource {
  private readonly metricsByTenant = new Map<string, Map<string, number>>()
  private readonly caches = new Map<string, Map<string, Json>>()
  private readonly turnLogs = new Map<string, string[]>()

  /** The counters of a tenant (created when missing, refreshed as most recent). */
  metrics(tenant: string): Map<string, number> {
    return recent(this.metricsByTenant, tenant, MAX_METRIC_TENANTS)
  }

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

  /** The cache of a run, keyed by {@link runKey} (created when missing, refreshed as most recent). */
  cache(run: string): Map<string, Json> {
    return recent(this.caches, run, MAX_CACHED_RUNS)
  }

  /** Commits the writes of a run of `tenant` (counters) and `run` (cache). */
  apply(tenant: string, run: string, writes: WriteSet): void {
    const metrics = this.metrics(tenant)
    for (const [name, delta] of writes.deltas) metrics.set(name, (metrics.get(name) ?? 0) + delta)
    for (const [name, value] of writes.values) metrics.set(name, value)
    if (writes.cache.length > 0) {
      const cache = this.cache(run)
      for (const [key, value] of writes.cache) cache.set(key, value)
    }
  }
}

/** The map under a key, created when missing and moved last; past `max` the oldest goes. */
function recent<V>(maps: Map<string, Map<string, V>>, key: string, max: number): Map<string, V> {
  let map = maps.get(key)
  if (map) {
    maps.delete(key)
    maps.set(key, map)
    return map
  }
  map = new Map()
  maps.set(key, map)
  if (maps.size > max) {
    const oldest = maps.keys().next().value
    if (oldest !== undefined) maps.delete(oldest)
  }
  return map
}

/** The writes of one script run, applied to the state on commit. */
export class StagedWrites {
  private readonly metricDeltas = new Map<string, number>()
  /** Gauges set by this run (absolute values, later increments included). */
  private readonly metricValues = new Map<string, number>()
  private readonly cacheWrites = new Map<string, Json>()
  /** The tenant's counters. */
  private readonly metrics: MapView<number>

  /**
   * @param tenant the tenant whose counters the run sees ('' for events without one)
   * @param run the run's cache key, from {@link runKey}
   */
  constructor(
    private readonly state: StateSource,
    private readonly tenant: string,
    private readonly run: string,
  ) {
    this.metrics = state.metrics(tenant)
  }

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
    return (this.metrics.get(name) ?? 0) + delta
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
      !this.metrics.has(name) &&
      !this.metricDeltas.has(name) &&
      !this.metricValues.has(name) &&
      this.metrics.size >= MAX_METRICS
    ) {
      throw new Error(`${what}: too many metrics (limit ${MAX_METRICS})`)
    }
  }

  /** A counter's (or gauge's) value as this run sees it. */
  get(name: string): number {
    const gauge = this.metricValues.get(name)
    if (gauge !== undefined) return gauge
    return (this.metrics.get(name) ?? 0) + (this.metricDeltas.get(name) ?? 0)
  }

  /** Every counter as this run sees it, sorted by name. */
  snapshot(): Record<string, number> {
    const names = new Set([...this.metrics.keys(), ...this.metricDeltas.keys(), ...this.metricValues.keys()])
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

  /** The staged writes as plain data. */
  writes(): WriteSet {
    return { deltas: [...this.metricDeltas], values: [...this.metricValues], cache: [...this.cacheWrites] }
  }

  /** Applies the staged writes. */
  commit(): void {
    if (this.metricDeltas.size === 0 && this.metricValues.size === 0 && this.cacheWrites.size === 0) return
    this.state.apply(this.tenant, this.run, this.writes())
  }
}

/** The tenant of an event as script state keys it ('' when it names none). */
export function tenantOf(event: CheckedEvent): string {
  const tenant = event.context.tenantId
  return typeof tenant === 'string' ? tenant : ''
}

/** The cache a script run uses: its tenant and agent session (length-prefixed, so no two pairs meet). */
export function runKey(event: CheckedEvent): string {
  const tenant = tenantOf(event)
  const session = event.context.session?.id
  const id = typeof session === 'string' ? session : ''
  return `${tenant.length}:${tenant}${id.length}:${id}`
}

/** The turn a script run belongs to (tenant, session and turn id), for the turn's log lines. */
export function turnKey(event: CheckedEvent): string {
  return `${runKey(event)}${event.context.turnId ?? ''}`
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
