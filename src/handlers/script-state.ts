// The state Starlark hooks may keep between calls, bounded in size: counters (`metrics`),
// shared by every script hook of one handler, and a key/value cache per run (the agent
// session; events without a session share one cache). Writes made while a script runs are
// staged and committed only when its run is final, so a replayed run never counts twice.

import type { Json } from '../core/index.js'

/** Most counters kept. */
export const MAX_METRICS = 10_000
/** Most runs (sessions) whose caches are kept; the oldest is dropped first. */
export const MAX_CACHED_RUNS = 1_000
/** Most entries in one run's cache. */
export const MAX_CACHE_ENTRIES = 1_000
/** Largest cached value, as JSON characters. */
export const MAX_CACHE_VALUE_CHARS = 64 * 1024

/** Counters and caches of one script handler. */
export class ScriptState {
  readonly metrics = new Map<string, number>()
  private readonly caches = new Map<string, Map<string, Json>>()

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
  private readonly cacheWrites = new Map<string, Json>()

  constructor(
    private readonly state: ScriptState,
    private readonly run: string,
  ) {}

  /** Adds to a counter (staged); returns its new value. */
  incr(name: string, by: number): number {
    if (
      !this.state.metrics.has(name) &&
      !this.metricDeltas.has(name) &&
      this.state.metrics.size >= MAX_METRICS
    ) {
      throw new Error(`metrics.incr: too many counters (limit ${MAX_METRICS})`)
    }
    const delta = (this.metricDeltas.get(name) ?? 0) + by
    this.metricDeltas.set(name, delta)
    return (this.state.metrics.get(name) ?? 0) + delta
  }

  /** A counter's value as this run sees it. */
  get(name: string): number {
    return (this.state.metrics.get(name) ?? 0) + (this.metricDeltas.get(name) ?? 0)
  }

  /** Every counter as this run sees it, sorted by name. */
  snapshot(): Record<string, number> {
    const names = new Set([...this.state.metrics.keys(), ...this.metricDeltas.keys()])
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
    if (this.cacheWrites.size > 0) {
      const cache = this.state.cache(this.run)
      for (const [key, value] of this.cacheWrites) cache.set(key, value)
    }
  }
}
