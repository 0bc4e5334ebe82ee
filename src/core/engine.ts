// The engine: holds the registered hooks indexed by event, and answers `dispatch` with a
// decision after running the chain. It never throws to its caller: bad input, failing
// hooks and a closed engine all become decisions with the cause as the reason.

import { type BreakerTrip, DEFAULT_BREAKER, MemoryBreakerState } from './breaker.js'
import { isBlockingEvent, lookupEventName } from './catalog.js'
import { type ChainResult, prepareHook, type RegisteredHook, runChain } from './chain.js'
import { type Decision, type DecisionKind, refuseUnappliable, unrecordedReason } from './decision.js'
import { dryRun } from './dry-run.js'
import {
  checkedEvent,
  DEFAULT_LIMITS,
  type DispatchInput,
  EMPTY_CONTEXT,
  type Engine,
  type EngineOptions,
  type Limits,
  type ResolvedName,
} from './engine-types.js'
import { errorMessage, WardenError } from './errors.js'
import {
  type CheckedEvent,
  type EventContext,
  eventProblems,
  type JsonObject,
  shapeCheckFor,
} from './events.js'
import { backgroundHooks, blocksAtHome, heldHooks, thenVerify, wardenRefusal } from './home-rules.js'
import type { HookDefinition, HookSpec } from './hook.js'
import { DecisionIds, randomIdPrefix } from './ids.js'
import { cannotBlock, compose, type DecisionCore, resolveAsk } from './outcome.js'
import { InFlight } from './run-hook.js'
import { byPriorityThenName, HookIndex, inRegistrationOrder } from './selection.js'
import { payloadBytes } from './size.js'

/**
 * Creates an engine.
 * @throws WardenError when a hook definition is invalid or its handler type is unknown.
 */
