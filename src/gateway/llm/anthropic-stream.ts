// The relay of one streamed Anthropic Messages answer. Every event, content block and delta
// must be of a known type (anthropic-tables.ts) or the stream ends naming it. Text blocks go
// through a TextGuard each (text given in the block's start too), and the text blocks joined
// are checked before the stop reason goes out; tool calls are held until their block stops,
// then checked (`tool.pre`) and released whole, rewritten, or replaced by a text saying why.
// A server tool's call (already run upstream) that a hook denies or rewrites ends the
// stream; its result block is checked as `tool.post` before it is sent.

import type { Json, JsonObject } from '../../core/index.js'
import type { SseEvent } from '../a2a/index.js'
import { anthropicErrorBody, callOf, resultOf, SERVER_CALLS } from './anthropic.js'
import { ANTHROPIC_DELTAS, ANTHROPIC_EVENTS, ANTHROPIC_OUTPUT } from './anthropic-tables.js'
import {
  type ApiErrorInfo,
  frame,
  isObject,
  parseArguments,
  type RelayStep,
  type StreamChecks,
  type StreamRelay,
} from './api.js'
import { TypeCheck } from './item-types.js'
import { TextGuard } from './text-guard.js'

type Block =
  | { kind: 'text'; guard: TextGuard }
  | { kind: 'tool'; json: string; held: string[]; start: JsonObject; upstream: boolean }
  | { kind: 'other' }

/** The relay of one streamed Messages answer. */
export class MessagesRelay implements StreamRelay {
  private readonly blocks = new Map<number, Block>()
  private readonly content: Json[] = []
  private readonly names = new Map<string, string>()
  private readonly types: TypeCheck
  private calls = 0
  private blocked = 0
  private message: JsonObject = {}

  constructor(private readonly checks: StreamChecks) {
    this.types = new TypeCheck(checks.types, 502)
  }

