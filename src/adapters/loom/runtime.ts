// A loom-style embedding for any agent loop in one object: `register(event, spec)` (loom's
// `{type: 'fn' | 'command', name, ...}` shapes, a bare function, or any Warden handler),
// `run(event, ctx, signal)` that never throws, the reminder channel (outcomes rendered as
// `<system-reminder>` text the host adds to its next model call) and tool interceptors
// (before / after, with input and result rewrite) for hosts that embed Warden in code.

import type { Decision, Engine, HookDefinition, Json, JsonObject } from '../../core/index.js'
import type { LoomHookContext } from '../../handlers/index.js'
import { type CreateEngineOptions, createEngine } from '../../index.js'
import { failClosed, type WardenBackend } from '../backend.js'
import { asInput, modifiedText, modifiedToolInput, modifiedToolOutput, systemReminder } from '../decisions.js'
import { canonicalEvent, contextOf, type LoomFields, payloadOf } from './payload.js'
import {
  abortableCommandHandler,
  definitionOf,
  isLoomSpec,
  type LoomSpec,
  uniqueHookName,
  withRunScope,
} from './specs.js'

/** What a loom hook function receives: the `fn` handler's loom dialect. */
export type { LoomHookContext }

/** What a loom hook function may return: loom's `{continue, reason, output}` or a Warden decision. */
export type LoomHookResult =
  | { continue?: boolean; reason?: string; output?: unknown; additionalContext?: string | string[] }
  | Record<string, unknown>
  | undefined

/** A hook as {@link LoomRuntime.register} takes it: loom's spec, a function, or a Warden-style spec. */
export type LoomHookSpec =
  | LoomSpec
  | ((ctx: LoomHookContext) => unknown)
  | (Omit<HookDefinition, 'event' | 'handler' | 'name'> & {
      name?: string
      /** A loom-style function: receives loom's context, returns a {@link LoomHookResult}, a Warden decision or nothing. */
      fn?: (ctx: LoomHookContext) => unknown
      /** Any Warden handler instead (command, http, script, ...). */
      handler?: HookDefinition['handler']
    })

/**
 * What the host passes to {@link LoomRuntime.run}: loom's context fields (`toolName`,
 * `toolInput`, `result`, `stopReason`, `inputTokens`, `reason`, `code`, `message`, ...).
 */
export type LoomRunContext = LoomFields

/** The outcome of one run: never an exception. */
export interface LoomOutcome {
  /** True when a hook blocked (deny). */
  blocked: boolean
  reason: string
  /** Tool input, output or message text after a modify. */
  input?: JsonObject
  output?: Json
  text?: string
  additionalContext: string[]
  /** The outcome as a `<system-reminder>` block ('' when nothing to say). */
  reminder: string
  decision: Decision
}

/** The result of a tool run through {@link LoomRuntime.runTool}. */
export type ToolRun<T> =
  | { status: 'ok'; output: T | Json; input: JsonObject }
  | { status: 'blocked'; reason: string; stage: 'before' | 'after' }

/** The runtime. */
export interface LoomRuntime {
  /** The engine hooks are registered in. */
  readonly engine: Engine
  /** Registers a hook for an event (canonical name or loom alias); returns its id. */
  register(event: string, spec: LoomHookSpec): string
  /**
   * Runs the hooks of an event. Never throws: a failure, a timeout or an abort of `signal`
   * is a blocked outcome with the cause (an aborted command hook's process is killed).
   */
  run(event: string, ctx?: LoomRunContext, signal?: AbortSignal): Promise<LoomOutcome>
  /** Runs a tool between tool.pre and tool.post: input and result may be rewritten, or the call blocked. */
  runTool<T>(
    name: string,
    input: unknown,
    execute: (input: JsonObject) => T | Promise<T>,
    ctx?: LoomRunContext,
  ): Promise<ToolRun<T>>
  /** Wraps a tool function so every call goes through {@link runTool}. */
  interceptor<T>(
    name: string,
    execute: (input: JsonObject) => T | Promise<T>,
  ): (input: unknown) => Promise<ToolRun<T>>
  /** The reminders gathered since the last call, as one text for the next model call ('' when none). */
  takeReminders(): string
}

