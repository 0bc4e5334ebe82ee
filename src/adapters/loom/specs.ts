// loom's hook specs as Warden hook definitions: `{type: 'fn', name, fn, timeoutMs}` and
// `{type: 'command', name, command, timeoutMs}` exactly as loom writes them, plus the
// abort signal a run is given (loom's `run(ctx, signal)`): a function hook racing an
// aborted run answers "Hook aborted", a command hook's process group is killed and it
// answers the same, so an abort always blocks, as in loom.

import { AsyncLocalStorage } from 'node:async_hooks'
import type { HandlerFactory, HookCall, HookDefinition, HookExecutor } from '../../core/index.js'
import { commandHandler, type LoomHookContext } from '../../handlers/index.js'

/** loom's `fn` spec. */
export interface LoomFnSpec {
  readonly type: 'fn'
  readonly name: string
  readonly fn: (ctx: LoomHookContext) => unknown
  readonly timeoutMs?: number
}

/** loom's `command` spec (a shell line; the context arrives as JSON on stdin). */
export interface LoomCommandSpec {
  readonly type: 'command'
  readonly name: string
  readonly command: string
  readonly timeoutMs?: number
  /** Environment variables passed to the command (Warden empties the rest but PATH and HOME). */
  readonly env?: readonly string[]
}

/** A hook spec as loom's `HookRegistry.register` takes it. */
export type LoomSpec = LoomFnSpec | LoomCommandSpec

/** What loom reports of one hook's run: its output and added context. */
export interface LoomHookOutcome {
  output?: string
  context?: string
}

/** A run in progress, seen by the hooks it starts: its abort signal and what each hook said. */
export interface RunScope {
  signal?: AbortSignal
  /** By Warden hook name. */
  outcomes: Map<string, LoomHookOutcome>
}

const runScope = new AsyncLocalStorage<RunScope>()

/** Runs `work` in `scope`: its hooks see the scope's signal and report into it. */
export function withRunScope<T>(scope: RunScope, work: () => Promise<T>): Promise<T> {
  return runScope.run(scope, work)
}

const ABORTED = { continue: false, reason: 'Hook aborted' } as const
const ABORTED_BEFORE_START = { continue: false, reason: 'Hook aborted before start' } as const

/** Whether a value is one of loom's specs (`type` fn or command with a name). */
export function isLoomSpec(value: unknown): value is LoomSpec {
  if (typeof value !== 'object' || value === null) return false
  const spec = value as { type?: unknown }
  return spec.type === 'fn' || spec.type === 'command'
}

/**
 * The Warden hook for one of loom's specs on an event, under a Warden name unique in its
 * engine (loom does not require unique names).
 * @throws Error naming the field when the spec is not one loom accepts.
 */
export function definitionOf(
  event: string,
  spec: LoomSpec,
  wardenName: string,
  observedBlockEndsChain = false,
): HookDefinition {
  const known = spec.type === 'fn' ? FN_KEYS : COMMAND_KEYS
  const unknown = Object.keys(spec).filter((key) => !known.has(key))
  if (unknown.length > 0)
    throw new Error(
      `loom ${spec.type} hook "${spec.name}": unknown field ${unknown.map((k) => `"${k}"`).join(', ')}`,
    )
  if (typeof spec.name !== 'string' || spec.name === '')
    throw new Error(`loom ${spec.type} hook: name is required (a string)`)
  const definition: HookDefinition = {
    name: wardenName,
    description: spec.name.slice(0, 1000),
    event,
    handler: { type: 'fn' },
  }
  if (spec.timeoutMs !== undefined) definition.timeoutMs = spec.timeoutMs
  if (observedBlockEndsChain) definition.observedBlockEndsChain = true
  if (spec.type === 'fn') {
    if (typeof spec.fn !== 'function')
      throw new Error(`loom fn hook "${spec.name}": fn must be a function (got ${typeof spec.fn})`)
    definition.handler = { type: 'fn', dialect: 'loom', fn: abortableFn(spec.fn) }
    return definition
  }
  if (typeof spec.command !== 'string' || spec.command.trim() === '')
    throw new Error(`loom command hook "${spec.name}": command must be a non-empty string`)
  definition.handler = { type: 'command', command: spec.command, shell: true, dialect: 'loom' }
  if (spec.env) definition.handler.env = [...spec.env]
  return definition
}

