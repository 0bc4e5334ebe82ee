// Circuit breaker state shared through the store: reads are synchronous from an in-memory
// mirror (the engine consults it on the hot path), the mirror is loaded at start and
// refreshed whenever any instance changes a breaker, so a tripped hook stays off across
// restarts and everywhere. Breakers are per hook and tenant. Failures are counted across
// every instance: each failure is written to the store (only failures, never a hook that
// answers), which opens the breaker when the failures of the window, wherever they
// happened, reach the threshold; each instance also counts its own, so a breaker still
// opens when the store cannot be reached. With `disableOnTrip` (GoClaw's breaker), a trip
// also switches the hook off in the store (`enabled = false` on a stored hook, an override
// for a hook from a file or the config, as hooks.list shows it) until hooks.toggle turns
// it back on, except a global hook tripped by one tenant's traffic: that one stays on for
// every other tenant, its breaker open for that tenant alone.

import {
  type BreakerFailure,
  type BreakerOptions,
  type BreakerState,
  type BreakerTrip,
  DEFAULT_BREAKER,
  errorMessage,
  MemoryBreakerState,
  TripTable,
} from '../core/index.js'
import type { BreakerRow, Store } from './types.js'

/** Options of {@link openStoreBreakerState}. */
export interface StoreBreakerOptions {
  breaker?: Partial<BreakerOptions>
  /** Told when a write or a refresh fails (the mirror stays as it is). */
  onError?: (error: Error) => void
  /**
   * Also switch the tripped hook off in the store (GoClaw's breaker): a stored hook's
   * `enabled` becomes false; a hook from a file or the config gets a disabled override
   * (which the management plane applies, and hooks.toggle lifts).
   */
  disableOnTrip?: boolean
  /** Told once per trip, after the hook was switched off in the store. */
  onDisabled?: (trip: BreakerTrip, how: 'stored' | 'override') => void
}

/** A change of this instance not yet written: kept over refreshes until it is. */
interface PendingChange {
  /** undefined = every tenant of the hook. */
  tenant?: string
  state: 'open' | 'closed'
  trip?: BreakerTrip
}

/** Breaker state backed by a store. */
export class StoreBreakerState implements BreakerState {
  private readonly counter: MemoryBreakerState
  private readonly limits: BreakerOptions
  private trips = new TripTable()
  /** Writes per hook, one after the other, with the changes they make. */
  private readonly pending = new Map<string, { changes: PendingChange[]; write: Promise<void> }>()
  private unwatch: (() => void) | undefined
  private refreshing: Promise<void> | undefined
  private again = false

  constructor(
    private readonly store: Store,
    private readonly options: StoreBreakerOptions = {},
  ) {
    this.limits = { ...DEFAULT_BREAKER, ...options.breaker }
    this.counter = new MemoryBreakerState(this.limits)
  }

  openTrip(hookId: string, tenant = ''): BreakerTrip | undefined {
    return this.trips.get(hookId, tenant)
  }

  recordFailure(failure: BreakerFailure): BreakerTrip | undefined | Promise<BreakerTrip | undefined> {
    const { hookId, tenant } = failure
    if (this.trips.has(hookId, tenant)) return undefined
    const local = this.counter.recordFailure(failure)
    if (local) {
      this.counter.reset(hookId, tenant)
      this.trips.set(local)
      this.persist(hookId, { tenant, state: 'open', trip: local }, () => this.store.saveBreaker(local))
      this.disable(local, failure.global)
      return local
    }
    let opened: BreakerTrip | undefined
    return this.persist(hookId, undefined, async () => {
      const row = await this.store.recordBreakerFailure({
        hookId,
        tenant,
        at: failure.at,
        error: failure.error,
        failures: this.limits.failures,
        windowMs: this.limits.windowMs,
      })
      if (!row || this.trips.has(hookId, tenant)) return
      opened = tripOf(row)
      this.counter.reset(hookId, tenant)
      this.trips.set(opened)
      this.disable(opened, failure.global)
    }).then(() => opened)
  }

  reset(hookId: string, tenant?: string): void {
    this.trips.delete(hookId, tenant)
    this.counter.reset(hookId, tenant)
    this.persist(hookId, { ...(tenant !== undefined ? { tenant } : {}), state: 'closed' }, () =>
      this.store.deleteBreaker(hookId, tenant),
    )
  }

  openTrips(): BreakerTrip[] {
    return this.trips.all()
  }

  /** Reloads the open breakers from the store (writes of this instance still pending win). */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true
      return this.refreshing
    }
    this.refreshing = (async () => {
      do {
        this.again = false
        try {
          const rows = await this.store.loadBreakers()
          const next = new TripTable()
          for (const row of rows) next.set(tripOf(row))
          for (const [hookId, { changes }] of this.pending) {
            for (const change of changes) {
              if (change.state === 'open' && change.trip) next.set(change.trip)
              else if (change.state === 'closed') next.delete(hookId, change.tenant)
            }
          }
          this.trips = next
        } catch (error) {
          this.options.onError?.(new Error(`could not load circuit breakers: ${errorMessage(error)}`))
        }
      } while (this.again)
    })().finally(() => {
      this.refreshing = undefined
    })
    return this.refreshing
  }

  /** Waits until every failure, trip and reset of this instance is written. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending.values()].map((p) => p.write))
  }

  /** Follows the store's change feed. */
  watch(): void {
    this.unwatch ??= this.store.watch((kind) => {
      if (kind === 'breakers') void this.refresh()
    })
  }

  /** Stops following the feed and waits for pending writes. */
  async close(): Promise<void> {
    this.unwatch?.()
    this.unwatch = undefined
    await this.flush()
  }

  /**
   * With `disableOnTrip`, switches the tripped hook off in the store, unless it is a global
   * hook tripped by a tenant's traffic (one tenant never switches off another's protection).
   */
  private disable(trip: BreakerTrip, global: boolean): void {
    if (!this.options.disableOnTrip || (global && trip.tenant !== '')) return
    this.persist(trip.hookId, undefined, async () => {
      const stored = await this.store.setHookEnabled(trip.hookId, false)
      if (!stored) await this.store.setHookOverride(trip.hookId, false)
      this.options.onDisabled?.(trip, stored ? 'stored' : 'override')
    })
  }

  /** Queues a write after the hook's others; never rejects (a failure is told to onError). */
  private persist(
    hookId: string,
    change: PendingChange | undefined,
    write: () => Promise<void>,
  ): Promise<void> {
    const previous = this.pending.get(hookId)
    const changes = [...(previous?.changes ?? []), ...(change ? [change] : [])]
    const entry = {
      changes,
      write: (previous?.write ?? Promise.resolve())
        .then(write)
        .catch((error: unknown) => {
          this.options.onError?.(
            new Error(`could not save the circuit breaker of hook "${hookId}": ${errorMessage(error)}`),
          )
        })
        .finally(() => {
          if (this.pending.get(hookId) === entry) this.pending.delete(hookId)
        }),
    }
    this.pending.set(hookId, entry)
    return entry.write
  }
}

/** A stored breaker as the engine sees it. */
function tripOf(row: BreakerRow): BreakerTrip {
  return {
    hookId: row.hookId,
    tenant: row.tenant ?? '',
    openedAt: row.openedAt,
    failures: row.failures,
    lastError: row.lastError,
  }
}

/** Loads the shared breaker state from a store and follows its changes. */
export async function openStoreBreakerState(
  store: Store,
  options: StoreBreakerOptions = {},
): Promise<StoreBreakerState> {
  const state = new StoreBreakerState(store, options)
  await state.refresh()
  state.watch()
  return state
}
