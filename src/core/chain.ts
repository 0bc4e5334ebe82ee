// The chain: runs the hooks that apply to one event in priority order, each seeing the
// payload as modified by the ones before, stopping at the first deny, and collecting
// asks, context and a per-hook trace. Selection (scope, matcher, `if`) happens here too,
// as do a hook's cap on runs per turn and, for hooks that ask for it, counting their
// denials toward the circuit breaker (GoClaw's breaker).

import type { BreakerState, BreakerTrip } from './breaker.js'
import { ConditionLimitError } from './cel.js'
import type { HookMeta, HookTrace, PolicyRef, Verdict } from './decision.js'
import { errorMessage, WardenError } from './errors.js'
import { type CheckedEvent, checkEventShape, type JsonObject } from './events.js'
import { observedVerdict } from './home-rules.js'
import {
  type HandlerFactory,
  type HookDefinition,
  type HookExecutor,
  type HookSpec,
  parseHookDefinition,
} from './hook.js'
import {
  type Condition,
  type ConditionVars,
  compileCondition,
  compileMatcher,
  conditionVars,
  type NameMatcher,
  scopeCovers,
} from './match.js'
import { failOpenError, failureVerdict, type HookRun, type InFlight, runHook } from './run-hook.js'
import { TurnCap, turnCapRefusal } from './turn-cap.js'

/** A hook ready to run: its spec, executor and compiled matcher / condition. */
export interface RegisteredHook {
  spec: HookSpec
  execute: HookExecutor
  handlerType: string
  matcher?: NameMatcher
  condition?: Condition
  /** The runs per turn, for a hook with `maxInvocationsPerTurn`. */
  turnCap?: TurnCap
}

/**
 * Validates a definition and prepares its handler, matcher and condition.
 * @throws WardenError `unknown-handler` when no handler has its type, `invalid-hook` naming
 *   the field when the definition, its handler config, matcher or `if` is invalid.
 */
export function prepareHook(
  definition: HookDefinition,
  handlers: ReadonlyMap<string, HandlerFactory>,
): RegisteredHook {
  const spec = parseHookDefinition(definition)
  const factory = handlers.get(spec.handler.type)
  if (!factory) {
    throw new WardenError(
      'unknown-handler',
      `hook "${spec.name}": handler.type "${spec.handler.type}" is not available; use one of ${[...handlers.keys()].join(', ')}`,
    )
  }
  const problem = factory.validateHook?.(spec)
  if (problem) throw new WardenError('invalid-hook', `hook "${spec.name}": ${problem}`)
  const entry: RegisteredHook = {
    spec,
    execute: factory.prepare(spec.handler, spec),
    handlerType: factory.type,
  }
  if (spec.maxInvocationsPerTurn !== undefined) entry.turnCap = new TurnCap(spec.maxInvocationsPerTurn)
  try {
    if (spec.matcher !== undefined) entry.matcher = compileMatcher(spec.matcher)
    if (spec.if !== undefined) entry.condition = compileCondition(spec.if)
  } catch (error) {
    throw new WardenError('invalid-hook', `hook "${spec.name}": ${errorMessage(error)}`)
  }
  return entry
}

/** What the chain produced, before asks are resolved. */
export interface ChainResult {
  payload: JsonObject
  modified: boolean
  denied?: { hook: HookSpec; verdict: Verdict & { reason?: string } }
  asks: { hook: HookSpec; reason: string }[]
  modifiers: HookSpec[]
  additionalContext: string[]
  trace: HookTrace[]
  policies: PolicyRef[]
  /** A hook with `blocks: true` denied: the decision stands even on an event that does not block. */
  blockedByHome?: true
}

/** What the chain needs from the engine. */
export interface ChainEnv {
  breaker: BreakerState
  inFlight: InFlight
  budgetMs: number
  onTrip(trip: BreakerTrip, hook: HookSpec): void
  /** Where handlers' `call.detail` goes: set for dry runs only. */
  detail?: Record<string, unknown>
}

