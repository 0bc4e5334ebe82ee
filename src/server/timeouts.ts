// The server's socket timeouts, derived from how long Warden may hold a request before it
// answers: a chain of hooks (limits.chainBudgetMs) followed by a human's approval
// (limits.approvalTimeoutMs). A connection silent for longer than its idle timeout is
// closed, so the idle timeout must outlast the longest hold, or an agent waiting for an
// approval would lose its connection with no answer.

import { DEFAULT_LIMITS, type Limits } from '../core/index.js'

/** Settings of {@link serverTimeouts}; every one has a default. */
export interface TimeoutSettings {
  /** The idle timeout of a connection that is not held longer (`server.idleTimeoutMs`). Default 60 000. */
  idleTimeoutMs?: number
  /** Longest time to receive a whole request, headers and body. Default 120 000. */
  requestTimeoutMs?: number
  /** Longest Warden may hold a request before answering, in ms (see {@link longestHoldMs}). */
  holdMs?: number
}

export const TIMEOUT_DEFAULTS = {
  idleTimeoutMs: 60_000,
  requestTimeoutMs: 120_000,
  /** Added to the longest hold: the time to record, send and transmit the answer. */
  marginMs: 30_000,
} as const

/** The Fastify timeouts a server uses. */
export interface ServerTimeouts {
  /** Idle time after which a connection is closed (Node's `server.timeout`). */
  connectionTimeout: number
  /** Longest time to receive a request (Node's `server.requestTimeout`). */
  requestTimeout: number
}

/** Longest Warden may hold a request: the chain's budget, then the approval's wait. */
export function longestHoldMs(
  limits: Partial<Pick<Limits, 'chainBudgetMs' | 'approvalTimeoutMs'>> = {},
): number {
  return (
    (limits.chainBudgetMs ?? DEFAULT_LIMITS.chainBudgetMs) +
    (limits.approvalTimeoutMs ?? DEFAULT_LIMITS.approvalTimeoutMs)
  )
}

/**
 * The server's timeouts: the idle timeout, raised past the longest hold plus a margin so
 * that a caller held for an approval always gets its answer.
 */
export function serverTimeouts(settings: TimeoutSettings = {}): ServerTimeouts {
  const idle = settings.idleTimeoutMs ?? TIMEOUT_DEFAULTS.idleTimeoutMs
  const hold = settings.holdMs ?? longestHoldMs()
  return {
    connectionTimeout: Math.max(idle, hold + TIMEOUT_DEFAULTS.marginMs),
    requestTimeout: settings.requestTimeoutMs ?? TIMEOUT_DEFAULTS.requestTimeoutMs,
  }
}
