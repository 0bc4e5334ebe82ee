// loom's context fields as a Warden event: what a loom host passes to `run()` (toolName,
// toolInput, result, stopReason and the token counts, reason, code and message, ...) becomes
// the canonical payload and context, so every hook — loom's or Warden's — sees the same event.

import { type EventContext, type Json, type JsonObject, lookupEventName } from '../../core/index.js'
import { asInput, toJson } from '../decisions.js'
import { type ModelMetering, meteringFields } from '../metering.js'

/** The context fields loom passes with an event (any subset; each event reads its own). */
export interface LoomFields {
  event?: string
  turnIndex?: number
  sessionId?: string
  turnId?: string
  toolName?: string
  toolInput?: unknown
  /** tool.post: the tool's result (loom's name), or `toolOutput`. */
  result?: unknown
  toolOutput?: unknown
  isError?: boolean
  /** user.prompt.submit: the prompt (text or content blocks). */
  prompt?: unknown
  /** The prompt (user.message) or answer (agent.response) text. */
  text?: string
  model?: string
  messageCount?: number
  /** model.post: the model's answer. */
  response?: unknown
  stopReason?: string
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  costUsd?: number
  toolCallCount?: number
  /** model.post metering in one object (the same fields). */
  metering?: ModelMetering
  /** session.end: why the session ended. */
  reason?: string
  /** error: the machine code and message (or an Error / `{code, message}` as `error`). */
  code?: string
  message?: string
  error?: unknown
  /** A full payload, for events without the fields above. */
  payload?: JsonObject
  context?: EventContext
}

/** The canonical event name of a loom event name (or any alias). */
export function canonicalEvent(event: string): string {
  return lookupEventName(event) ?? event
}

/** The Warden context of loom's fields: session id, turn id and index over `context`. */
export function contextOf(fields: LoomFields): EventContext {
  const context: EventContext = { ...fields.context }
  if (fields.sessionId) context.session = { ...context.session, id: fields.sessionId }
  if (fields.turnId) context.turnId = fields.turnId
  if (typeof fields.turnIndex === 'number') context.turnIndex = fields.turnIndex
  return context
}

/** The Warden payload of a canonical event from loom's fields. */
export function payloadOf(event: string, fields: LoomFields): JsonObject {
  if (fields.payload) return fields.payload
  switch (event) {
    case 'tool.pre':
      return { tool: { name: fields.toolName ?? '', input: asInput(fields.toolInput) } }
    case 'tool.post': {
      const output = fields.result !== undefined ? fields.result : fields.toolOutput
      const tool: JsonObject = {
        name: fields.toolName ?? '',
        input: asInput(fields.toolInput),
        output: toJson(output),
      }
      if (fields.isError !== undefined) tool.isError = fields.isError
      return { tool }
    }
    case 'user.message':
      return { message: { role: 'user', text: fields.text ?? promptText(fields.prompt) } }
    case 'agent.response':
      return { message: { role: 'agent', text: fields.text ?? '' } }
    case 'model.pre': {
      const model: JsonObject = { messages: [] }
      if (fields.model) model.name = fields.model
      if (typeof fields.messageCount === 'number') model.messageCount = fields.messageCount
      return { model }
    }
    case 'model.post': {
      const model: JsonObject = {
        response: toJson(fields.response ?? fields.text ?? null),
        ...meteringFields(metering(fields)),
      }
      if (fields.model) model.name = fields.model
      return { model }
    }
    case 'session.start':
      return { session: fields.model ? { model: fields.model } : {} }
    case 'session.end':
      return { session: fields.reason ? { reason: fields.reason } : {} }
    case 'error':
      return { error: errorOf(fields) }
    default:
      return {}
  }
}

function metering(fields: LoomFields): ModelMetering {
  const out: ModelMetering = { ...fields.metering }
  if (fields.stopReason !== undefined) out.stopReason = fields.stopReason
  if (fields.inputTokens !== undefined) out.inputTokens = fields.inputTokens
  if (fields.outputTokens !== undefined) out.outputTokens = fields.outputTokens
  if (fields.totalTokens !== undefined) out.totalTokens = fields.totalTokens
  if (fields.costUsd !== undefined) out.costUsd = fields.costUsd
  if (fields.toolCallCount !== undefined) out.toolCalls = fields.toolCallCount
  return out
}

/** `{message, code}` from loom's `code` / `message`, or an Error or object given as `error`. */
function errorOf(fields: LoomFields): JsonObject {
  const given = fields.error
  const source =
    typeof given === 'object' && given !== null ? (given as { code?: unknown; message?: unknown }) : {}
  const message =
    fields.message ??
    (typeof source.message === 'string' ? source.message : typeof given === 'string' ? given : '')
  const code = fields.code ?? (typeof source.code === 'string' ? source.code : undefined)
  return code ? { message, code } : { message }
}

/** A prompt's text: a string, or the text parts of content blocks. */
function promptText(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt
  if (!Array.isArray(prompt)) return ''
  return prompt
    .map((block: Json) =>
      typeof block === 'object' && block !== null && !Array.isArray(block) && typeof block.text === 'string'
        ? block.text
        : '',
    )
    .join('')
}
