// A streamed OpenAI Responses answer, relayed event by event. `output_text` deltas go
// through a text guard per part; a `function_call` item is held from its `added` event to
// its `done` event and released once checked (rewritten arguments, or a `message` item
// saying why it was blocked, in its place); the final `response.completed` carries the
// same changes, so clients that read only the final response see what streamed.

import type { Json, JsonObject } from '../../core/index.js'
import type { SseEvent } from '../a2a/index.js'
import {
  type AnswerVerdicts,
  type ApiErrorInfo,
  type CallVerdict,
  frame,
  isObject,
  parseArguments,
  type RelayStep,
  type StreamChecks,
  type StreamRelay,
} from './api.js'
import { openAiErrorBody } from './openai-errors.js'
import { TextGuard } from './text-guard.js'

type ApplyAnswer = (body: JsonObject, verdicts: AnswerVerdicts) => JsonObject

/** The relay of one streamed Responses answer. */
export class ResponsesRelay implements StreamRelay {
  private readonly guards = new Map<string, TextGuard>()
  private readonly held = new Map<number, string[]>()
  private readonly calls = new Map<string, CallVerdict>()
  private response: JsonObject = {}

  constructor(
    private readonly checks: StreamChecks,
    private readonly applyAnswer: ApplyAnswer,
  ) {}

