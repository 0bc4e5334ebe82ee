// The relay of one streamed Chat Completions answer. Each chunk's delta fields must be of
// known types (chat-tables.ts) or the stream ends naming the field. Text and refusal deltas
// go through a TextGuard each; tool calls (by their position `index`) and the legacy
// `function_call` are held until the choice finishes, then checked (`tool.pre`) and released
// whole, rewritten, or replaced by a text saying why. When text is checked, chunks are
// rebuilt from the fields Warden knows, so logprobs (copies of the text) never go out.

import type { Json, JsonObject } from '../../core/index.js'
import type { SseEvent } from '../a2a/index.js'
import {
  type ApiErrorInfo,
  frame,
  isObject,
  type RelayStep,
  type StreamChecks,
  type StreamRelay,
  type ToolCallView,
} from './api.js'
import { chatCall, empty, rewrittenCall } from './chat-calls.js'
import { CHAT_ANSWER_FIELDS, CHAT_TOOL_CALLS } from './chat-tables.js'
import { TypeCheck } from './item-types.js'
import { openAiErrorBody } from './openai-errors.js'
import { TextGuard } from './text-guard.js'

interface HeldCall {
  type: string
  id: string
  name: string
  args: string
}

interface StreamedChoice {
  guard: TextGuard
  refusal: TextGuard
  calls: Map<number, HeldCall>
  legacy?: { name: string; args: string }
}

const PLAIN_FIELDS = new Set(['role', 'content'])

/** The relay of one streamed Chat Completions answer. */
export class ChatRelay implements StreamRelay {
  private readonly choices = new Map<number, StreamedChoice>()
  private readonly finished = new Map<number, JsonObject>()
  private readonly types: TypeCheck
  private base: JsonObject = {}
  private usage: Json | undefined