/** The name `matcher` tests: the tool's name, else an MCP method. */
function matchTarget(payload: JsonObject): string | undefined {
  const tool = payload.tool
  if (tool && typeof tool === 'object' && !Array.isArray(tool) && typeof tool.name === 'string')
    return tool.name
  const mcp = payload.mcp
  if (mcp && typeof mcp === 'object' && !Array.isArray(mcp) && typeof mcp.method === 'string')
    return mcp.method
  return undefined
}

/** The clock, read once (the global is a getter in Node). */
const clock = globalThis.performance

/** Milliseconds rounded to the microsecond: the clock's real precision, and short in JSON. */
function microseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000
}

/**
 * Runs the chain for one event over hooks already sorted by priority, then name. The result
 * comes back synchronously when every hook that ran answered synchronously (no promise is
 * made), else as a promise.
 * @param started when the dispatch began (`performance.now()`): the budget counts from there.
 */
export function runChain(
  event: CheckedEvent,
  hooks: readonly RegisteredHook[],
  env: ChainEnv,
  started: number,
): ChainResult | Promise<ChainResult> {
  return drive(chainSteps(event, hooks, env, started), undefined)
}

/** The chain's steps: each asynchronous hook's pending verdict is yielded, to be sent back. */
type ChainSteps = Generator<Promise<Verdict>, ChainResult, Verdict>

/** Runs the steps, resuming after each asynchronous hook once its verdict is in. */
function drive(steps: ChainSteps, sent: Verdict | undefined): ChainResult | Promise<ChainResult> {
  const step = sent === undefined ? steps.next() : steps.next(sent)
  return step.done ? step.value : step.value.then((verdict) => drive(steps, verdict))
}

