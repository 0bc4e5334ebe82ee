// Anthropic Messages (`POST /v1/messages`) as the gateway sees it. A request's new user
// message is the text blocks of its last `user` message, its tool results the
// `tool_result` blocks there (named after the `tool_use` they answer); an answer's texts
// are its `text` blocks and its tool calls its `tool_use` blocks. A blocked tool call
// becomes a `text` block saying why (and `stop_reason: tool_use` becomes `end_turn` when
// no call is left); errors are `{type: "error", error: {type, message}}`.

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
  type ToolResultView,
} from './api.js'
import { TextGuard } from './text-guard.js'

/** The Anthropic error type of a status. */
function errorType(status: number): string {
  if (status === 400 || status === 413) return status === 413 ? 'request_too_large' : 'invalid_request_error'
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 429) return 'rate_limit_error'
  if (status === 504) return 'timeout_error'
  return 'api_error'
}

function errorBody(error: ApiErrorInfo): JsonObject {
  return { type: 'error', error: { type: errorType(error.status), message: error.message } }
}

function blocks(content: Json | undefined): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return Array.isArray(content) ? content.filter(isObject) : []
}

function lastUser(body: JsonObject): JsonObject | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : []
  const last = messages[messages.length - 1]
  return isObject(last) && last.role === 'user' ? last : undefined
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
  if (body.system !== undefined) view.system = body.system
  const last = lastUser(body)
  if (!last) return view
  const content = blocks(last.content)
  const texts = content.filter((b) => b.type === 'text' && typeof b.text === 'string')
  if (texts.length > 0) view.userText = texts.map((b) => b.text as string).join('\n')
  const names = toolNames(messages)
  for (const block of content) {
    if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue
    const result: ToolResultView = {
      id: block.tool_use_id,
      name: names.get(block.tool_use_id) ?? 'unknown',
      output: block.content ?? '',
    }
    if (block.is_error === true) result.isError = true
    view.toolResults.push(result)
  }
  return view
}

/** The names of the tool calls in a conversation, by id. */
function toolNames(messages: Json[]): Map<string, string> {
  const names = new Map<string, string>()
  for (const message of messages) {
    if (!isObject(message) || message.role !== 'assistant') continue
    for (const block of blocks(message.content)) {
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string')
        names.set(block.id, block.name)
    }
  }
  return names
}

