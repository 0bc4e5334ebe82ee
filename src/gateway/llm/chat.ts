// OpenAI Chat Completions (`POST …/chat/completions`) as the gateway sees it. The request is
// read in chat-request.ts, a streamed answer relayed in chat-stream.ts. An answer's texts
// are each choice's content (a string, or text and refusal parts, checked each and joined),
// its `refusal` and its audio transcript; its tool calls each choice's `tool_calls` and
// legacy `function_call`, keyed by position. A blocked tool call is removed and its reason
// added to the content (`finish_reason: tool_calls`/`function_call` becomes `stop` when no
// call is left); logprobs are removed when text is checked; an answer field, part or call
// of a type Warden does not know refuses the answer (chat-tables.ts).

import type { Json, JsonObject } from '../../core/index.js'
import type { UnknownTypePolicy } from '../kit/index.js'
import { type AnswerVerdicts, type AnswerView, type CallVerdict, isObject, type LlmApi } from './api.js'
import { chatCall, empty, rewrittenCall } from './chat-calls.js'
import { applyChatRequest, outputText, readChatRequest } from './chat-request.js'
import { ChatRelay } from './chat-stream.js'
import { CHAT_ANSWER_FIELDS, CHAT_PARTS, CHAT_TOOL_CALLS } from './chat-tables.js'
import { TypeCheck } from './item-types.js'
import { openAiErrorBody } from './openai-errors.js'

export { outputText }

/** The text of a message's content (a string, or its text parts joined). */
export function contentText(content: Json | undefined): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const texts = content.filter(
    (p): p is JsonObject =>
      isObject(p) && (p.type === 'text' || p.type === 'input_text') && typeof p.text === 'string',
  )
  return texts.length > 0 ? texts.map((p) => p.text as string).join('\n') : undefined
}

/** The content with its text replaced (text parts become one, where the first was). */
export function withText(content: Json | undefined, text: string): Json {
  if (!Array.isArray(content)) return text
  const out: Json[] = []
  let placed = false
  for (const part of content) {
    if (isObject(part) && (part.type === 'text' || part.type === 'input_text')) {
      if (!placed) out.push({ ...part, text })
      placed = true
    } else out.push(part)
  }
  return out
}

function choices(body: JsonObject): JsonObject[] {
  return Array.isArray(body.choices) ? body.choices.filter(isObject) : []
}

function readAnswer(body: JsonObject, policy?: UnknownTypePolicy): AnswerView {
  const types = new TypeCheck(policy, 502)
  const view: AnswerView = { texts: [], calls: [], groups: [] }
  if (body.choices !== undefined && !Array.isArray(body.choices)) types.refuse('choices is not a list')
  choices(body).forEach((choice, at) => {
    const c = String(choice.index ?? at)
    const message = choice.message
    if (!isObject(message)) {
      types.refuse(`choice ${c} has no message object`)
      return
    }
    for (const [field, value] of Object.entries(message))
      if (!empty(value)) types.allows(CHAT_ANSWER_FIELDS, field)
    if (!empty(choice.logprobs)) view.textCopies = true
    readContent(message.content, c, view, types)
    if (typeof message.refusal === 'string') view.texts.push({ key: `${c}.refusal`, text: message.refusal })
    if (isObject(message.audio) && typeof message.audio.transcript === 'string')
      view.texts.push({ key: `${c}.audio`, text: message.audio.transcript })
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : []
    calls.forEach((call, t) => {
      if (!types.allows(CHAT_TOOL_CALLS, isObject(call) ? call.type : undefined)) return
      const read = chatCall(call, `${c}.${t}`)
      if (typeof read === 'string') types.refuse(`${read}; Warden denies what it cannot read`)
      else view.calls.push(read)
    })
    if (!empty(message.function_call)) {
      const read = chatCall(
        { type: 'function', function: message.function_call as Json },
        `${c}.function_call`,
      )
      if (typeof read === 'string') types.refuse(`${read}; Warden denies what it cannot read`)
      else view.calls.push(read)
    }
  })
  if (isObject(body.usage)) view.usage = body.usage
  const refusal = types.refusal()
  if (refusal) view.refusal = refusal
  if (types.letThrough().length > 0) view.letThrough = types.letThrough()
  return view
}