function* chainSteps(
  event: CheckedEvent,
  hooks: readonly RegisteredHook[],
  env: ChainEnv,
  started: number,
): ChainSteps {
  const result: ChainResult = {
    payload: event.payload,
    modified: false,
    asks: [],
    modifiers: [],
    additionalContext: [],
    trace: [],
    policies: [],
  }
  let current: CheckedEvent = event
  /** The tenant whose breakers apply ('' for an event without one); hooks never change it. */
  const tenant = typeof event.context.tenantId === 'string' ? event.context.tenantId : ''
  let vars: ConditionVars | undefined
  /** When the hook that ran last ended: the next hook starts then, saving a clock read. */
  let lastEnd: number | undefined
  /**
   * Where the budget counts from: the dispatch's start, moved on by the time shadow hooks
   * took, so a slow shadow hook never leaves the enforced ones less budget.
   */
  let budgetStart = started
  let stoppedByObserver = false
  for (let i = 0; i < hooks.length; i++) {
    const entry = hooks[i] as RegisteredHook
    const hook = entry.spec
    if (!scopeCovers(hook.scope, current)) continue
    const trace: HookTrace = {
      id: hook.id,
      hook: hook.name,
      handler: entry.handlerType,
      version: hook.version,
      outcome: 'skipped',
      durationMs: 0,
    }
    if (hook.policy) trace.policy = hook.policy
    if (hook.mode) trace.shadow = true
    if (hook.home) trace.home = hook.home
    if (result.denied || stoppedByObserver) {
      trace.skipped = 'chain-stopped'
      result.trace.push(trace)
      continue
    }
    if (!hook.enabled) {
      trace.skipped = 'disabled'
      result.trace.push(trace)
      continue
    }
    if (entry.matcher) {
      const target = matchTarget(current.payload)
      if (target === undefined || !entry.matcher(target)) {
        trace.skipped = target === undefined ? 'no-tool' : 'matcher'
        if (target !== undefined) trace.meta = META.notMatched
        result.trace.push(trace)
        continue
      }
      trace.meta = META.matched
    }
    const hookStart = lastEnd ?? clock.now()
    let verdict: Verdict | undefined
    const trip = env.breaker.openTrip(hook.id, tenant)
    if (trip) {
      verdict = failureVerdict(
        hook,
        hook.onError,
        `its circuit breaker is open since ${new Date(trip.openedAt).toISOString()} after ${trip.failures} failures (last: ${trip.lastError}); re-enable the hook to run it again`,
      )
      trace.error = { kind: 'breaker-open', message: `circuit breaker open: ${trip.lastError}` }
    } else if (entry.condition) {
      vars ??= conditionVars(current)
      try {
        if (!entry.condition(vars, conditionDeadline(hook, hookStart, budgetStart, env))) {
          trace.skipped = 'if'
          trace.meta = trace.meta ? META.matchedIfFalse : META.ifFalse
          result.trace.push(trace)
          lastEnd = undefined
          continue
        }
        trace.meta = trace.meta ? META.matchedIfTrue : META.ifTrue
      } catch (error) {
        const message = `its if expression failed: ${errorMessage(error).split('\n')[0]}`
        if (error instanceof ConditionLimitError) {
          verdict = failureVerdict(hook, hook.onTimeout, message)
          trace.error = { kind: 'timeout', message }
          countFailure(hook, tenant, message, env)
        } else {
          verdict = failureVerdict(hook, hook.onError, message)
          trace.error = { kind: 'error', message }
        }
      }
    }
    if (!verdict && entry.turnCap) {
      const refused = turnCapRefusal(entry.turnCap, hook, current)
      if (refused !== undefined) {
        verdict = failureVerdict(hook, hook.onError, refused)
        trace.error = { kind: 'turn-cap', message: refused }
      }
    }
    if (!verdict) {
      const pending = execute(entry, current, budgetStart, hookStart, env, trace, tenant)
      verdict = pending instanceof Promise ? yield pending : pending
      if (verdict.type === 'deny' && hook.breakerCountsBlocks && trace.error === undefined && !hook.mode)
        countBlock(hook, tenant, verdict.reason, env)
    }
    if (hook.blocks === false) {
      stoppedByObserver = verdict.type === 'deny' && hook.observedBlockEndsChain === true && !hook.mode
      verdict = observedVerdict(verdict, current.event)
    } else if (hook.blocks === true && verdict.type === 'deny' && !hook.mode) result.blockedByHome = true
    lastEnd = clock.now()
    trace.durationMs = microseconds(lastEnd - hookStart)
    trace.outcome = verdict.type
    if (verdict.reason !== undefined) trace.reason = verdict.reason
    const failedOpen = trace.error === undefined ? failOpenError(verdict) : undefined
    if (failedOpen) trace.error = failedOpen
    if (verdict.explicitAllow === true) trace.explicitAllow = true
    if (verdict.redact) trace.redact = verdict.redact
    result.trace.push(trace)
    if (hook.mode) {
      // Shadow: what it would have decided is in the trace; nothing of it is applied.
      budgetStart += lastEnd - hookStart
      if (verdict.type === 'modify') {
        const problem = checkEventShape(current.event, verdict.payload, current.context)
        if (problem) trace.error = { kind: 'invalid-answer', message: problem }
      }
      continue
    }
    if (verdict.additionalContext) result.additionalContext.push(...verdict.additionalContext)
    if (hook.policy && verdict.type !== 'abstain') result.policies.push(hook.policy)
    switch (verdict.type) {
      case 'deny':
        result.denied = { hook, verdict }
        break
      case 'ask':
        result.asks.push({ hook, reason: verdict.reason })
        break
      case 'modify': {
        const problem = checkEventShape(current.event, verdict.payload, current.context)
        if (problem) {
          const failed = failureVerdict(
            hook,
            hook.onError,
            `it modified the payload into an invalid one: ${problem}`,
          )
          trace.outcome = failed.type
          trace.reason = failed.reason ?? ''
          trace.error = { kind: 'invalid-answer', message: problem }
          if (failed.type === 'deny') result.denied = { hook, verdict: failed }
          break
        }
        current = { event: current.event, payload: verdict.payload, context: current.context }
        vars = undefined
        result.payload = verdict.payload
        result.modified = true
        result.modifiers.push(hook)
        break
      }
      default:
        break
    }
  }
  return result
}

