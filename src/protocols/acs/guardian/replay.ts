// Replay protection of the ACS Guardian (§10.3): every request id and nonce remembered, per
// tenant and session, for twice the skew window; a second use is REPLAY_DETECTED (-32005), and a replay
// memory that is full refuses rather than forget an id still in the window. On a memory
// ledger the check is synchronous (nothing to wait for); on a database ledger it is awaited.

import type { AcsRequest } from '../core/index.js'
import {
  ACS_ERRORS,
  AcsError,
  type AcsLedger,
  ReplayMemoryFull,
  syncFormOf,
  tenantKey,
} from '../core/index.js'

/** Checks a request's id and nonce; undefined when done, a promise when the ledger is remote. */
export type ReplayCheck = (request: AcsRequest) => Promise<void> | undefined

function replayed(what: 'request_id' | 'nonce'): AcsError {
  return new AcsError(
    ACS_ERRORS.replayDetected,
    what === 'request_id'
      ? 'this request_id was already used in this session; send a new request_id (and nonce)'
      : 'this nonce was already used in this session; send a new nonce',
  )
}

function full(error: unknown): unknown {
  return error instanceof ReplayMemoryFull ? new AcsError(ACS_ERRORS.internal, error.message) : error
}

/**
 * The replay check over a ledger, remembering ids until `now() + windowMs`.
 * @throws AcsError -32005 for a replay, -32603 when the replay memory is full.
 */
export function createReplayCheck(ledger: AcsLedger, windowMs: number, now: () => number): ReplayCheck {
  const sync = syncFormOf(ledger)
  if (sync) {
    return (request) => {
      const t = now()
      const until = t + windowMs
      const session = tenantKey(request.tenant, request.sessionId)
      try {
        if (!sync.remember(`r:${session}:${request.requestId}`, until, t)) throw replayed('request_id')
        if (request.nonce !== undefined && !sync.remember(`n:${session}:${request.nonce}`, until, t))
          throw replayed('nonce')
      } catch (error) {
        throw full(error)
      }
      return undefined
    }
  }
  const remember = async (key: string, until: number, t: number) => {
    try {
      return await ledger.remember(key, until, t)
    } catch (error) {
      throw full(error)
    }
  }
  return async (request) => {
    const t = now()
    const until = t + windowMs
    const session = tenantKey(request.tenant, request.sessionId)
    if (!(await remember(`r:${session}:${request.requestId}`, until, t))) throw replayed('request_id')
    if (request.nonce !== undefined && !(await remember(`n:${session}:${request.nonce}`, until, t)))
      throw replayed('nonce')
  }
}
