// Giving memory back after a burst. The garbage a burst of large bodies leaves (their
// socket chunks, copies and parsed strings) is only collected when the process allocates
// again, so a server that goes quiet after a burst would keep its peak size for as long
// as it stays quiet. Once a server has let enough bytes through and then had no request
// for a while, one full collection runs, and the memory goes back to the system. A server
// that stays busy never qualifies: its own allocations keep the collector running.

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { InFlightLimiter } from './limiter.js'

/** Full collections per burst, one per quiet period. */
const ROUNDS = 3

/** Settings of {@link settleAfterBursts}. */
export interface SettleOptions {
  /** How long the server must have had no request, in ms. Default 2000. */
  quietMs?: number
  /** Body bytes that must have gone through since the last collection. Default 8 MiB. */
  minBytes?: number
  /** Runs a full collection (default: V8's own, exposed for this). */
  collect?: () => void
}

/** A running settler. */
export interface Settler {
  /** Collections run so far. */
  collections(): number
  stop(): void
}

/**
 * Runs one full garbage collection after each burst that `limiter` let through, once quiet.
 * @returns the settler (its timer does not keep the process alive).
 */
export function settleAfterBursts(limiter: InFlightLimiter, options: SettleOptions = {}): Settler {
  const quietMs = options.quietMs ?? 2000
  const minBytes = options.minBytes ?? 8 * 1024 * 1024
  const collect = options.collect ?? fullCollector()
  let settledAt = limiter.bytesThrough()
  let runs = 0
  /** Collections still to run for the last burst: freed pages go back over a few rounds. */
  let rounds = 0
  const timer = setInterval(() => {
    if (!collect) return
    if (limiter.requests() > 0 || limiter.bytesElsewhere() > 0) return
    if (Date.now() - limiter.lastActivityAt() < quietMs) return
    if (limiter.bytesThrough() - settledAt >= minBytes) {
      settledAt = limiter.bytesThrough()
      rounds = ROUNDS
    }
    if (rounds === 0) return
    rounds--
    runs++
    collect()
  }, quietMs)
  timer.unref()
  return {
    collections: () => runs,
    stop: () => clearInterval(timer),
  }
}

/** V8's full collection: `gc` when the process has it, else exposed to a fresh context. */
function fullCollector(): (() => void) | undefined {
  const own = (globalThis as { gc?: () => void }).gc
  if (typeof own === 'function') return own
  try {
    setFlagsFromString('--expose-gc')
    const exposed = runInNewContext('gc') as unknown
    return typeof exposed === 'function' ? (exposed as () => void) : undefined
  } catch {
    return undefined
  }
}