/** When a hook's `if` must have finished: its timeout, or the end of the chain budget. */
function conditionDeadline(hook: HookSpec, hookStart: number, chainStart: number, env: ChainEnv): number {
  return Math.min(hookStart + hook.timeoutMs, chainStart + env.budgetMs)
}

/** Runs one hook within what is left of the budget; synchronous handlers stay synchronous. */
function execute(
  entry: RegisteredHook,
  event: CheckedEvent,
  chainStart: number,
  now: number,
  env: ChainEnv,
  trace: HookTrace,
  tenant: string,
): Verdict | Promise<Verdict> {
  const hook = entry.spec
  const remaining = env.budgetMs - (now - chainStart)
  if (remaining <= 0) {
    const message = `the chain budget of ${env.budgetMs} ms was used up before it ran`
    trace.error = { kind: 'timeout', message }
    return failureVerdict(hook, hook.onTimeout, message)
  }
  const limit = Math.min(hook.timeoutMs, Math.ceil(remaining))
  return runHook(
    hook,
    entry.execute,
    event,
    limit,
    env.inFlight,
    (run) => conclude(run, entry, env, trace, limit, tenant),
    env.detail,
  )
}

/** The matcher and `if` results a trace can carry, shared and frozen: no allocation per run. */
const META = {
  notMatched: Object.freeze({ matcherMatched: false }),
  matched: Object.freeze({ matcherMatched: true }),
  ifFalse: Object.freeze({ ifResult: false }),
  ifTrue: Object.freeze({ ifResult: true }),
  matchedIfFalse: Object.freeze({ matcherMatched: true, ifResult: false }),
  matchedIfTrue: Object.freeze({ matcherMatched: true, ifResult: true }),
} satisfies Record<string, HookMeta>

/** A hook's own denial counted toward its breaker (GoClaw: blocks trip it like timeouts). */
function countBlock(hook: HookSpec, tenant: string, reason: string, env: ChainEnv): void {
  countFailure(hook, tenant, `it blocked: ${reason.slice(0, 200)}`, env)
}

/** Counts a failure toward the hook's breaker for the tenant; a trip (now or later) is reported. */
function countFailure(hook: HookSpec, tenant: string, error: string, env: ChainEnv): void {
  const tripped = env.breaker.recordFailure({
    hookId: hook.id,
    tenant,
    global: hook.scope.tenant === undefined,
    at: Date.now(),
    error,
  })
  if (tripped instanceof Promise) {
    void tripped.then((trip) => {
      if (trip) env.onTrip(trip, hook)
    })
  } else if (tripped) env.onTrip(tripped, hook)
}

/** Turns what happened into the verdict, applying the failure policies and the breaker. */
function conclude(
  run: HookRun,
  entry: RegisteredHook,
  env: ChainEnv,
  trace: HookTrace,
  limit: number,
  tenant: string,
): Verdict {
  const hook = entry.spec
  if (run.logs) trace.logs = run.logs
  if (run.meta) trace.meta = trace.meta ? { ...trace.meta, ...run.meta } : run.meta
  if (run.kind === 'verdict') return run.verdict
  const message =
    run.kind === 'timeout'
      ? limit < hook.timeoutMs
        ? `${run.message} (the chain budget of ${env.budgetMs} ms was nearly used up)`
        : run.message
      : run.kind === 'invalid-answer'
        ? `it answered garbage: ${run.message}`
        : run.message
  trace.error = { kind: run.kind, message }
  countFailure(hook, tenant, message, env)
  return failureVerdict(hook, run.kind === 'timeout' ? hook.onTimeout : hook.onError, message)
}
