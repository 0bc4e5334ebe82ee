// The circuit breaker: a hook that fails or times out too often within a window is
// switched off until someone turns it back on; while off, its onError decision applies.
// The state sits behind a small interface so a store can share it between instances.

/** Breaker thresholds. */
export interface BreakerOptions {
  /** Failures (errors or timeouts) within the window that open the breaker. Default 5. */
  failures: number
  /** The window in milliseconds. Default 60 000. */
  windowMs: number
}

/** What is known about one open breaker. */
export interface BreakerTrip {
  hookId: string
  openedAt: number
  failures: number
  lastError: string
}

/** Breaker state. Synchronous, because it is consulted on the hot path. */
export interface BreakerState {
  /** The trip, if the hook's breaker is open. */
  openTrip(hookId: string): BreakerTrip | undefined
  /** Records a failure; returns the trip when this failure opened the breaker. */
  recordFailure(hookId: string, now: number, error: string): BreakerTrip | undefined
  /** Closes the breaker and forgets past failures. */
  reset(hookId: string): void
  /** Every open breaker. */
  openTrips(): BreakerTrip[]
}

export const DEFAULT_BREAKER: BreakerOptions = { failures: 5, windowMs: 60_000 }

/** The in-process breaker state (the default). */
export class MemoryBreakerState implements BreakerState {
  private readonly failures = new Map<string, number[]>()
  private readonly trips = new Map<string, BreakerTrip>()

  constructor(private readonly options: BreakerOptions = DEFAULT_BREAKER) {}

  openTrip(hookId: string): BreakerTrip | undefined {
    return this.trips.get(hookId)
  }

  recordFailure(hookId: string, now: number, error: string): BreakerTrip | undefined {
    if (this.trips.has(hookId)) return undefined
    const since = now - this.options.windowMs
    const recent = (this.failures.get(hookId) ?? []).filter((t) => t > since)
    recent.push(now)
    this.failures.set(hookId, recent)
    if (recent.length < this.options.failures) return undefined
    const trip: BreakerTrip = { hookId, openedAt: now, failures: recent.length, lastError: error }
    this.trips.set(hookId, trip)
    this.failures.delete(hookId)
    return trip
  }

  reset(hookId: string): void {
    this.trips.delete(hookId)
    this.failures.delete(hookId)
  }

  openTrips(): BreakerTrip[] {
    return [...this.trips.values()]
  }

  /** Restores a trip (used by stores that persist breaker state). */
  restore(trip: BreakerTrip): void {
    this.trips.set(trip.hookId, trip)
  }
}
