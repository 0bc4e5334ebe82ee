// OpenAI Chat Completions (`POST …/chat/completions`) as the gateway sees it. A request's
// new user message is its last message when that is a `user` one; its tool results the
// `tool` messages after the last assistant message (named after the `tool_calls` they
// answer). An answer's texts are each choice's `message.content`, its tool calls each
// choice's `tool_calls`. A blocked tool call is removed and its reason added to the
// content (`finish_reason: tool_calls` becomes `stop` when no call is left). Streamed tool
// calls are held until the choice finishes, then released whole once checked.

import type { Json, JsonObject } from '../../core/index.js'
import type { SseEvent } from '../a2a/index.js'
import {
  type AnswerVerdicts,
  type AnswerView,
  type ApiErrorInfo,
  frame,
  isObject,
  type LlmApi,
  parseArguments,
  type RelayStep,
  type RequestChanges,
  type RequestView,
  type StreamChecks,
  type StreamRelay,
} from './api.js'
import { openAiErrorBody } from './openai-errors.js'
import { TextGuard } from './text-guard.js'

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

/** A tool output as the wire carries it (text, or JSON text). */
export function outputText(output: Json): Json {
  return typeof output === 'string' || Array.isArray(output) ? output : JSON.stringify(output)
}

function readRequest(body: JsonObject): RequestView {
  const messages = Array.isArray(body.messages) ? body.messages : []
  const view: RequestView = {
    stream: body.stream === true,
    messages,
    tools: Array.isArray(body.tools) ? body.tools : [],
    toolResults: [],
  }
  if (typeof body.model === 'string') view.model = body.model
  const last = messages[messages.length - 1]
  if (isObject(last) && last.role === 'user') {
    const text = contentText(last.content)
    if (text !== undefined) view.userText = text
  }
  const names = new Map<string, string>()
  for (const message of messages) {
    if (!isObject(message) || !Array.isArray(message.tool_calls)) continue
    for (const call of message.tool_calls) {
      if (isObject(call) && typeof call.id === 'string' && isObject(call.function))
        names.set(call.id, String(call.function.name ?? 'unknown'))
    }
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (!isObject(message) || message.role !== 'tool') {
      if (isObject(message) && message.role === 'assistant') break
      continue
    }
    const id = String(message.tool_call_id ?? '')
    view.toolResults.unshift({ id, name: names.get(id) ?? 'unknown', output: message.content ?? '' })
  }
  return view
}

function applyRequest(body: JsonObject, changes: RequestChanges): JsonObject {
  const messages = Array.isArray(body.messages) ? body.messages : []
  const last = messages[messages.length - 1]
  if (changes.userText !== undefined && isObject(last) && last.role === 'user')
    last.content = withText(last.content, changes.userText)
  for (const message of messages) {
    if (!isObject(message) || message.role !== 'tool') continue
    const output = changes.toolOutputs.get(String(message.tool_call_id ?? ''))
    if (output !== undefined) message.content = outputText(output)
  }
  if (changes.messages) body.messages = changes.messages
  if (changes.tools) body.tools = changes.tools
  return body
}

function choices(body: JsonObject): JsonObject[] {
  return Array.isArray(body.choices) ? body.choices.filter(isObject) : []
}

function readAnswer(body: JsonObject): AnswerView {
  const view: AnswerView = { texts: [], calls: [] }
  for (const choice of choices(body)) {
    const message = isObject(choice.message) ? choice.message : {}
    if (typeof message.content === 'string' && message.content !== '')
      view.texts.push({ key: String(choice.index ?? 0), text: message.content })
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      if (!isObject(call) || !isObject(call.function) || typeof call.id !== 'string') continue
      const args = typeof call.function.arguments === 'string' ? call.function.arguments : ''
      view.calls.push({ id: call.id, name: String(call.function.name ?? ''), input: parseArguments(args) })
    }
  }
  if (isObject(body.usage)) view.usage = body.usage
  return view
}

function applyAnswer(body: JsonObject, verdicts: AnswerVerdicts): JsonObject {
  for (const choice of choices(body)) {
    const message = isObject(choice.message) ? choice.message : {}
    const text = verdicts.texts.get(String(choice.index ?? 0))
    if (text !== undefined) message.content = text
    if (!Array.isArray(message.tool_calls)) continue
    const notes: string[] = []
    const kept: Json[] = []
    for (const call of message.tool_calls) {
      const verdict = isObject(call) ? verdicts.calls.get(String(call.id)) : undefined
      if (verdict?.kind === 'blocked') notes.push(verdict.text)
      else if (verdict?.kind === 'rewrite' && isObject(call) && isObject(call.function))
        kept.push({ ...call, function: { ...call.function, arguments: JSON.stringify(verdict.input) } })
      else kept.push(call)
    }
    if (notes.length > 0) {
      message.content = [typeof message.content === 'string' ? message.content : '', ...notes]
        .filter(Boolean)
        .join('\n')
    }
    if (kept.length > 0) message.tool_calls = kept
    else {
      delete message.tool_calls
      if (choice.finish_reason === 'tool_calls') choice.finish_reason = 'stop'
    }
  }
  return body
}

interface StreamedChoice {
  guard: TextGuard
  calls: Map<number, { id: string; name: string; args: string }>
}

/** The relay of one streamed Chat Completions answer. */
class ChatRelay implements StreamRelay {
  private readonly choices = new Map<number, StreamedChoice>()
  private readonly finished = new Map<number, JsonObject>()
  private base: JsonObject = {}
  private usage: Json | undefined

