// loom's hook context: the read-only, per-event object loom hands its hooks (an `fn` hook
// receives it as its argument; a `dialect: loom` command hook reads it as JSON on stdin).
// Each event carries the fields loom documents for it — `toolName` and `toolInput` on
// tool events, `result` and `isError` after a tool, `stopReason` and the token counts on
// `model.post`, `reason` on `session.end`, `code` and `message` on `error` — read from
// Warden's payload and context. A field Warden was not told is left out, never guessed.

import type { CheckedEvent, Json, JsonObject } from '../core/index.js'

/** loom's name for a canonical event (loom calls `user.message` `user.prompt.submit`). */
export function loomEventName(event: string): string {
  return event === 'user.message' ? 'user.prompt.submit' : event
}

/** loom's context for an event: the JSON a `dialect: loom` command reads on stdin. */
export function loomWireContext(event: Pick<CheckedEvent, 'event' | 'payload' | 'context'>): JsonObject {
  const { payload, context } = event
  const ctx: JsonObject = { event: loomEventName(event.event), turnIndex: turnIndexOf(context) }
  const sessionId = context.session?.id
  if (typeof sessionId === 'string') ctx.sessionId = sessionId
  if (typeof context.turnId === 'string') ctx.turnId = context.turnId
  const tool = objectAt(payload, 'tool')
  if (tool) {
    if (typeof tool.name === 'string') ctx.toolName = tool.name
    ctx.toolInput = objectAt(tool, 'input') ?? {}
    if (event.event === 'tool.post' || tool.output !== undefined) {
      ctx.result = resultText(tool.output)
      ctx.isError = tool.isError === true
    }
  }
  const model = objectAt(payload, 'model')
  if (model) Object.assign(ctx, modelFields(model))
  const message = objectAt(payload, 'message')
  if (message && event.event === 'user.message' && typeof message.text === 'string') ctx.prompt = message.text
  const session = objectAt(payload, 'session')
  if (session) {
    if (typeof session.reason === 'string') ctx.reason = session.reason
    if (typeof session.model === 'string') ctx.model = session.model
  }
  const error = objectAt(payload, 'error')
  if (error) {
    ctx.code = typeof error.code === 'string' && error.code !== '' ? error.code : 'UNKNOWN'
    ctx.message = typeof error.message === 'string' ? error.message : ''
    ctx.error = { code: ctx.code, message: ctx.message }
  }
  return ctx
}

/** `model.pre` / `model.post` fields: the model, the message count, what loom meters. */
function modelFields(model: JsonObject): JsonObject {
  const out: JsonObject = {}
  if (typeof model.name === 'string') out.model = model.name
  if (typeof model.messageCount === 'number') out.messageCount = model.messageCount
  else if (Array.isArray(model.messages)) out.messageCount = model.messages.length
  if (typeof model.stopReason === 'string') out.stopReason = model.stopReason
  const usage = objectAt(model, 'usage')
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens', 'costUsd'] as const) {
    const value = usage?.[key]
    if (typeof value === 'number') out[key] = value
  }
  if (typeof model.toolCalls === 'number') out.toolCallCount = model.toolCalls
  return out
}

/** loom's `turnIndex`: the context's own when numeric, else a numeric turnId, else 0. */
function turnIndexOf(context: CheckedEvent['context']): number {
  const given = context.turnIndex
  if (typeof given === 'number' && Number.isInteger(given) && given >= 0) return given
  if (typeof context.turnId === 'string' && /^\d{1,9}$/.test(context.turnId)) return Number(context.turnId)
  return 0
}

/** A tool's result as loom passes it: text (JSON for structured output). */
function resultText(output: Json | undefined): string {
  if (output === undefined || output === null) return ''
  return typeof output === 'string' ? output : JSON.stringify(output)
}

function objectAt(value: JsonObject, key: string): JsonObject | undefined {
  const found = value[key]
  return typeof found === 'object' && found !== null && !Array.isArray(found) ? found : undefined
}
