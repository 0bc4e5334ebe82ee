// A Chat Completions request as the gateway sees it. Every message's role, content part and
// earlier tool call must be of a known type (chat-tables.ts), every offered tool too (the
// legacy `functions` count as `function` tools). Every user text is checked wherever it
// stands (each text part, and the parts joined), every `tool` and legacy `function` result
// too, keyed by position so a rewrite lands on the message it came from.

import type { Json, JsonObject } from '../../core/index.js'
import type { UnknownTypePolicy } from '../kit/index.js'
import { isObject, type RequestChanges, type RequestView, type ToolResultView } from './api.js'
import { CHAT_PARTS, CHAT_ROLES, CHAT_TOOL_CALLS, CHAT_TOOLS, CHAT_USER_PARTS } from './chat-tables.js'
import { type LlmItemTable, TypeCheck } from './item-types.js'

/** A tool output as the wire carries it (text, or JSON text). */
export function outputText(output: Json): Json {
  return typeof output === 'string' || Array.isArray(output) ? output : JSON.stringify(output)
}

function messagesOf(body: JsonObject): Json[] {
  return Array.isArray(body.messages) ? body.messages : []
}

/** Reads a Chat Completions request. */
export function readChatRequest(body: JsonObject, policy?: UnknownTypePolicy): RequestView {
  const types = new TypeCheck(policy, 400)
  const messages = messagesOf(body)
  const tools = Array.isArray(body.tools) ? body.tools : []
  const view: RequestView = { stream: body.stream === true, messages, tools, toolResults: [], userTexts: [] }
  if (typeof body.model === 'string') view.model = body.model
  if (body.messages !== undefined && !Array.isArray(body.messages)) types.refuse('messages must be a list')
  if (body.tools !== undefined && !Array.isArray(body.tools)) types.refuse('tools must be a list')
  for (const tool of tools) types.allows(CHAT_TOOLS, isObject(tool) ? tool.type : undefined)
  if (Array.isArray(body.functions)) {
    if (body.functions.length > 0) types.allows(CHAT_TOOLS, 'function')
    view.tools = [...tools, ...body.functions.map((f): Json => ({ type: 'function', function: f }))]
  } else if (body.functions !== undefined) types.refuse('functions must be a list')
  if (body.web_search_options != null) types.allows(CHAT_TOOLS, 'web_search')
  const names = new Map<string, string>()
  messages.forEach((message, at) => {
    if (!isObject(message)) {
      types.refuse(`messages[${at}] is not an object`)
      return
    }
    const role = message.role
    if (!types.allows(CHAT_ROLES, role)) return
    if (role === 'user') {
      readUser(message, at, view, types)
      return
    }
    if (role === 'tool' || role === 'function') {
      readResult(message, at, role, names, view, types)
      return
    }
    readParts(message.content, CHAT_PARTS, types)
    if (role !== 'assistant') return
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      if (!isObject(call) || !types.allows(CHAT_TOOL_CALLS, call.type)) continue
      const fn = isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : {}
      if (typeof call.id === 'string') names.set(call.id, String(fn.name ?? 'unknown'))
    }
  })
  const refusal = types.refusal()
  if (refusal) view.refusal = refusal
  const through = types.letThrough()
  if (through.length > 0) view.letThrough = through
  return view
}

/** Checks a content's parts are of known types; the text parts. */
function readParts(content: Json | undefined, table: LlmItemTable, types: TypeCheck): JsonObject[] {
  if (!Array.isArray(content)) return []
  const texts: JsonObject[] = []
  for (const part of content) {
    const type = isObject(part) ? part.type : undefined
    if (!types.allows(table, type) || !isObject(part)) continue
    if (type === 'text') {
      if (typeof part.text !== 'string') types.refuse('a text part has no text')
      else texts.push(part)
    }
  }
  return texts
}

function readUser(message: JsonObject, at: number, view: RequestView, types: TypeCheck): void {
  const texts = view.userTexts as NonNullable<RequestView['userTexts']>
  if (typeof message.content === 'string') {
    texts.push({ key: `${at}`, text: message.content })
    return
  }
  if (!Array.isArray(message.content)) {
    if (message.content != null) types.refuse(`the content of messages[${at}] is neither text nor parts`)
    return
  }
  const parts = message.content
  parts.forEach((part, p) => {
    const type = isObject(part) ? part.type : undefined
    if (!types.allows(CHAT_USER_PARTS, type) || !isObject(part) || type !== 'text') return
    if (typeof part.text !== 'string') {
      types.refuse(`messages[${at}] has a text part with no text`)
      return
    }
    texts.push({ key: `${at}.${p}`, text: part.text })
  })
  const own = parts.filter(
    (p): p is JsonObject => isObject(p) && p.type === 'text' && typeof p.text === 'string',
  )
  if (own.length > 1) texts.push({ key: `${at}.joined`, text: own.map((p) => p.text as string).join('') })
}

function readResult(
  message: JsonObject,
  at: number,
  role: 'tool' | 'function',
  names: Map<string, string>,
  view: RequestView,
  types: TypeCheck,
): void {
  readParts(message.content, CHAT_PARTS, types)
  const id = role === 'tool' ? String(message.tool_call_id ?? '') : ''
  const name = role === 'tool' ? (names.get(id) ?? 'unknown') : String(message.name ?? 'unknown')
  const result: ToolResultView = { id, name, output: message.content ?? '', key: `${at}` }
  view.toolResults.push(result)
}

/** The parts with their text parts made one, where the first was (a rewrite of the joined text). */
export function withJoinedText(parts: Json[], text: string): Json[] {
  const out: Json[] = []
  let placed = false
  for (const part of parts) {
    if (!isObject(part) || part.type !== 'text') out.push(part)
    else if (!placed) {
      out.push({ ...part, text })
      placed = true
    }
  }
  return out
}

/** Puts checked changes back into a Chat Completions request. */
export function applyChatRequest(body: JsonObject, changes: RequestChanges): JsonObject {
  const messages = messagesOf(body)
  const lastAt = messages.length - 1
  messages.forEach((message, at) => {
    if (!isObject(message)) return
    if (message.role === 'user') {
      const whole = changes.userTexts?.get(`${at}`) ?? (at === lastAt ? changes.userText : undefined)
      if (whole !== undefined && typeof message.content === 'string') message.content = whole
      if (!Array.isArray(message.content)) return
      message.content = message.content.map((part, p): Json => {
        const text = changes.userTexts?.get(`${at}.${p}`)
        return text !== undefined && isObject(part) ? { ...part, text } : part
      })
      const joined = changes.userTexts?.get(`${at}.joined`)
      if (joined !== undefined) message.content = withJoinedText(message.content, joined)
      return
    }
    if (message.role !== 'tool' && message.role !== 'function') return
    const output = changes.toolOutputs.get(`${at}`)
    if (output !== undefined) message.content = outputText(output)
  })
  if (changes.messages) body.messages = changes.messages
  if (changes.tools) body.tools = changes.tools
  return body
}