export function createEngine(options: EngineOptions): Engine {
  const limits: Limits = {
    ...DEFAULT_LIMITS,
    ...options.limits,
    breaker: { ...DEFAULT_BREAKER, ...options.limits?.breaker },
  }
  const handlers = new Map(options.handlers.map((h) => [h.type, h]))
  const breaker = options.breaker ?? new MemoryBreakerState(limits.breaker)
  const runOrder = options.order === 'registration' ? inRegistrationOrder : byPriorityThenName
  /** The hooks, indexed by event and scope: a change touches only the hook's own place. */
  const registry = new HookIndex(runOrder)
  /** Names as callers spell them, resolved to the event, its blocking flag and its hooks. */
  const resolved = new Map<string, ResolvedName>()
  /** The name resolved last, checked before the map: callers mostly repeat one event. */
  let lastGiven: string | undefined
  let lastResolved: ResolvedName | undefined
  const background = new Set<Promise<void>>()
  const inFlight = new InFlight()
  const ids = new DecisionIds(randomIdPrefix())
  let closed = false

  const chainEnv = {
    breaker,
    inFlight,
    budgetMs: limits.chainBudgetMs,
    onTrip(trip: BreakerTrip, hook: HookSpec) {
      void Promise.resolve()
        .then(() => options.recorder?.breakerTripped?.(trip, hook))
        .catch(() => undefined)
    },
  }

  /** @throws WardenError when the definition or its handler config is invalid. */
  const prepare = (definition: HookDefinition): RegisteredHook => prepareHook(definition, handlers)

  /** After a hook changed: names resolve again, to the index's fresh views. */
  function forgetResolved(): void {
    resolved.clear()
    lastGiven = undefined
  }

  /** The decision once recorded: as it is without a recorder, else a promise. */
  function recorded(decision: Decision, event: CheckedEvent): Soon<Decision> {
    if (event.audit === 'denials' && decision.decision !== 'deny') return decision
    return options.recorder ? record(decision, event) : decision
  }

  async function record(decision: Decision, event: CheckedEvent): Promise<Decision> {
    if (!options.recorder) return decision
    try {
      await options.recorder.record({ decision, event })
      return decision
    } catch (error) {
      if (!decision.blocking) return decision
      const reason = unrecordedReason(errorMessage(error))
      return {
        ...decision,
        decision: 'deny',
        reason,
        reasonCode: ['audit'],
        trace: [...decision.trace, wardenRefusal(reason)],
        payload: undefined,
      } as Decision
    }
  }

  function early(
    id: string,
    event: CheckedEvent,
    decision: DecisionKind,
    reason: string,
    code: string,
    started: number,
  ): Soon<Decision> {
    const blocking = isBlockingEvent(event.event)
    const result: Decision = {
      id,
      event: event.event,
      decision: blocking ? decision : 'allow',
      reason,
      reasonCode: [code],
      additionalContext: [],
      policies: [],
      trace: blocking && decision === 'deny' && code !== 'invalid-event' ? [wardenRefusal(reason)] : [],
      durationMs: clock.now() - started,
      blocking,
    }
    return recorded(result, event)
  }

  /** Runs the chain and decides: synchronously when every hook was (no promise made). */
  function decide(
    id: string,
    event: CheckedEvent,
    hooks: readonly RegisteredHook[],
    started: number,
    blocking: boolean,
  ): Soon<Decision> {
    let result: ChainResult | Promise<ChainResult>
    try {
      result = runChain(event, hooks, chainEnv, started)
    } catch (error) {
      return chainFailed(id, event, started, error)
    }
    if (!(result instanceof Promise)) return conclude(id, event, result, started, blocking)
    return result.then(
      (done) => conclude(id, event, done, started, blocking),
      (error: unknown) => chainFailed(id, event, started, error),
    )
  }

  /** A chain that threw or rejected: a deny naming the cause. */
  function chainFailed(id: string, event: CheckedEvent, started: number, error: unknown): Soon<Decision> {
    const reason = `internal error while running hooks: ${errorMessage(error)}`
    return early(id, event, 'deny', reason, 'internal', started)
  }

  /** The decision for a chain's result; held asks go to the approver first (`core` then). */
  function conclude(
    id: string,
    event: CheckedEvent,
    result: ChainResult,
    started: number,
    blocking: boolean,
    resolved?: DecisionCore,
  ): Soon<Decision> {
    let core = resolved
    if (core === undefined) {
      if (!result.denied && result.asks.length > 0) {
        return resolveAsk(result, event, id, options.approver, limits.approvalTimeoutMs).then((asked) =>
          conclude(id, event, result, started, blocking, asked),
        )
      }
      core = compose(result)
    }
    const decision: Decision = {
      id,
      event: event.event,
      decision: core.decision,
      reason: core.reason,
      reasonCode: core.reasonCode,
      additionalContext: core.additionalContext,
      policies: core.policies,
      trace: result.trace,
      durationMs: clock.now() - started,
      blocking: blocking || result.blockedByHome === true,
    }
    if (core.payload !== undefined) decision.payload = core.payload
    if (core.approval !== undefined) decision.approval = core.approval
    if (event.acceptModify) return recorded(refuseUnappliable(decision, event.acceptModify), event)
    return recorded(decision, event)
  }

  function resolveName(given: string): ResolvedName | undefined {
    const name = lookupEventName(given)
    if (!name) return undefined
    const entry: ResolvedName = {
      name,
      blocking: isBlockingEvent(name),
      hooks: registry.view(name),
      check: shapeCheckFor(name),
      depthCap: name === 'subagent.start' ? limits.maxDepth - 1 : limits.maxDepth,
    }
    if (resolved.size < 10_000) resolved.set(given, entry)
    return entry
  }

  function invalid(id: string, reason: string): Soon<Decision> {
    const event: CheckedEvent = { event: 'custom.invalid', payload: {}, context: {} }
    return early(id, event, 'deny', reason, 'invalid-event', clock.now())
  }

  function unknownEvent(id: string, given: unknown): Soon<Decision> {
    return invalid(id, eventProblems.unknownName(given))
  }

  /** An event that failed its shape check, the engine being closed, or a depth over the cap. */
  function refused(id: string, entry: ResolvedName, input: DispatchInput, problem: string | undefined) {
    const context = (input.context ?? EMPTY_CONTEXT) as EventContext
    const name = entry.name
    const payload = (problem ? {} : input.payload) as JsonObject
    const event: CheckedEvent = { event: name, payload, context }
    const now = clock.now()
    if (problem) return early(id, event, 'deny', eventProblems.badShape(name, problem), 'invalid-event', now)
    if (closed) return early(id, event, 'deny', 'the engine is closed', 'engine-closed', now)
    const depth = context.depth ?? 0
    const shown = name === 'subagent.start' ? depth + 1 : depth
    const reason = `sub-agent depth ${shown} exceeds the cap of ${limits.maxDepth}`
    return early(id, event, 'deny', reason, 'depth-cap', now)
  }

  function dispatchUnchecked(input: DispatchInput): Soon<Decision> {
    const id = ids.next()
    if (typeof input !== 'object' || input === null) {
      return invalid(id, eventProblems.notAnObject(input))
    }
    const given = input.event
    let entry = lastResolved
    if (given !== lastGiven || entry === undefined) {
      entry = typeof given === 'string' ? (resolved.get(given) ?? resolveName(given)) : undefined
      if (entry === undefined) return unknownEvent(id, given)
      lastGiven = given
      lastResolved = entry
    }
    const context = input.context
    const problem = entry.check(input.payload, context)
    if (problem !== undefined || closed || (context?.depth ?? 0) > entry.depthCap) {
      return refused(id, entry, input, problem)
    }
    const { name, blocking, hooks: view } = entry
    if (view === undefined) {
      const decision: Decision = {
        id,
        event: name,
        decision: 'allow',
        reason: 'no hook applied to this event',
        reasonCode: NONE,
        additionalContext: NONE,
        policies: NONE as unknown as Decision['policies'],
        trace: NONE as unknown as Decision['trace'],
        durationMs: 0,
        blocking,
      }
      return options.recorder ? recorded(decision, checkedEvent(name, input)) : decision
    }
    const event = checkedEvent(name, input)
    const hooks = view.select(event.context)
    const started = clock.now()
    const size = payloadBytes(event.payload, limits.maxPayloadBytes)
    if (size > limits.maxPayloadBytes) {
      const reason = `the payload is ${size} bytes, over the cap of ${limits.maxPayloadBytes} bytes`
      return early(id, event, 'deny', reason, 'payload-too-large', started)
    }
    const apart = blocking ? backgroundHooks(hooks) : undefined
    if (apart) inBackground(decide(ids.next(), event, apart, started, false))
    if (blocking) return decide(id, event, apart ? heldHooks(hooks) : hooks, started, true)
    if (input.wait || hooks.some(blocksAtHome))
      return Promise.resolve(decide(id, event, hooks, started, false)).then(cannotBlock)
    inBackground(decide(id, event, hooks, started, false))
    return {
      id,
      event: name,
      decision: 'allow',
      reason: `${name} does not block; its hooks run in the background`,
      reasonCode: [],
      additionalContext: [],
      policies: [],
      trace: [],
      durationMs: clock.now() - started,
      blocking: false,
    }
  }

  /** Keeps a chain the caller does not wait for until it is recorded (`close` drains them). */
  function inBackground(decision: Soon<Decision>): void {
    const running = Promise.resolve(decision).then(() => undefined)
    background.add(running)
    void running.finally(() => background.delete(running))
  }

  const drain = async (): Promise<void> => {
    while (background.size > 0) await Promise.allSettled([...background])
  }
  /** AI Harness's delegation.post_verify (subagent.verify), when it has hooks. */
  const verifyAfterStop = (input: DispatchInput): Soon<Decision> | undefined =>
    registry.view('subagent.verify') ? dispatchUnchecked({ ...input, event: 'subagent.verify' }) : undefined
  /** Never throws: an unexpected failure is a deny naming it. Synchronous when it can be. */
  function dispatchNow(input: DispatchInput): Soon<Decision> {
    try {
      return thenVerify(dispatchUnchecked(input), input, verifyAfterStop)
    } catch (error) {
      return invalid(ids.next(), `internal error while dispatching: ${errorMessage(error)}`)
    }
  }

  function dispatch(input: DispatchInput): Promise<Decision> {
    const decision = dispatchNow(input)
    return decision instanceof Promise ? decision : Promise.resolve(decision)
  }

  for (const definition of options.hooks ?? []) {
    const entry = prepare(definition)
    if (registry.has(entry.spec.id)) {
      throw new WardenError(
        'duplicate-hook',
        `hook "${entry.spec.id}" is defined twice; hook names must be unique within their scope`,
      )
    }
    registry.set(entry)
  }

  const engine: Engine = {
    dispatch,
    register(definition, registerOptions) {
      const entry = prepare(definition)
      if (registry.has(entry.spec.id) && !registerOptions?.replace) {
        throw new WardenError(
          'duplicate-hook',
          `hook "${entry.spec.id}" is already registered; unregister it first or pass { replace: true }`,
        )
      }
      registry.set(entry)
      forgetResolved()
      return entry.spec
    },
    unregister(id) {
      const existed = registry.delete(id)
      if (existed) forgetResolved()
      return existed
    },
    hooks() {
      return [...registry.values()].sort(runOrder).map((e) => e.spec)
    },
    validate(definition) {
      return prepare(definition).spec
    },
    handlerTypes() {
      return [...handlers.keys()]
    },
    dryRun(definition, input) {
      return dryRun(definition, input, { prepare, inFlight, budgetMs: limits.chainBudgetMs, closed })
    },
    resetBreaker(id, tenant) {
      breaker.reset(id, tenant)
    },
    openBreakers() {
      return breaker.openTrips()
    },
    drain,
    async close() {
      closed = true
      const draining = drain()
      const grace = new Promise((resolve) => setTimeout(resolve, limits.chainBudgetMs).unref?.())
      await Promise.race([draining, grace])
      inFlight.abortAll('the engine is closing')
      for (const factory of handlers.values()) await factory.close?.()
    },
  }
  soonDispatchers.set(engine, dispatchNow)
  return engine
}

/** A value now, or a promise of it when something on the way was asynchronous. */
export type Soon<T> = T | Promise<T>

/** The synchronous-when-possible dispatch of each engine {@link createEngine} made. */
const soonDispatchers = new WeakMap<Engine, (input: DispatchInput) => Soon<Decision>>()

/**
 * `engine.dispatch`, but the decision comes back synchronously (no promise, no tick) when
 * every hook that ran and the recorder did; never throws. Other engines: their `dispatch`.
 */
export function dispatchSoon(engine: Engine, input: DispatchInput): Soon<Decision> {
  const soon = soonDispatchers.get(engine)
  return soon ? soon(input) : engine.dispatch(input)
}

/** The clock, read once (the global is a getter in Node). */
const clock = globalThis.performance
/** The shared empty list of decisions no hook took part in (frozen: read-only). */
const NONE = Object.freeze([]) as unknown as string[]
