// The circuit breaker: a hook that fails or times out too often within a window is
// switched off until someone turns it back on; while off, its onError decision applies.
// Breakers are kept per hook and per tenant (the tenant of the events that failed, '' for
// events without one): a global hook that fails on one tenant's traffic stays on for the
// others. The state sits behind a small interface so a store can share it between
// instances (and count failures across them).

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
  /** The tenant whose traffic opened it ('' = events without a tenant). */
  tenant: string
  openedAt: number
  failures: number
  lastError: string
}

/** One failure of a hook, as the chain reports it. */
export interface BreakerFailure {
  hookId: string
  /** The tenant of the event that failed ('' when it names none). */
  tenant: string
  /** Whether the hook is global (no tenant scope): it runs for every tenant. */
  global: boolean
  at: number
  error: string
}

/** Breaker state. Lookups are synchronous, because they are on the hot path. */
export interface BreakerState {
  /** The trip, if the hook's breaker is open for this tenant ('' = no tenant). */
  openTrip(hookId: string, tenant?: string): BreakerTrip | undefined
  /**
   * Records a failure; returns the trip when this failure opened the breaker, or a promise
   * of it when the count is kept elsewhere (a store shared by several instances). The
   * promise never rejects.
   */
  recordFailure(failure: BreakerFailure): BreakerTrip | undefined | Promise<BreakerTrip | undefined>
  /** Closes the breaker and forgets past failures: for one tenant, or every tenant when omitted. */
  reset(hookId: string, tenant?: string): void
  /** Every open breaker. */
  openTrips(): BreakerTrip[]
}

export const DEFAULT_BREAKER: BreakerOptions = { failures: 5, windowMs: 60_000 }

/** Most hook-and-tenant pairs whose recent failures are counted at once (oldest dropped). */
export const MAX_COUNTED_BREAKERS = 10_000

/** The key of one hook's failures for one tenant (length-prefixed, so no two pairs meet). */
function failureKey(hookId: string, tenant: string): string {
  return `${hookId.length}:${hookId}${tenant}`
}

/** Open trips by hook, then tenant: a lookup when nothing is open costs one map probe. */
export class TripTable {
  private readonly byHook = new Map<string, Map<string, BreakerTrip>>()

  get(hookId: string, tenant: string): BreakerTrip | undefined {
    return this.byHook.get(hookId)?.get(tenant)
  }

  has(hookId: string, tenant: string): boolean {
    return this.byHook.get(hookId)?.has(tenant) ?? false
  }

  set(trip: BreakerTrip): void {
    let tenants = this.byHook.get(trip.hookId)
    if (!tenants) {
      tenants = new Map()
      this.byHook.set(trip.hookId, tenants)
    }
    tenants.set(trip.tenant, trip)
  }

  /** Removes one tenant's trip of a hook, or every tenant's when `tenant` is undefined. */
  delete(hookId: string, tenant?: string): void {
    if (tenant === undefined) {
      this.byHook.delete(hookId)
      return
    }
    const tenants = this.byHook.get(hookId)
    tenants?.delete(tenant)
    if (tenants?.size === 0) this.byHook.delete(hookId)
  }

  all(): BreakerTrip[] {
    const out: BreakerTrip[] = []
    for (const tenants of this.byHook.values()) out.push(...tenants.values())
    return out
  }
}

/** The in-process breaker state (the default). */
export class MemoryBreakerState implements BreakerState {
  private readonly failures = new Map<string, number[]>()
  private readonly trips = new TripTable()

  constructor(private readonly options: BreakerOptions = DEFAULT_BREAKER) {}

  openTrip(hookId: string, tenant = ''): BreakerTrip | undefined {
    return this.trips.get(hookId, tenant)
  }

  recordFailure(failure: BreakerFailure): BreakerTrip | undefined {
    const { hookId, tenant, at } = failure
    if (this.trips.has(hookId, tenant)) return undefined
    const key = failureKey(hookId, tenant)
    const since = at - this.options.windowMs
    const recent = (this.failures.get(key) ?? []).filter((t) => t > since)
    recent.push(at)
    this.failures.delete(key)
    if (recent.length < this.options.failures) {
      this.failures.set(key, recent)
      if (this.failures.size > MAX_COUNTED_BREAKERS) {
        const oldest = this.failures.keys().next()
        if (!oldest.done) this.failures.delete(oldest.value)
      }
      return undefined
    }
    const trip: BreakerTrip = {
      hookId,
      tenant,
      openedAt: at,
      failures: recent.length,
      lastError: failure.error,
    }
    this.trips.set(trip)
    return trip
  }

  reset(hookId: string, tenant?: string): void {
    this.trips.delete(hookId, tenant)
    if (tenant !== undefined) {
      this.failures.delete(failureKey(hookId, tenant))
      return
    }
    const prefix = failureKey(hookId, '')
    for (const key of this.failures.keys()) if (key.startsWith(prefix)) this.failures.delete(key)
  }

  /** Forgets the failures counted for a hook and tenant (the trip, if any, stays). */
  forget(hookId: string, tenant: string): void {
    this.failures.delete(failureKey(hookId, tenant))
  }

  openTrips(): BreakerTrip[] {
    return this.trips.all()
  }

  /** Restores a trip (used by stores that persist breaker state). */
  restore(trip: BreakerTrip): void {
    this.trips.set(trip)
  }
}