let anonymous = 0

/**
 * Creates the runtime. Hooks run in registration order (as loom runs them) unless
 * `order` says otherwise. With `observedBlockEndsChain`, a block on `tool.post` or
 * `model.pre` also ends the chain there, as loom's runner does (default: later hooks run).
 */
export function createLoomRuntime(
  options: CreateEngineOptions & { engine?: Engine; observedBlockEndsChain?: boolean } = {},
): LoomRuntime {
  const { engine: given, handlers = [], observedBlockEndsChain = false, ...engineOptions } = options
  const engine =
    given ??
    createEngine({
      order: 'registration',
      ...engineOptions,
      handlers: [abortableCommandHandler, ...handlers.filter((h) => h.type !== 'command')],
    })
  const backend: WardenBackend = failClosed(engine)
  const pending: string[] = []

  function note(reminder: string): void {
    if (reminder) pending.push(reminder)
  }

  async function run(event: string, ctx: LoomRunContext = {}, signal?: AbortSignal): Promise<LoomOutcome> {
    const name = canonicalEvent(event)
    const scope = { outcomes: new Map(), ...(signal ? { signal } : {}) }
    const decision = await withRunScope(scope, () =>
      backend.dispatch({ event: name, payload: payloadOf(name, ctx), context: contextOf(ctx), wait: true }),
    )
    const outcome: LoomOutcome = {
      blocked: decision.decision === 'deny',
      reason: decision.reason,
      additionalContext: decision.additionalContext,
      reminder: systemReminder(decision),
      decision,
    }
    const input = modifiedToolInput(decision)
    if (input) outcome.input = input
    const output = modifiedToolOutput(decision)
    if (output) outcome.output = output.output
    const text = modifiedText(decision)
    if (text !== undefined) outcome.text = text
    note(outcome.reminder)
    return outcome
  }

  async function runTool<T>(
    name: string,
    input: unknown,
    execute: (input: JsonObject) => T | Promise<T>,
    ctx: LoomRunContext = {},
  ): Promise<ToolRun<T>> {
    const before = await run('tool.pre', { ...ctx, toolName: name, toolInput: input })
    if (before.blocked) return { status: 'blocked', reason: before.reason, stage: 'before' }
    const effective = before.input ?? asInput(input)
    let result: T
    try {
      result = await execute(effective)
    } catch (error) {
      await run('tool.post', {
        ...ctx,
        toolName: name,
        toolInput: effective,
        payload: { tool: { name, input: effective, output: String(error), isError: true } },
      })
      throw error
    }
    const after = await run('tool.post', { ...ctx, toolName: name, toolInput: effective, toolOutput: result })
    if (after.blocked) return { status: 'blocked', reason: after.reason, stage: 'after' }
    return { status: 'ok', output: after.output !== undefined ? after.output : result, input: effective }
  }

  return {
    engine,
    register(event, spec) {
      if (isLoomSpec(spec)) {
        const taken = new Set(engine.hooks().map((h) => h.id))
        return engine.register(
          definitionOf(
            event,
            spec,
            uniqueHookName(spec.name, (id) => taken.has(id)),
            observedBlockEndsChain,
          ),
        ).id
      }
      const base = typeof spec === 'function' ? { fn: spec } : spec
      const { fn, handler, name, ...rest } = base as Exclude<
        LoomHookSpec,
        LoomSpec | ((...args: never[]) => unknown)
      >
      const definition: HookDefinition = {
        ...(observedBlockEndsChain ? { observedBlockEndsChain } : {}),
        ...rest,
        name: name ?? `${event}-hook-${++anonymous}`,
        event,
        handler: handler ?? { type: 'fn', fn, dialect: 'loom' },
      }
      return engine.register(definition).id
    },
    run,
    runTool,
    interceptor: (name, execute) => (input) => runTool(name, input, execute),
    takeReminders() {
      const text = pending.join('\n')
      pending.length = 0
      return text
    },
  }
}
