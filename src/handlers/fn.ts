// The `fn` handler: an in-process function supplied by an embedder, sync or async,
// returning a decision (a verdict, `{decision, reason, ...}`, or nothing for no opinion).
// Functions written for loom also work: their answers `{continue: false, reason}`,
// `{continue: true}` and `{output}` are read as loom reads them, and with `dialect: 'loom'`
// the function receives loom's context (`ctx.event` is the event name, `ctx.toolInput`,
// `ctx.sessionId`, ...).

import { type HandlerFactory, type HookCall, type JsonObject, WardenError } from '../core/index.js'

/** The function an `fn` hook runs. */
export type HookFunction = (call: HookCall) => unknown

/** What a `dialect: 'loom'` function receives: loom's hook context. */
export interface LoomHookContext {
  /** The event name (`tool.pre`, `session.start`, ...). */
  event: string
  hookName: string
  sessionId?: string
  turnId?: string
  toolName?: string
  toolInput?: unknown
  toolOutput?: unknown
  /** The event's payload, as modified by earlier hooks. */
  payload: JsonObject
  context: HookCall['event']['context']
  signal: AbortSignal
  log(line: string): void
}

/** `handler: { type: 'fn', fn, dialect?: 'warden' | 'loom' }`. */
export const fnHandler: HandlerFactory = {
  type: 'fn',
  prepare(config, hook) {
    const fn = config.fn
    if (typeof fn !== 'function') {
      throw new WardenError(
        'invalid-hook',
        `hook "${hook.name}": handler.fn must be a function (got ${typeof fn})`,
      )
    }
    const dialect = config.dialect ?? 'warden'
    if (dialect !== 'warden' && dialect !== 'loom') {
      throw new WardenError(
        'invalid-hook',
        `hook "${hook.name}": handler.dialect must be "warden" or "loom" (got ${JSON.stringify(dialect)})`,
      )
    }
    const run = fn as (arg: unknown) => unknown
    if (dialect === 'loom') return (call) => settle(run(loomContext(call)), call)
    return (call) => settle(run(call), call)
  },
}

/** Builds loom's hook context from a Warden hook call. */
export function loomContext(call: HookCall): LoomHookContext {
  const { event, hook } = call
  const tool = asObject(event.payload.tool)
  const ctx: LoomHookContext = {
    event: event.event,
    hookName: hook.name,
    payload: event.payload,
    context: event.context,
    signal: call.signal,
    log: (line) => call.log(line),
  }
  const sessionId = event.context.session?.id
  if (typeof sessionId === 'string') ctx.sessionId = sessionId
  if (typeof event.context.turnId === 'string') ctx.turnId = event.context.turnId
  if (tool) {
    if (typeof tool.name === 'string') ctx.toolName = tool.name
    ctx.toolInput = tool.input
    if (tool.output !== undefined) ctx.toolOutput = tool.output
  }
  return ctx
}

/** Reads the answer (awaiting a promise) in loom's shapes when it has no `type`/`decision`. */
function settle(answer: unknown, call: HookCall): unknown {
  if (answer instanceof Promise) return answer.then((value) => fromLoom(value, call))
  return fromLoom(answer, call)
}

/**
 * Loom's hook result as a Warden answer: `continue: false` blocks with its reason,
 * `output` is hook output the model sees and `additionalContext` fresh context (both added
 * context, never a rewrite), `continue: true` or `{}` allows. Answers with any other field
 * (`type`, `decision`, ...) pass through unchanged.
 */
export function fromLoom(answer: unknown, call: Pick<HookCall, 'hook'>): unknown {
  const raw = asObject(answer)
  if (!raw || raw.type !== undefined || raw.decision !== undefined) return answer
  if (!Object.keys(raw).every((key) => LOOM_KEYS.has(key))) return answer
  const context: string[] = []
  const extra = raw.additionalContext
  if (typeof extra === 'string') context.push(extra)
  else if (Array.isArray(extra)) context.push(...extra.map(String))
  if (raw.output !== undefined && raw.output !== null) {
    const text = typeof raw.output === 'string' ? raw.output : JSON.stringify(raw.output)
    context.push(`hook ${call.hook.name} output: ${text}`)
  }
  const withContext = context.length > 0 ? { additionalContext: context } : {}
  if (raw.continue === false) {
    const reason = typeof raw.reason === 'string' && raw.reason !== '' ? raw.reason : undefined
    return {
      type: 'deny',
      reason: reason ?? `hook ${call.hook.name} blocked the action`,
      ...withContext,
    }
  }
  return { type: 'allow', ...(typeof raw.reason === 'string' ? { reason: raw.reason } : {}), ...withContext }
}

/** The fields of loom's hook result: an answer holding only these is read as loom reads it. */
const LOOM_KEYS = new Set(['continue', 'reason', 'output', 'additionalContext'])

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}
