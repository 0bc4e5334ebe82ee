// The engine's public contract: its options and limits, what a recorder receives, what
// callers pass to dispatch, and the Engine interface itself.

import { type BreakerOptions, type BreakerState, type BreakerTrip, DEFAULT_BREAKER } from './breaker.js'
import type { Decision } from './decision.js'
import type { CheckedEvent, EventContext } from './events.js'
import type { HandlerFactory, HookDefinition, HookSpec } from './hook.js'
import type { Approver } from './outcome.js'

/** Engine limits; every one has a default. */
export interface Limits {
  /** Total time for one chain, in ms. Default 10 000. */
  chainBudgetMs: number
  /** Deepest sub-agent depth allowed. Default 3. */
  maxDepth: number
  /** Largest payload, as UTF-8 JSON bytes. Default 1 MiB. */
  maxPayloadBytes: number
  /** How long a held `ask` waits for the approver, in ms. Default 30 000. */
  approvalTimeoutMs: number
  breaker: BreakerOptions
}

export const DEFAULT_LIMITS: Limits = {
  chainBudgetMs: 10_000,
  maxDepth: 3,
  maxPayloadBytes: 1024 * 1024,
  approvalTimeoutMs: 30_000,
  breaker: DEFAULT_BREAKER,
}

/** What a recorder receives for every decision. */
export interface DecisionRecord {
  decision: Decision
  /** The event as dispatched (its original payload), after name resolution. */
  event: CheckedEvent
}

/** Receives decisions (an audit writer, a log). May return a promise: `dispatch` awaits it. */
export interface Recorder {
  record(record: DecisionRecord): void | Promise<void>
  /** A hook's circuit breaker opened. */
  breakerTripped?(trip: BreakerTrip, hook: HookSpec): void | Promise<void>
}

/** An event as callers pass it: any accepted name, a payload, an optional context. */
export interface DispatchInput {
  event: string
  payload: unknown
  context?: EventContext
}

export interface EngineOptions {
  hooks?: HookDefinition[]
  handlers: HandlerFactory[]
  recorder?: Recorder
  approver?: Approver
  limits?: Partial<Limits>
  breaker?: BreakerState
}

/** The engine's public face. */
export interface Engine {
  dispatch(input: DispatchInput): Promise<Decision>
  /** Validates and adds a hook; with `replace`, an existing hook of the same id is replaced. */
  register(hook: HookDefinition, options?: { replace?: boolean }): HookSpec
  /** Removes a hook by id (its name, or `tenant/name`); true when it existed. */
  unregister(id: string): boolean
  /** The registered hooks, in run order per event. */
  hooks(): HookSpec[]
  /** Closes a hook's circuit breaker so it runs again. */
  resetBreaker(id: string): void
  openBreakers(): BreakerTrip[]
  /** Waits for hooks still running for non-blocking events. */
  drain(): Promise<void>
  /** Drains, stops hooks in flight and releases handlers. Later dispatches are denied. */
  close(): Promise<void>
}