function readContent(content: Json | undefined, c: string, view: AnswerView, types: TypeCheck): void {
  if (typeof content === 'string') {
    if (content !== '') view.texts.push({ key: c, text: content })
    return
  }
  if (!Array.isArray(content)) {
    if (content != null) types.refuse(`the content of choice ${c} is neither text nor parts`)
    return
  }
  const group: string[] = []
  content.forEach((part, p) => {
    const type = isObject(part) ? part.type : undefined
    if (!types.allows(CHAT_PARTS, type) || !isObject(part)) return
    const text = type === 'refusal' ? part.refusal : part.text
    if (typeof text !== 'string') {
      types.refuse(`a ${String(type)} part of choice ${c} has no text`)
      return
    }
    view.texts.push({ key: `${c}.${p}`, text })
    group.push(`${c}.${p}`)
  })
  view.groups?.push(group)
}

function applyAnswer(body: JsonObject, verdicts: AnswerVerdicts): JsonObject {
  choices(body).forEach((choice, at) => {
    const c = String(choice.index ?? at)
    if (verdicts.dropTextCopies && choice.logprobs != null) choice.logprobs = null
    const message = isObject(choice.message) ? choice.message : {}
    applyTexts(message, c, verdicts)
    const notes: string[] = []
    const kept: Json[] = []
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : []
    calls.forEach((call, t) => {
      const verdict = verdicts.calls.get(`${c}.${t}`)
      if (verdict?.kind === 'blocked') notes.push(verdict.text)
      else if (verdict?.kind === 'rewrite' && isObject(call)) kept.push(rewrittenCall(call, verdict.input))
      else kept.push(call)
    })
    const legacy = verdicts.calls.get(`${c}.function_call`)
    applyLegacy(message, choice, legacy, notes)
    if (notes.length > 0) addNotes(message, notes)
    if (!Array.isArray(message.tool_calls)) return
    if (kept.length > 0) message.tool_calls = kept
    else {
      delete message.tool_calls
      if (choice.finish_reason === 'tool_calls') choice.finish_reason = 'stop'
    }
  })
  return body
}

function applyTexts(message: JsonObject, c: string, verdicts: AnswerVerdicts): void {
  const text = verdicts.texts.get(c)
  if (text !== undefined) message.content = text
  if (Array.isArray(message.content)) {
    message.content = message.content.map((part, p): Json => {
      const next = verdicts.texts.get(`${c}.${p}`)
      if (next === undefined || !isObject(part)) return part
      return part.type === 'refusal' ? { ...part, refusal: next } : { ...part, text: next }
    })
  }
  const refusal = verdicts.texts.get(`${c}.refusal`)
  if (refusal !== undefined) message.refusal = refusal
  const transcript = verdicts.texts.get(`${c}.audio`)
  if (transcript !== undefined && isObject(message.audio)) {
    // The audio says what the transcript said: it goes, the checked transcript stays.
    const { data: _spoken, ...audio } = message.audio
    message.audio = { ...audio, transcript }
  }
}

function applyLegacy(
  message: JsonObject,
  choice: JsonObject,
  verdict: CallVerdict | undefined,
  notes: string[],
): void {
  if (!verdict || !isObject(message.function_call)) return
  if (verdict.kind === 'blocked') {
    notes.push(verdict.text)
    delete message.function_call
    if (choice.finish_reason === 'function_call') choice.finish_reason = 'stop'
  } else if (verdict.kind === 'rewrite')
    message.function_call = { ...message.function_call, arguments: JSON.stringify(verdict.input) }
}

function addNotes(message: JsonObject, notes: string[]): void {
  if (Array.isArray(message.content)) {
    message.content = [...message.content, ...notes.map((text): Json => ({ type: 'text', text }))]
    return
  }
  message.content = [typeof message.content === 'string' ? message.content : '', ...notes]
    .filter(Boolean)
    .join('\n')
}

/** OpenAI Chat Completions. */
export const chatApi: LlmApi = {
  name: 'chat',
  label: 'OpenAI Chat Completions',
  readRequest: readChatRequest,
  applyRequest: applyChatRequest,
  readAnswer,
  applyAnswer,
  errorBody: openAiErrorBody,
  relay: (checks) => new ChatRelay(checks),
}