function applyRequest(body: JsonObject, changes: RequestChanges): JsonObject {
  const last = lastUser(body)
  if (last && (changes.userText !== undefined || changes.toolOutputs.size > 0)) {
    if (typeof last.content === 'string' && changes.userText !== undefined) last.content = changes.userText
    else if (Array.isArray(last.content)) {
      const out: Json[] = []
      let placed = false
      for (const block of last.content) {
        if (isObject(block) && block.type === 'text' && changes.userText !== undefined) {
          if (!placed) out.push({ ...block, text: changes.userText })
          placed = true
          continue
        }
        if (isObject(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
          const output = changes.toolOutputs.get(block.tool_use_id)
          if (output !== undefined) {
            const content =
              typeof output === 'string' || Array.isArray(output) ? output : JSON.stringify(output)
            out.push({ ...block, content })
            continue
          }
        }
        out.push(block)
      }
      last.content = out
    }
  }
  if (changes.messages) body.messages = changes.messages
  if (changes.tools) body.tools = changes.tools
  if (changes.system !== undefined) body.system = changes.system
  return body
}

function readAnswer(body: JsonObject): AnswerView {
  const view: AnswerView = { texts: [], calls: [] }
  blocks(body.content).forEach((block, index) => {
    if (block.type === 'text' && typeof block.text === 'string')
      view.texts.push({ key: String(index), text: block.text })
    if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string')
      view.calls.push({ id: block.id, name: block.name, input: isObject(block.input) ? block.input : {} })
  })
  if (isObject(body.usage)) view.usage = body.usage
  return view
}

function applyAnswer(body: JsonObject, verdicts: AnswerVerdicts): JsonObject {
  let calls = 0
  const content = blocks(body.content).map((block, index): JsonObject => {
    const text = verdicts.texts.get(String(index))
    if (text !== undefined) return { ...block, text }
    if (block.type !== 'tool_use') return block
    const verdict = verdicts.calls.get(String(block.id))
    if (verdict?.kind === 'blocked') return { type: 'text', text: verdict.text }
    calls++
    return verdict?.kind === 'rewrite' ? { ...block, input: verdict.input } : block
  })
  body.content = content
  if (calls === 0 && body.stop_reason === 'tool_use') body.stop_reason = 'end_turn'
  return body
}

type Block =
  | { kind: 'text'; guard: TextGuard }
  | { kind: 'tool'; id: string; name: string; json: string; held: string[]; start: JsonObject }
  | { kind: 'other' }

/** The relay of one streamed Messages answer. */
class MessagesRelay implements StreamRelay {
  private readonly blocks = new Map<number, Block>()
  private readonly content: Json[] = []
  private calls = 0
  private blocked = 0
  private message: JsonObject = {}

  constructor(private readonly checks: StreamChecks) {}

  async event(event: SseEvent): Promise<RelayStep> {
    const raw = frame(event.data, event.type)
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      return garbage(event)
    }
    if (!isObject(data)) return garbage(event)
    const index = typeof data.index === 'number' ? data.index : -1
    switch (data.type) {
      case 'message_start':
        if (isObject(data.message)) this.message = { ...data.message }
        return [raw]
      case 'content_block_start':
        return this.start(index, data, raw)
      case 'content_block_delta':
        return this.delta(index, data, raw)
      case 'content_block_stop':
        return this.stop(index, raw)
      case 'message_delta': {
        const delta = isObject(data.delta) ? data.delta : {}
        if (isObject(data.usage)) this.message.usage = data.usage
        if (delta.stop_reason === 'tool_use' && this.calls > 0 && this.blocked === this.calls) {
          this.message.stop_reason = 'end_turn'
          return [
            frame(JSON.stringify({ ...data, delta: { ...delta, stop_reason: 'end_turn' } }), event.type),
          ]
        }
        if (typeof delta.stop_reason === 'string') this.message.stop_reason = delta.stop_reason
        return [raw]
      }
      default:
        return [raw]
    }
  }

  private start(index: number, data: JsonObject, raw: string): RelayStep {
    const block = isObject(data.content_block) ? data.content_block : {}
    if (block.type === 'tool_use') {
      this.blocks.set(index, {
        kind: 'tool',
        id: String(block.id ?? ''),
        name: String(block.name ?? ''),
        json: '',
        held: [raw],
        start: block,
      })
      return []
    }
    if (block.type === 'text') {
      this.blocks.set(index, { kind: 'text', guard: new TextGuard(this.checks) })
      return [raw]
    }
    this.blocks.set(index, { kind: 'other' })
    this.content[index] = block
    return [raw]
  }

  private async delta(index: number, data: JsonObject, raw: string): Promise<RelayStep> {
    const block = this.blocks.get(index)
    const delta = isObject(data.delta) ? data.delta : {}
    if (block?.kind === 'tool' && delta.type === 'input_json_delta') {
      block.json += typeof delta.partial_json === 'string' ? delta.partial_json : ''
      block.held.push(raw)
      return []
    }
    if (block?.kind !== 'text' || delta.type !== 'text_delta' || typeof delta.text !== 'string') return [raw]
    const step = await block.guard.push(delta.text)
    if (!step.ok) return { error: step.error }
    if (!this.checks.checkText) return [raw]
    return step.text === '' ? [] : [textDelta(index, step.text)]
  }

  private async stop(index: number, raw: string): Promise<RelayStep> {
    const block = this.blocks.get(index)
    if (block?.kind === 'text') {
      const step = await block.guard.finish()
      if (!step.ok) return { error: step.error }
      this.content[index] = { type: 'text', text: block.guard.out() }
      return step.text === '' ? [raw] : [textDelta(index, step.text), raw]
    }
    if (block?.kind !== 'tool') return [raw]
    const given = block.start.input
    const input =
      block.json === '' && isObject(given) && Object.keys(given).length > 0
        ? given
        : parseArguments(block.json)
    const verdict = await this.checks.call({ id: block.id, name: block.name, input })
    if (verdict.kind === 'blocked') {
      this.calls++
      this.blocked++
      this.content[index] = { type: 'text', text: verdict.text }
      const start = { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }
      return [frame(JSON.stringify(start), 'content_block_start'), textDelta(index, verdict.text), raw]
    }
    this.calls++
    if (verdict.kind === 'allow') {
      this.content[index] = { ...block.start, input }
      return [...block.held, raw]
    }
    this.content[index] = { ...block.start, input: verdict.input }
    const json = { type: 'input_json_delta', partial_json: JSON.stringify(verdict.input) }
    return [
      block.held[0] as string,
      frame(JSON.stringify({ type: 'content_block_delta', index, delta: json }), 'content_block_delta'),
      raw,
    ]
  }

  async end(): Promise<RelayStep> {
    return []
  }

  errorFrame(error: ApiErrorInfo): string {
    return frame(JSON.stringify(errorBody(error)), 'error')
  }

  summary(): JsonObject {
    return { ...this.message, content: this.content.filter((b) => b !== undefined) }
  }
}

function textDelta(index: number, text: string): string {
  return frame(
    JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
    'content_block_delta',
  )
}

function garbage(event: SseEvent): RelayStep {
  return {
    error: {
      status: 502,
      code: 'upstream_garbage',
      message: `the model API sent a streamed ${(event.type ?? 'data').slice(0, 40)} event that is not a JSON object`,
    },
  }
}

/** Anthropic Messages. */
export const anthropicApi: LlmApi = {
  name: 'anthropic',
  label: 'Anthropic Messages',
  readRequest,
  applyRequest,
  readAnswer,
  applyAnswer,
  errorBody,
  relay: (checks) => new MessagesRelay(checks),
}
