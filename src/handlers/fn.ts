// The `fn` handler: an in-process function supplied by an embedder, sync or async,
// returning a decision (a verdict, `{decision, reason, ...}`, or nothing for no opinion).
// Functions written for loom also work: their answers `{continue: false, reason}`,
// `{continue: true}` and `{output}` are read as loom reads them, and with `dialect: 'loom'`
// the function receives loom's context (`ctx.event` is the event name, `ctx.toolInput`,
// `ctx.sessionId`, `ctx.stopReason`, `ctx.reason`, ... as loom documents them).

import { type HandlerFactory, type HookCall, type JsonObject, WardenError } from '../core/index.js'
import { loomWireContext } from './loom-context.js'

/** The function an `fn` hook runs. */
export type HookFunction = (call: HookCall) => unknown

/** What a `dialect: 'loom'` function receives: loom's hook context. */
export interface LoomHookContext {
  /** The event name as loom spells it (`tool.pre`, `session.start`, `user.prompt.submit`, ...). */
  event: string
  hookName: string
  turnIndex: number
  sessionId?: string
  turnId?: string
  toolName?: string
  toolInput?: unknown
  toolOutput?: unknown
  /** tool.post: the tool's result as text, and whether it failed. */
  result?: string
  isError?: boolean
  /** model.pre / model.post / session.start: the model. */
  model?: string
  /** model.pre: the conversation's length. */
  messageCount?: number
  /** model.post: what loom meters, each only when reported. */
  stopReason?: string
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  costUsd?: number
  toolCallCount?: number
  /** user.prompt.submit: the prompt. */
  prompt?: string
  /** session.end: why the session ended (`end_turn`, `aborted`, `max_turns`, `error`, ...). */
  reason?: string
  /** error: the machine code and message, also as `error: {code, message}`. */
  code?: string
  message?: string
  error?: { code: string; message: string }
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
  const ctx = {
    ...loomWireContext(event),
    hookName: hook.name,
    payload: event.payload,
    context: event.context,
    signal: call.signal,
    log: (line: string) => call.log(line),
  } as unknown as LoomHookContext
  if (tool) {
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
