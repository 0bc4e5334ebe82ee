// Circuit breaker state shared through the store: reads are synchronous from an in-memory
// mirror (the engine consults it on the hot path), trips and resets are written through
// asynchronously, the mirror is loaded at start and refreshed whenever any instance
// changes a breaker. A tripped hook therefore stays off across restarts and everywhere.
// With `disableOnTrip` (GoClaw's breaker), a trip also switches the hook off in the store
// (`enabled = false` on a stored hook, an override for a hook from a file or the config, as
// hooks.list shows it) until hooks.toggle turns it back on.

import {
  type BreakerOptions,
  type BreakerState,
  type BreakerTrip,
  DEFAULT_BREAKER,
  errorMessage,
  MemoryBreakerState,
} from '../core/index.js'
import type { Store } from './types.js'

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

/** Breaker state backed by a store. */
export class StoreBreakerState implements BreakerState {
  private readonly counter: MemoryBreakerState
  private trips = new Map<string, BreakerTrip>()
  private readonly pending = new Map<string, { state: 'open' | 'closed'; write: Promise<void> }>()
  private unwatch: (() => void) | undefined
  private refreshing: Promise<void> | undefined
  private again = false

  constructor(
    private readonly store: Store,
    private readonly options: StoreBreakerOptions = {},
  ) {
    this.counter = new MemoryBreakerState({ ...DEFAULT_BREAKER, ...options.breaker })
  }

  openTrip(hookId: string): BreakerTrip | undefined {
    return this.trips.get(hookId)
  }

  recordFailure(hookId: string, now: number, error: string): BreakerTrip | undefined {
    if (this.trips.has(hookId)) return undefined
    const trip = this.counter.recordFailure(hookId, now, error)
    if (!trip) return undefined
    this.counter.reset(hookId)
    this.trips.set(hookId, trip)
    this.persist(hookId, 'open', () => this.store.saveBreaker(trip))
    if (this.options.disableOnTrip) {
      this.persist(hookId, 'open', async () => {
        const stored = await this.store.setHookEnabled(hookId, false)
        if (!stored) await this.store.setHookOverride(hookId, false)
        this.options.onDisabled?.(trip, stored ? 'stored' : 'override')
      })
    }
    return trip
  }

  reset(hookId: string): void {
    this.trips.delete(hookId)
    this.counter.reset(hookId)
    this.persist(hookId, 'closed', () => this.store.deleteBreaker(hookId))
  }

  openTrips(): BreakerTrip[] {
    return [...this.trips.values()]
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
          const next = new Map(rows.map((r) => [r.hookId, { ...r }]))
          for (const [hookId, { state }] of this.pending) {
            const mine = this.trips.get(hookId)
            if (state === 'open' && mine) next.set(hookId, mine)
            if (state === 'closed') next.delete(hookId)
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

  /** Waits until every trip and reset of this instance is written. */
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

  private persist(hookId: string, state: 'open' | 'closed', write: () => Promise<void>): void {
    const previous = this.pending.get(hookId)?.write ?? Promise.resolve()
    const entry = {
      state,
      write: previous
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
