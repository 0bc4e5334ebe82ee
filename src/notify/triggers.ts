// What turns a stream of decisions into a notification: a hook failing (errors or timeouts
// past a threshold within a window) and a deny rate past a threshold (within a window, over
// a minimum count). Each fires once, then stays quiet for its cooldown, so a hook that keeps
// failing or a tenant that keeps being denied sends one message, not one per decision.
// Counts are kept per key (tenant and hook, or tenant) in a bounded map; time is injected.

/** Most keys a watch remembers; the least recently seen is forgotten beyond it. */
export const MAX_WATCHED_KEYS = 10_000

/** Slices a window is counted in. */
const SLICES = 10

interface Slice {
  start: number
  total: number
  hits: number
}

interface KeyState {
  slices: Slice[]
  quietUntil: number
}

/** Counts hits among totals in a sliding window, per key, firing past a threshold. */
class SlidingCounts {
  private readonly keys = new Map<string, KeyState>()
  private readonly sliceMs: number

  constructor(
    private readonly windowMs: number,
    private readonly cooldownMs: number,
  ) {
    this.sliceMs = Math.max(1, Math.ceil(windowMs / SLICES))
  }

  /** Adds one observation; returns the window's totals when `fires` says so (then cools down). */
  add(
    key: string,
    now: number,
    hit: boolean,
    fires: (total: number, hits: number) => boolean,
  ): { total: number; hits: number } | undefined {
    let state = this.keys.get(key)
    if (state) this.keys.delete(key)
    else state = { slices: [], quietUntil: 0 }
    this.keys.set(key, state)
    if (this.keys.size > MAX_WATCHED_KEYS) {
      const oldest = this.keys.keys().next().value
      if (oldest !== undefined) this.keys.delete(oldest)
    }
    const start = now - (now % this.sliceMs)
    const since = now - this.windowMs
    while (state.slices.length > 0 && (state.slices[0]?.start ?? 0) + this.sliceMs <= since)
      state.slices.shift()
    let last = state.slices[state.slices.length - 1]
    if (!last || last.start !== start) {
      last = { start, total: 0, hits: 0 }
      state.slices.push(last)
    }
    last.total++
    if (hit) last.hits++
    if (!hit || now < state.quietUntil) return undefined
    let total = 0
    let hits = 0
    for (const slice of state.slices) {
      total += slice.total
      hits += slice.hits
    }
    if (!fires(total, hits)) return undefined
    state.quietUntil = now + this.cooldownMs
    return { total, hits }
  }
}

/** A hook past its failure threshold. */
export interface HookFailing {
  tenant: string
  hook: string
  failures: number
  windowMs: number
  lastError: string
}

/** Fires when a hook's errors and timeouts reach `threshold` within `windowMs` (per tenant). */
export class FailureWatch {
  private readonly counts: SlidingCounts

  constructor(private readonly settings: { windowMs: number; threshold: number; cooldownMs: number }) {
    this.counts = new SlidingCounts(settings.windowMs, settings.cooldownMs)
  }

  /** One failure of `hook` for `tenant` at `now`. */
  failed(tenant: string, hook: string, error: string, now: number): HookFailing | undefined {
    const fired = this.counts.add(
      `${tenant}\u0000${hook}`,
      now,
      true,
      (_total, hits) => hits >= this.settings.threshold,
    )
    return fired
      ? { tenant, hook, failures: fired.hits, windowMs: this.settings.windowMs, lastError: error }
      : undefined
  }
}

/** A deny rate past its threshold. */
export interface DenyRateHigh {
  tenant: string
  /** The hook whose denials jumped; absent: the tenant's decisions as a whole. */
  hook?: string
  denied: number
  total: number
  rate: number
  windowMs: number
}

/**
 * Fires when the share of denials among a tenant's decisions (or among the decisions a hook
 * took part in) reaches `threshold` within `windowMs`, over at least `minCount` decisions.
 */
export class DenyRateWatch {
  private readonly counts: SlidingCounts

  constructor(
    private readonly settings: { windowMs: number; minCount: number; threshold: number; cooldownMs: number },
  ) {
    this.counts = new SlidingCounts(settings.windowMs, settings.cooldownMs)
  }

  /** One decision for `tenant` (and `hook`, when given): denied or not. */
  decided(tenant: string, hook: string | undefined, denied: boolean, now: number): DenyRateHigh | undefined {
    const { minCount, threshold, windowMs } = this.settings
    const fired = this.counts.add(
      hook === undefined ? `t\u0000${tenant}` : `h\u0000${tenant}\u0000${hook}`,
      now,
      denied,
      (total, hits) => total >= minCount && hits / total >= threshold,
    )
    if (!fired) return undefined
    return {
      tenant,
      ...(hook === undefined ? {} : { hook }),
      denied: fired.hits,
      total: fired.total,
      rate: fired.hits / fired.total,
      windowMs,
    }
  }
}