  async event(event: SseEvent): Promise<RelayStep> {
    const raw = frame(event.data, event.type)
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      return garbage()
    }
    if (!isObject(data)) return garbage()
    const at = typeof data.output_index === 'number' ? data.output_index : -1
    const item = isObject(data.item) ? data.item : undefined
    switch (data.type) {
      case 'response.output_item.added':
        if (item?.type === 'function_call') {
          this.held.set(at, [raw])
          return []
        }
        return [raw]
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done': {
        const held = this.held.get(at)
        if (!held) return [raw]
        held.push(raw)
        return []
      }
      case 'response.output_item.done':
        if (item?.type === 'function_call' && this.held.has(at))
          return this.callDone(at, item, data, event.type)
        if (item?.type === 'message') return [this.withTexts(data, event.type, at, raw)]
        return [raw]
      case 'response.output_text.delta':
        return this.textDelta(data, event.type, raw)
      case 'response.output_text.done':
        return this.textDone(data, event.type)
      case 'response.content_part.done':
        return [this.partDone(data, event.type, raw)]
      case 'response.completed':
      case 'response.incomplete':
        if (isObject(data.response)) {
          this.response = this.final(data.response)
          return [frame(JSON.stringify({ ...data, response: this.response }), event.type)]
        }
        return [raw]
      default:
        return [raw]
    }
  }

  private guard(data: JsonObject): { key: string; guard: TextGuard } {
    const key = `${String(data.output_index ?? 0)}.${String(data.content_index ?? 0)}`
    let guard = this.guards.get(key)
    if (!guard) {
      guard = new TextGuard(this.checks)
      this.guards.set(key, guard)
    }
    return { key, guard }
  }

  private async textDelta(data: JsonObject, type: string | undefined, raw: string): Promise<RelayStep> {
    const { guard } = this.guard(data)
    const step = await guard.push(typeof data.delta === 'string' ? data.delta : '')
    if (!step.ok) return { error: step.error }
    if (!this.checks.checkText) return [raw]
    return step.text === '' ? [] : [frame(JSON.stringify({ ...data, delta: step.text }), type)]
  }

  private async textDone(data: JsonObject, type: string | undefined): Promise<RelayStep> {
    const { guard } = this.guard(data)
    const step = await guard.finish()
    if (!step.ok) return { error: step.error }
    const out: string[] = []
    if (step.text !== '')
      out.push(
        frame(
          JSON.stringify({ ...data, type: 'response.output_text.delta', delta: step.text }),
          'response.output_text.delta',
        ),
      )
    out.push(frame(JSON.stringify({ ...data, text: guard.out() }), type))
    return out
  }

  private partDone(data: JsonObject, type: string | undefined, raw: string): string {
    const guard = this.guards.get(`${String(data.output_index ?? 0)}.${String(data.content_index ?? 0)}`)
    if (!guard || !isObject(data.part) || !guard.rewritten()) return raw
    return frame(JSON.stringify({ ...data, part: { ...data.part, text: guard.out() } }), type)
  }

  private withTexts(data: JsonObject, type: string | undefined, at: number, raw: string): string {
    const item = data.item as JsonObject
    if (!Array.isArray(item.content)) return raw
    let changed = false
    const content = item.content.map((part, p) => {
      const guard = this.guards.get(`${at}.${p}`)
      if (!guard?.rewritten() || !isObject(part)) return part
      changed = true
      return { ...part, text: guard.out() }
    })
    return changed ? frame(JSON.stringify({ ...data, item: { ...item, content } }), type) : raw
  }

  private async callDone(
    at: number,
    item: JsonObject,
    data: JsonObject,
    type: string | undefined,
  ): Promise<RelayStep> {
    const held = this.held.get(at) as string[]
    this.held.delete(at)
    const id = String(item.call_id ?? '')
    const args = typeof item.arguments === 'string' ? item.arguments : ''
    const verdict = await this.checks.call({ id, name: String(item.name ?? ''), input: parseArguments(args) })
    this.calls.set(id, verdict)
    const raw = frame(JSON.stringify(data), type)
    if (verdict.kind === 'allow') return [...held, raw]
    const sequence = (data.sequence_number ?? 0) as Json
    if (verdict.kind === 'rewrite') {
      const text = JSON.stringify(verdict.input)
      const added = {
        type: 'response.output_item.added',
        output_index: at,
        item: { ...item, arguments: '' },
        sequence_number: sequence,
      }
      const done = {
        type: 'response.function_call_arguments.done',
        output_index: at,
        item_id: item.id ?? null,
        arguments: text,
        sequence_number: sequence,
      }
      return [
        frame(JSON.stringify(added), 'response.output_item.added'),
        frame(
          JSON.stringify({ ...done, type: 'response.function_call_arguments.delta', delta: text }),
          'response.function_call_arguments.delta',
        ),
        frame(JSON.stringify(done), 'response.function_call_arguments.done'),
        frame(JSON.stringify({ ...data, item: { ...item, arguments: text } }), type),
      ]
    }
    const message = {
      type: 'message',
      id: `msg_${String(item.id ?? id)}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: verdict.text, annotations: [] }],
    }
    return [
      frame(
        JSON.stringify({
          type: 'response.output_item.added',
          output_index: at,
          item: message,
          sequence_number: sequence,
        }),
        'response.output_item.added',
      ),
      frame(JSON.stringify({ ...data, item: message }), type),
    ]
  }

  private final(response: JsonObject): JsonObject {
    const texts = new Map<string, string>()
    for (const [key, guard] of this.guards) if (guard.rewritten()) texts.set(key, guard.out())
    if (texts.size === 0 && [...this.calls.values()].every((v) => v.kind === 'allow')) return response
    return this.applyAnswer(structuredClone(response), { texts, calls: this.calls })
  }

  async end(): Promise<RelayStep> {
    return []
  }

  /** The Responses API's `error` event; its `error` member is what openai 6 clients raise. */
  errorFrame(error: ApiErrorInfo): string {
    const body = openAiErrorBody(error)
    const details = body.error as JsonObject
    return frame(JSON.stringify({ type: 'error', ...details, error: details, sequence_number: 0 }), 'error')
  }

  summary(): JsonObject {
    return this.response
  }
}

function garbage(): RelayStep {
  return {
    error: {
      status: 502,
      code: 'upstream_garbage',
      message: 'the model API sent a streamed event that is not a JSON object',
    },
  }
}
