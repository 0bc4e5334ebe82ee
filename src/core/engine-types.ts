// The engine's public contract: its options and limits, what a recorder receives, what
// callers pass to dispatch, and the Engine interface itself.

import { type BreakerOptions, type BreakerState, type BreakerTrip, DEFAULT_BREAKER } from './breaker.js'
import type { EventName } from './catalog.js'
import type { Decision, DecisionKind, HookTrace, SkipReason } from './decision.js'
import type {
  CheckedEvent,
  EventContext,
  JsonObject,
  ModifyCheck,
  OnCallerGone,
  ShapeCheck,
} from './events.js'
import type { HandlerFactory, HookDefinition, HookSpec } from './hook.js'
import type { Approver } from './outcome.js'
import type { EventView } from './selection.js'

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
  /**
   * Wait for a non-blocking event's hooks and return what they said (their added context and
   * trace), for callers that wait anyway (`warden check`, Claude Code input, SDK adapters).
   * The decision stays `allow`: a non-blocking event cannot be denied. Ignored for blocking
   * events, which are always awaited.
   */
  wait?: boolean
  /**
   * Checks a modify before it is recorded, for callers that can apply only some rewrites (a
   * gateway that may not change a JSON-RPC method or id): a string is why it cannot be
   * applied, and the decision becomes a deny with that reason (reasonCode `modify-refused`),
   * audited and counted as the deny the caller answers.
   */
  acceptModify?: ModifyCheck
  /**
   * How to learn that the caller stopped waiting (an HTTP connection closed): handed to the
   * approver with a held ask, so the approval can be marked abandoned at once.
   */
  onCallerGone?: OnCallerGone
  /**
   * `denials`: record the decision only when it denies, for a caller that checks one thing in
   * parts (a streamed answer's windows) and has its whole decision recorded once.
   */
  audit?: 'denials'
}

/** What one hook did for one event in a dry run ({@link Engine.dryRun}). */
export interface DryRunResult {
  /** The hook's verdict (after onError / onTimeout; no opinion counts as allow), or `skipped`. */
  decision: DecisionKind | 'skipped'
  /** The hook's reason, or why it was skipped. */
  reason?: string
  durationMs: number
  trace: HookTrace
  /** What the handler reported through `call.detail` (exit code, HTTP status, ...). */
  detail: Record<string, unknown>
  additionalContext: string[]
  /** The payload as given. */
  input: JsonObject
  /** The payload after a modify: present only when the decision is `modify`. */
  output?: JsonObject
  /** Why the hook did not run (matcher, if, scope). */
  skipped?: SkipReason
  /** What went wrong, when the hook failed, timed out or answered garbage. */
  error?: NonNullable<HookTrace['error']>
}

export interface EngineOptions {
  hooks?: HookDefinition[]
  handlers: HandlerFactory[]
  recorder?: Recorder
  approver?: Approver
  limits?: Partial<Limits>
  breaker?: BreakerState
  /**
   * Run order of one event's hooks: `priority` (default; lower first, ties by name) or
   * `registration` (the order hooks were registered, as loom runs them).
   */
  order?: 'priority' | 'registration'
}

/** The engine's public face. */
export interface Engine {
  dispatch(input: DispatchInput): Promise<Decision>
  /** Validates and adds a hook; with `replace`, an existing hook of the same id is replaced. */
  register(hook: HookDefinition, options?: { replace?: boolean }): HookSpec
  /**
   * Runs one hook definition once for an event, without registering it, and tells what it
   * did. Validated like {@link Engine.register}; runs even for a non-blocking event or a
   * disabled definition; its failures never trip (or touch) the engine's circuit breaker;
   * nothing is recorded and an `ask` is reported, not sent to the approver. Matcher, `if`
   * and scope still apply, as do the hook's timeout and the chain budget.
   * @throws WardenError `invalid-hook` / `unknown-handler` for a bad definition,
   *   `invalid-event` for an unknown or malformed event, `engine-closed` after close.
   */
  dryRun(hook: HookDefinition, input: DispatchInput): Promise<DryRunResult>
  /**
   * Validates a hook definition as `register` would (handler config included) without
   * registering it.
   * @throws WardenError `invalid-hook` / `unknown-handler` naming the field.
   */
  validate(hook: HookDefinition): HookSpec
  /** The handler types this engine can run. */
  handlerTypes(): string[]
  /** Removes a hook by id (its name, or `tenant/name`); true when it existed. */
  unregister(id: string): boolean
  /** The registered hooks, in run order per event. */
  hooks(): HookSpec[]
  /** Closes a hook's circuit breaker so it runs again: for one tenant, or every tenant when omitted. */
  resetBreaker(id: string, tenant?: string): void
  openBreakers(): BreakerTrip[]
  /** Waits for hooks still running for non-blocking events. */
  drain(): Promise<void>
  /** Drains, stops hooks in flight and releases handlers. Later dispatches are denied. */
  close(): Promise<void>
}

/** The context of an event dispatched without one (frozen: shared). */
export const EMPTY_CONTEXT: EventContext = Object.freeze({}) as EventContext

/** The event as the hooks and the recorder see it, once its name and shape are checked. */
export function checkedEvent(name: EventName, input: DispatchInput): CheckedEvent {
  const event: CheckedEvent = {
    event: name,
    payload: input.payload as JsonObject,
    context: input.context ?? EMPTY_CONTEXT,
  }
  if (input.acceptModify) event.acceptModify = input.acceptModify
  if (input.onCallerGone) event.onCallerGone = input.onCallerGone
  if (input.audit) event.audit = input.audit
  return event
}

/** An event name as a caller spelled it, resolved once by the engine. */
export interface ResolvedName {
  name: EventName
  blocking: boolean
  /** The event's hooks by tenant and agent; undefined when none is registered in any scope. */
  hooks: EventView | undefined
  check: ShapeCheck
  /** The deepest `context.depth` allowed (one less for `subagent.start`, which adds a level). */
  depthCap: number
}