  async event(event: SseEvent): Promise<RelayStep> {
    const raw = frame(event.data, event.type)
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      return garbage(event)
    }
    if (!isObject(data)) return garbage(event)
    if (!this.types.allows(ANTHROPIC_EVENTS, data.type)) return this.refusal()
    const index = typeof data.index === 'number' ? data.index : -1
    switch (data.type) {
      case 'message_start':
        if (isObject(data.message)) this.message = { ...data.message }
        if (Array.isArray(this.message.content) && this.message.content.length > 0)
          return refused('a message_start event carries content, which Warden does not check there')
        return [raw]
      case 'content_block_start':
        return this.start(index, data, raw)
      case 'content_block_delta':
        return this.delta(index, data, raw)
      case 'content_block_stop':
        return this.stop(index, raw)
      case 'message_delta':
        return this.endOfMessage(data, event, raw)
      default:
        return [raw]
    }
  }

  private refusal(): RelayStep {
    return { error: this.types.refusal() as ApiErrorInfo }
  }

  private async start(index: number, data: JsonObject, raw: string): Promise<RelayStep> {
    const block = isObject(data.content_block) ? data.content_block : undefined
    const verdict = this.types.verdict(ANTHROPIC_OUTPUT, block?.type)
    if (verdict.kind === 'refused' || !block) return this.refusal()
    if (verdict.kind !== 'checked') {
      this.blocks.set(index, { kind: 'other' })
      this.content[index] = block
      return [raw]
    }
    if (block.type === 'text') {
      const guard = new TextGuard(this.checks)
      this.blocks.set(index, { kind: 'text', guard })
      if (typeof block.text !== 'string' || block.text === '') return [raw]
      const start = frame(
        JSON.stringify({ ...data, content_block: { ...block, text: '' } }),
        'content_block_start',
      )
      const step = await guard.push(block.text)
      if (!step.ok) return { error: step.error }
      return step.text === '' ? [start] : [start, textDelta(index, step.text)]
    }
    if (verdict.event === 'tool.pre') {
      const upstream = SERVER_CALLS.has(block.type)
      this.blocks.set(index, { kind: 'tool', json: '', held: [raw], start: block, upstream })
      return []
    }
    this.blocks.set(index, { kind: 'other' })
    const result = resultOf(block, String(index), this.names)
    if (!this.checks.result) return refused(`a ${String(block.type)} block cannot be checked here`)
    const checked = await this.checks.result(result)
    if (!checked.ok) return { error: checked.error }
    if (checked.output === result.output) {
      this.content[index] = block
      return [raw]
    }
    const rewritten = { ...block, content: checked.output }
    this.content[index] = rewritten
    return [frame(JSON.stringify({ ...data, content_block: rewritten }), 'content_block_start')]
  }

  private async delta(index: number, data: JsonObject, raw: string): Promise<RelayStep> {
    const block = this.blocks.get(index)
    const delta = isObject(data.delta) ? data.delta : {}
    if (!this.types.allows(ANTHROPIC_DELTAS, delta.type)) return this.refusal()
    if (delta.type === 'input_json_delta') {
      if (block?.kind !== 'tool') return refused('an input_json_delta for a block that is not a tool call')
      block.json += typeof delta.partial_json === 'string' ? delta.partial_json : ''
      block.held.push(raw)
      return []
    }
    if (delta.type !== 'text_delta') return [raw]
    if (block?.kind !== 'text' || typeof delta.text !== 'string')
      return refused('a text_delta for a block that is not text')
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
    const call = callOf(block.start, String(index), input)
    if (typeof call === 'string') return refused(`${call}; Warden denies what it cannot read`)
    this.names.set(call.id, call.name)
    const verdict = await this.checks.call(call)
    if (block.upstream && verdict.kind !== 'allow') {
      const why = verdict.kind === 'blocked' ? verdict.text : `a hook rewrote the call to ${call.name}`
      return {
        error: {
          status: 403,
          code: 'denied',
          message: `${why} (it ran on the model's side, so the answer that carries its result is refused)`,
        },
      }
    }
    if (verdict.kind === 'blocked') {
      this.calls++
      this.blocked++
      this.content[index] = { type: 'text', text: verdict.text }
      const start = { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }
      return [frame(JSON.stringify(start), 'content_block_start'), textDelta(index, verdict.text), raw]
    }
    if (!block.upstream) this.calls++
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

  /** `message_delta`: the text blocks joined are checked, then the stop reason goes out. */
  private async endOfMessage(data: JsonObject, event: SseEvent, raw: string): Promise<RelayStep> {
    const texts: string[] = []
    for (const block of this.content)
      if (isObject(block) && block.type === 'text' && typeof block.text === 'string') texts.push(block.text)
    if (this.checks.checkText && texts.length > 1) {
      const joined = texts.join('')
      const checked = await this.checks.text(joined)
      if (!checked.ok) return { error: checked.error }
      if (checked.text !== joined)
        return refused(
          'a hook rewrote text that spans several text blocks, which cannot be put back block by block',
          403,
        )
    }
    const delta = isObject(data.delta) ? data.delta : {}
    if (isObject(data.usage)) this.message.usage = data.usage
    if (delta.stop_reason === 'tool_use' && this.calls > 0 && this.blocked === this.calls) {
      this.message.stop_reason = 'end_turn'
      return [frame(JSON.stringify({ ...data, delta: { ...delta, stop_reason: 'end_turn' } }), event.type)]
    }
    if (typeof delta.stop_reason === 'string') this.message.stop_reason = delta.stop_reason
    return [raw]
  }

  async end(): Promise<RelayStep> {
    return []
  }

  errorFrame(error: ApiErrorInfo): string {
    return frame(JSON.stringify(anthropicErrorBody(error)), 'error')
  }

  summary(): JsonObject {
    return { ...this.message, content: this.content.filter((b) => b !== undefined) }
  }

  letThrough(): string[] {
    return this.types.letThrough()
  }
}

function refused(reason: string, status = 502): RelayStep {
  return {
    error: {
      status,
      code: status === 403 ? 'denied' : 'unsupported_type',
      message: `Warden refused the answer: ${reason}`,
    },
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
