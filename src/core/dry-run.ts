// Dry runs: one hook definition run once for one event, outside the registry, for people
// writing or debugging hooks. It goes through the same chain code as dispatch (scope,
// matcher, `if`, the hook's timeout, the chain budget, onError / onTimeout), with a
// private breaker that never trips, no recorder, no approver, and `call.detail`
// collecting what the handler reports.

import type { BreakerState } from './breaker.js'
import { isOpenEventName, lookupEventName } from './catalog.js'
import { type ChainEnv, type RegisteredHook, runChain } from './chain.js'
import type { HookTrace, SkipReason } from './decision.js'
import type { DispatchInput, DryRunResult } from './engine-types.js'
import { WardenError } from './errors.js'
import {
  type CheckedEvent,
  type EventContext,
  eventProblems,
  type JsonObject,
  shapeCheckFor,
} from './events.js'
import type { HookDefinition, HookSpec } from './hook.js'
import { scopeCovers } from './match.js'
import type { InFlight } from './run-hook.js'

/** What a dry run needs from the engine. */
export interface DryRunEnv {
  /** The engine's own validation (the same handler factories as `register`). */
  prepare(definition: HookDefinition): RegisteredHook
  /** The engine's calls in flight, so that closing the engine stops a dry run too. */
  inFlight: InFlight
  budgetMs: number
  closed: boolean
}

/** The breaker of a dry run: failures are counted nowhere and never switch the hook off. */
const NEVER_TRIPS: BreakerState = {
  openTrip: () => undefined,
  recordFailure: () => undefined,
  reset: () => undefined,
  openTrips: () => [],
}

/** The clock, read once (the global is a getter in Node). */
const clock = globalThis.performance

const EMPTY_CONTEXT: EventContext = Object.freeze({}) as EventContext

function noop(): void {}

/**
 * Runs one hook definition once for an event and tells what it did.
 * @throws WardenError `invalid-hook` / `unknown-handler` for a bad definition,
 *   `invalid-event` for an event dispatch would refuse or one the hook is not for,
 *   `engine-closed` once the engine is closed.
 */
export async function dryRun(
  definition: HookDefinition,
  input: DispatchInput,
  env: DryRunEnv,
): Promise<DryRunResult> {
  const prepared = env.prepare(definition)
  const event = checkEvent(input)
  const spec = prepared.spec
  if (!hookIsFor(spec, event)) {
    throw new WardenError(
      'invalid-event',
      `hook "${spec.name}" is for ${spec.event} events, so it cannot run for ${event.event}; dry-run it with a ${spec.event} event`,
    )
  }
  if (env.closed) throw new WardenError('engine-closed', 'the engine is closed; dry runs need an open engine')
  // A disabled definition runs all the same: trying it out before turning it on is the point.
  const entry: RegisteredHook = spec.enabled ? prepared : { ...prepared, spec: { ...spec, enabled: true } }
  const started = clock.now()
  if (!scopeCovers(spec.scope, event)) {
    const trace: HookTrace = {
      id: spec.id,
      hook: spec.name,
      handler: entry.handlerType,
      version: spec.version,
      outcome: 'skipped',
      durationMs: 0,
      skipped: 'scope',
    }
    if (spec.policy) trace.policy = spec.policy
    return result(trace, spec, event, started, {}, [])
  }
  const detail: Record<string, unknown> = {}
  const chainEnv: ChainEnv = {
    breaker: NEVER_TRIPS,
    inFlight: env.inFlight,
    budgetMs: env.budgetMs,
    onTrip: noop,
    detail,
  }
  const chain = await runChain(event, [entry], chainEnv, started)
  const trace = chain.trace[0] as HookTrace
  const answer = result(trace, spec, event, started, detail, chain.additionalContext)
  if (chain.modified) answer.output = chain.payload
  return answer
}

/** Checks the event as dispatch does, throwing the reason dispatch would deny it with. */
function checkEvent(input: DispatchInput): CheckedEvent {
  if (typeof input !== 'object' || input === null) throw invalidEvent(eventProblems.notAnObject(input))
  const given: unknown = input.event
  const name = typeof given === 'string' ? lookupEventName(given) : undefined
  if (name === undefined) throw invalidEvent(eventProblems.unknownName(given))
  const problem = shapeCheckFor(name)(input.payload, input.context)
  if (problem !== undefined) throw invalidEvent(eventProblems.badShape(name, problem))
  return { event: name, payload: input.payload as JsonObject, context: input.context ?? EMPTY_CONTEXT }
}

function invalidEvent(message: string): WardenError {
  return new WardenError('invalid-event', message)
}

/** Whether dispatch would run the hook for the event (its own event, or the `custom.*` / `meta.*` wildcard). */
function hookIsFor(spec: HookSpec, event: CheckedEvent): boolean {
  if (spec.event === event.event) return true
  if (!isOpenEventName(event.event)) return false
  return spec.event === (event.event.startsWith('custom.') ? 'custom.*' : 'meta.*')
}

function result(
  trace: HookTrace,
  spec: HookSpec,
  event: CheckedEvent,
  started: number,
  detail: Record<string, unknown>,
  additionalContext: string[],
): DryRunResult {
  const answer: DryRunResult = {
    decision: trace.outcome === 'abstain' ? 'allow' : trace.outcome,
    durationMs: Math.round((clock.now() - started) * 1000) / 1000,
    trace,
    // A copy: a handler still winding down after a timeout may report more, too late.
    detail: { ...detail },
    additionalContext,
    input: event.payload,
  }
  const reason =
    trace.reason ??
    (trace.skipped
      ? skipReason(trace.skipped, spec)
      : trace.outcome === 'abstain'
        ? 'the hook had no opinion'
        : undefined)
  if (reason !== undefined) answer.reason = reason
  if (trace.skipped) answer.skipped = trace.skipped
  if (trace.error) answer.error = trace.error
  return answer
}

/** Why a hook was skipped, in words. */
function skipReason(skipped: SkipReason, spec: HookSpec): string {
  switch (skipped) {
    case 'matcher':
      return `its matcher ${JSON.stringify(spec.matcher)} does not match this event's tool`
    case 'no-tool':
      return 'it has a matcher, and this event names no tool (or MCP method) for it to test'
    case 'if':
      return `its if expression is false for this event`
    case 'scope':
      return "its scope does not cover this event's tenant and agent"
    default:
      return `skipped (${skipped})`
  }
}