  constructor(private readonly checks: StreamChecks) {}

  async event(event: SseEvent): Promise<RelayStep> {
    const raw = frame(event.data, event.type)
    if (event.data === '[DONE]') {
      const rest = await this.end()
      return Array.isArray(rest) ? [...rest, raw] : rest
    }
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      return garbage()
    }
    if (!isObject(data)) return garbage()
    if (data.error !== undefined || !Array.isArray(data.choices)) return [raw]
    if (isObject(data.usage)) this.usage = data.usage
    const { choices: list, ...base } = data
    this.base = base
    const plain = list.every(
      (c) => isObject(c) && isObject(c.delta) && c.delta.tool_calls === undefined && c.finish_reason == null,
    )
    if (!this.checks.checkText && plain) {
      for (const c of list)
        if (isObject(c) && isObject(c.delta)) void this.choice(c).guard.push(String(c.delta.content ?? ''))
      return [raw]
    }
    const out: string[] = []
    for (const item of list) {
      if (!isObject(item)) continue
      const step = await this.handle(item)
      if (!Array.isArray(step)) return step
      out.push(...step)
    }
    return out
  }

  private choice(item: JsonObject): StreamedChoice {
    const index = typeof item.index === 'number' ? item.index : 0
    let choice = this.choices.get(index)
    if (!choice) {
      choice = { guard: new TextGuard(this.checks), calls: new Map() }
      this.choices.set(index, choice)
    }
    return choice
  }

  private async handle(item: JsonObject): Promise<RelayStep> {
    const index = typeof item.index === 'number' ? item.index : 0
    const choice = this.choice(item)
    const delta = isObject(item.delta) ? item.delta : {}
    const out: string[] = []
    const { content, tool_calls: calls, ...rest } = delta
    if (typeof content === 'string') {
      const step = await choice.guard.push(content)
      if (!step.ok) return { error: step.error }
      if (step.text !== '' || Object.keys(rest).length > 0)
        out.push(this.chunk(index, { ...rest, content: step.text }))
    } else if (Object.keys(rest).length > 0) out.push(this.chunk(index, rest))
    for (const call of Array.isArray(calls) ? calls : []) {
      if (!isObject(call)) continue
      const at = typeof call.index === 'number' ? call.index : 0
      const held = choice.calls.get(at) ?? { id: '', name: '', args: '' }
      const fn = isObject(call.function) ? call.function : {}
      if (typeof call.id === 'string') held.id = call.id
      if (typeof fn.name === 'string') held.name += fn.name
      if (typeof fn.arguments === 'string') held.args += fn.arguments
      choice.calls.set(at, held)
    }
    if (item.finish_reason == null) return out
    const last = await choice.guard.finish()
    if (!last.ok) return { error: last.error }
    const notes: string[] = []
    const kept: JsonObject[] = []
    for (const call of [...choice.calls.values()]) {
      const verdict = await this.checks.call({
        id: call.id,
        name: call.name,
        input: parseArguments(call.args),
      })
      if (verdict.kind === 'blocked') notes.push(verdict.text)
      else {
        const args = verdict.kind === 'rewrite' ? JSON.stringify(verdict.input) : call.args
        kept.push({
          index: kept.length,
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: args },
        })
      }
    }
    const extra = [last.text, ...notes.map((n) => (choice.guard.out() || last.text ? `\n${n}` : n))].join('')
    if (extra !== '') out.push(this.chunk(index, { content: extra }))
    if (kept.length > 0) out.push(this.chunk(index, { tool_calls: kept }))
    const reason = item.finish_reason === 'tool_calls' && kept.length === 0 ? 'stop' : item.finish_reason
    const summary: JsonObject = {
      index,
      message: {
        role: 'assistant',
        content: choice.guard.out() + extra,
        ...(kept.length ? { tool_calls: kept } : {}),
      },
      finish_reason: reason as Json,
    }
    this.finished.set(index, summary)
    out.push(this.chunk(index, {}, reason as Json))
    return out
  }

  private chunk(index: number, delta: JsonObject, finish: Json = null): string {
    return frame(JSON.stringify({ ...this.base, choices: [{ index, delta, finish_reason: finish }] }))
  }

  /** Choices the upstream never finished: their held text and tool calls, checked. */
  async end(): Promise<RelayStep> {
    const out: string[] = []
    for (const index of this.choices.keys()) {
      if (this.finished.has(index)) continue
      const step = await this.handle({ index, delta: {}, finish_reason: 'stop' })
      if (!Array.isArray(step)) return step
      out.push(...step.slice(0, -1))
    }
    return out
  }

  errorFrame(error: ApiErrorInfo): string {
    return frame(JSON.stringify(openAiErrorBody(error)))
  }

  summary(): JsonObject {
    const out: JsonObject = { ...this.base, object: 'chat.completion', choices: [...this.finished.values()] }
    if (this.usage !== undefined) out.usage = this.usage
    return out
  }
}

function garbage(): RelayStep {
  return {
    error: {
      status: 502,
      code: 'upstream_garbage',
      message: 'the model API sent a streamed chunk that is not a JSON object',
    },
  }
}

/** OpenAI Chat Completions. */
export const chatApi: LlmApi = {
  name: 'chat',
  label: 'OpenAI Chat Completions',
  readRequest,
  applyRequest,
  readAnswer,
  applyAnswer,
  errorBody: openAiErrorBody,
  relay: (checks) => new ChatRelay(checks),
}