/** A Warden hook name for a loom hook name: its allowed characters, `-2`, `-3`… when taken. */
export function uniqueHookName(name: string, taken: (id: string) => boolean): string {
  const base =
    `${name}`
      .replace(/[^A-Za-z0-9._:@/-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 100) || 'hook'
  let id = base
  for (let n = 2; taken(id); n++) id = `${base}-${n}`
  return id
}

const FN_KEYS = new Set(['type', 'name', 'fn', 'timeoutMs'])
const COMMAND_KEYS = new Set(['type', 'name', 'command', 'timeoutMs', 'env'])

/**
 * A loom function that answers "Hook aborted" as soon as its run's signal aborts, and
 * reports its output and added context to the run.
 */
export function abortableFn(fn: (ctx: LoomHookContext) => unknown): (ctx: LoomHookContext) => unknown {
  return (ctx) => {
    const scope = runScope.getStore()
    if (!scope) return fn(ctx)
    const report = (answer: unknown) => {
      recordLoomResult(scope, ctx.hookName, answer)
      return answer
    }
    const signal = scope.signal
    if (signal?.aborted) return ABORTED_BEFORE_START
    return new Promise((resolve, reject) => {
      const onAbort = () => resolve(ABORTED)
      signal?.addEventListener('abort', onAbort, { once: true })
      Promise.resolve()
        .then(() => fn(ctx))
        .then((answer) => resolve(report(answer)), reject)
        .finally(() => signal?.removeEventListener('abort', onAbort))
    })
  }
}

/** Records loom's `output` and `additionalContext` of a function's answer. */
function recordLoomResult(scope: RunScope, hookName: string, answer: unknown): void {
  if (typeof answer !== 'object' || answer === null) return
  const { output, additionalContext } = answer as { output?: unknown; additionalContext?: unknown }
  const outcome: LoomHookOutcome = {}
  if (output !== undefined && output !== null)
    outcome.output = typeof output === 'string' ? output : JSON.stringify(output)
  if (typeof additionalContext === 'string') outcome.context = additionalContext
  else if (Array.isArray(additionalContext)) outcome.context = additionalContext.map(String).join('\n')
  if (outcome.output !== undefined || outcome.context !== undefined) scope.outcomes.set(hookName, outcome)
}

/** Records a command's output and added context from its verdict's context lines. */
function recordVerdict(scope: RunScope, hookName: string, answer: unknown): void {
  const lines = (answer as { additionalContext?: unknown } | undefined)?.additionalContext
  if (!Array.isArray(lines)) return
  const head = `hook ${hookName} output: `
  const outcome: LoomHookOutcome = {}
  const context: string[] = []
  for (const line of lines.map(String)) {
    if (line.startsWith(head)) outcome.output = line.slice(head.length)
    else context.push(line)
  }
  if (context.length > 0) outcome.context = context.join('\n')
  if (outcome.output !== undefined || outcome.context !== undefined) scope.outcomes.set(hookName, outcome)
}

/**
 * The command handler, its process group also killed when the run's signal aborts; an
 * aborted command answers loom's block "Hook aborted".
 */
export const abortableCommandHandler: HandlerFactory = {
  type: 'command',
  prepare(config, hook) {
    const execute = commandHandler.prepare(config, hook)
    return (call) => {
      const scope = runScope.getStore()
      if (!scope) return execute(call)
      if (scope.signal?.aborted) return denyAborted('Hook aborted before start')
      return runLinked(execute, call, scope)
    }
  },
}

async function runLinked(execute: HookExecutor, call: HookCall, scope: RunScope): Promise<unknown> {
  const external = scope.signal
  const linked: HookCall = {
    event: call.event,
    hook: call.hook,
    signal: external ? AbortSignal.any([call.signal, external]) : call.signal,
    log: (line) => call.log(line),
  }
  if (call.meta) linked.meta = (info) => call.meta?.(info)
  if (call.detail) linked.detail = (info) => call.detail?.(info)
  try {
    const answer = await execute(linked)
    if (external?.aborted) return denyAborted('Hook aborted')
    recordVerdict(scope, call.hook.name, answer)
    return answer
  } catch (error) {
    if (external?.aborted) return denyAborted('Hook aborted')
    throw error
  }
}

function denyAborted(reason: string) {
  return { type: 'deny', reason }
}