  constructor(private readonly checks: StreamChecks) {
    this.types = new TypeCheck(checks.types, 502)
  }

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
    let plain = true
    for (const item of list) {
      if (!isObject(item)) return refusedChunk('a streamed choice is not an object')
      const delta = isObject(item.delta) ? item.delta : {}
      for (const [field, value] of Object.entries(delta)) {
        if (empty(value)) continue
        if (!this.types.allows(CHAT_ANSWER_FIELDS, field))
          return { error: this.types.refusal() as ApiErrorInfo }
        if (!PLAIN_FIELDS.has(field)) plain = false
      }
      if (delta.content != null && typeof delta.content !== 'string')
        return refusedChunk('a streamed content delta is not text')
      if (item.finish_reason != null) plain = false
    }
    if (!this.checks.checkText && plain) {
      for (const c of list)
        if (isObject(c) && isObject(c.delta)) void this.choice(c).guard.push(String(c.delta.content ?? ''))
      return [raw]
    }
    const out: string[] = []
    for (const item of list) {
      const step = await this.handle(item as JsonObject)
      if (!Array.isArray(step)) return step
      out.push(...step)
    }
    return out
  }

  private choice(item: JsonObject): StreamedChoice {
    const index = typeof item.index === 'number' ? item.index : 0
    let choice = this.choices.get(index)
    if (!choice) {
      choice = { guard: new TextGuard(this.checks), refusal: new TextGuard(this.checks), calls: new Map() }
      this.choices.set(index, choice)
    }
    return choice
  }

  private async handle(item: JsonObject): Promise<RelayStep> {
    const index = typeof item.index === 'number' ? item.index : 0
    const choice = this.choice(item)
    const delta = isObject(item.delta) ? item.delta : {}
    const out: string[] = []
    const { content, refusal, tool_calls: calls, function_call: legacy, audio, ...rest } = delta
    if (!empty(audio) && this.checks.checkText)
      return refusedChunk('streamed audio cannot be checked while a hook checks text')
    if (!empty(audio)) rest.audio = audio as Json
    const fields: JsonObject = { ...rest }
    if (typeof content === 'string') {
      const step = await choice.guard.push(content)
      if (!step.ok) return { error: step.error }
      if (step.text !== '') fields.content = step.text
    }
    if (typeof refusal === 'string') {
      const step = await choice.refusal.push(refusal)
      if (!step.ok) return { error: step.error }
      if (step.text !== '') fields.refusal = step.text
    }
    if (Object.keys(fields).length > 0) out.push(this.chunk(index, fields))
    for (const call of Array.isArray(calls) ? calls : []) {
      if (!isObject(call)) return refusedChunk('a streamed tool call is not an object')
      this.hold(choice, call)
    }
    if (isObject(legacy)) {
      const held = choice.legacy ?? { name: '', args: '' }
      if (typeof legacy.name === 'string') held.name += legacy.name
      if (typeof legacy.arguments === 'string') held.args += legacy.arguments
      choice.legacy = held
    }
    if (item.finish_reason == null) return out
    return this.finish(index, choice, item.finish_reason as Json, out)
  }

  private hold(choice: StreamedChoice, call: JsonObject): void {
    const at = typeof call.index === 'number' ? call.index : 0
    const held = choice.calls.get(at) ?? { type: '', id: '', name: '', args: '' }
    if (typeof call.type === 'string') held.type = call.type
    if (typeof call.id === 'string') held.id = call.id
    const part = isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : {}
    if (isObject(call.custom)) held.type = 'custom'
    if (typeof part.name === 'string') held.name += part.name
    if (typeof part.arguments === 'string') held.args += part.arguments
    if (typeof part.input === 'string') held.args += part.input
    choice.calls.set(at, held)
  }

  private async finish(
    index: number,
    choice: StreamedChoice,
    finish: Json,
    out: string[],
  ): Promise<RelayStep> {
    const last = await choice.guard.finish()
    if (!last.ok) return { error: last.error }
    const lastRefusal = await choice.refusal.finish()
    if (!lastRefusal.ok) return { error: lastRefusal.error }
    const notes: string[] = []
    const kept: JsonObject[] = []
    for (const [at, held] of choice.calls) {
      const type = held.type || 'function'
      if (!this.types.allows(CHAT_TOOL_CALLS, type)) return { error: this.types.refusal() as ApiErrorInfo }
      const call: JsonObject =
        type === 'custom'
          ? { id: held.id, type, custom: { name: held.name, input: held.args } }
          : { id: held.id, type, function: { name: held.name, arguments: held.args } }
      const read = chatCall(call, `${index}.${at}`)
      if (typeof read === 'string') return refusedChunk(`${read}; Warden denies what it cannot read`)
      const verdict = await this.checks.call(read)
      if (verdict.kind === 'blocked') notes.push(verdict.text)
      else
        kept.push({
          index: kept.length,
          ...(verdict.kind === 'rewrite' ? rewrittenCall(call, verdict.input) : call),
        })
    }
    let legacy: JsonObject | undefined
    if (choice.legacy) {
      const read = chatCall(
        { type: 'function', function: { ...choice.legacy, arguments: choice.legacy.args } },
        `${index}.function_call`,
      )
      if (typeof read === 'string') return refusedChunk(`${read}; Warden denies what it cannot read`)
      const verdict = await this.checks.call(read as ToolCallView)
      if (verdict.kind === 'blocked') notes.push(verdict.text)
      else
        legacy = {
          name: choice.legacy.name,
          arguments: verdict.kind === 'rewrite' ? JSON.stringify(verdict.input) : choice.legacy.args,
        }
    }
    const sent = choice.guard.out()
    const extra = [last.text, ...notes.map((n) => (sent || last.text ? `\n${n}` : n))].join('')
    const tail: JsonObject = {}
    if (extra !== '') tail.content = extra
    if (lastRefusal.text !== '') tail.refusal = lastRefusal.text
    if (Object.keys(tail).length > 0) out.push(this.chunk(index, tail))
    if (kept.length > 0) out.push(this.chunk(index, { tool_calls: kept }))
    if (legacy) out.push(this.chunk(index, { function_call: legacy }))
    const reason =
      (finish === 'tool_calls' && kept.length === 0) || (finish === 'function_call' && !legacy)
        ? 'stop'
        : finish
    const message: JsonObject = { role: 'assistant', content: sent + extra }
    if (choice.refusal.out() !== '') message.refusal = choice.refusal.out()
    if (kept.length > 0) message.tool_calls = kept
    if (legacy) message.function_call = legacy
    this.finished.set(index, { index, message, finish_reason: reason })
    out.push(this.chunk(index, {}, reason))
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

  letThrough(): string[] {
    return this.types.letThrough()
  }
}

function refusedChunk(reason: string): RelayStep {
  return { error: { status: 502, code: 'unsupported_type', message: `Warden refused the answer: ${reason}` } }
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
