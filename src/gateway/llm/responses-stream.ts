// A streamed OpenAI Responses answer, relayed event by event. Every event type, output item
// type and content part type is classified by the closed-world tables: an unknown one ends
// the stream with an error event naming it. `output_text` and `refusal` deltas go through a
// text guard per part; every tool call the client runs (`function_call`, `custom_tool_call`,
// `local_shell_call`, `shell_call`, `apply_patch_call`, `computer_call`,
// `mcp_approval_request`) is held from its `added` event to its `done` event, deltas
// included, and released once checked by `tool.pre` (rewritten, or a `message` item saying
// why it was blocked, in its place); the items of tools that ran upstream are held likewise
// and their results checked by `tool.post`; reasoning items are held and their texts checked
// when text is. The final `response.completed` carries the same changes, and any item it
// holds that did not stream is checked there. Frames Warden writes are built field by field.

import type { Json, JsonObject } from '../../core/index.js'
import type { SseEvent } from '../a2a/index.js'
import { classifyItem } from '../kit/index.js'
import {
  type AnswerVerdicts,
  type AnswerView,
  type ApiErrorInfo,
  type CallVerdict,
  frame,
  isObject,
  type RelayStep,
  type StreamChecks,
  type StreamRelay,
  type ToolCallView,
} from './api.js'
import { openAiErrorBody } from './openai-errors.js'
import {
  deltaFrame,
  itemFrame,
  messageItem,
  partFrame,
  releasedPart,
  responseFrame,
  textDoneFrame,
} from './responses-frames.js'
import { RESPONSES_STREAM_EVENTS } from './responses-tables.js'
import { TextGuard } from './text-guard.js'

type ApplyAnswer = (body: JsonObject, verdicts: AnswerVerdicts) => JsonObject
type ReadAnswer = (body: JsonObject, types?: StreamChecks['types']) => AnswerView
/** What the relay needs of the Responses module (kept apart to avoid an import cycle). */
export interface ResponsesShape {
  readAnswer: ReadAnswer
  applyAnswer: ApplyAnswer
  callOf(item: JsonObject, key: string): ToolCallView | undefined
  callItem(item: JsonObject, verdict: CallVerdict | undefined): JsonObject
  outputRefusal(
    place: 'output' | 'output-content',
    type: unknown,
    types?: StreamChecks['types'],
  ): string | undefined
}

const CALLS = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'shell_call',
  'apply_patch_call',
  'computer_call',
  'mcp_approval_request',
])
const RESULTS = new Set([
  'mcp_call',
  'code_interpreter_call',
  'file_search_call',
  'web_search_call',
  'mcp_list_tools',
])

interface Held {
  type: string
  frames: string[]
}

/** The relay of one streamed Responses answer. */
export class ResponsesRelay implements StreamRelay {
  private readonly guards = new Map<string, { guard: TextGuard; type: Json | undefined }>()
  private readonly held = new Map<number, Held>()
  private readonly itemTypes = new Map<number, string>()
  private readonly verdicts: AnswerVerdicts = { texts: new Map(), calls: new Map(), results: new Map() }
  private response: JsonObject = {}

  constructor(
    private readonly checks: StreamChecks,
    private readonly shape: ResponsesShape,
  ) {
    this.verdicts.textChecked = checks.checkText
  }

  async event(event: SseEvent): Promise<RelayStep> {
    const raw = frame(event.data, event.type)
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      return garbage('a streamed event that is not a JSON object')
    }
    if (!isObject(data)) return garbage('a streamed event that is not a JSON object')
    const type = String(data.type)
    const verdict = classifyItem(RESPONSES_STREAM_EVENTS, data.type, this.checks.types)
    if (verdict.kind === 'refused') return refusedStep(`Warden ended the answer: ${verdict.reason}`)
    if (verdict.kind === 'let-through') return [raw]
    const at = typeof data.output_index === 'number' ? data.output_index : -1
    const held = this.held.get(at)
    if (held && type !== 'response.output_item.done') {
      held.frames.push(raw)
      return []
    }
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued': {
        const response = isObject(data.response) ? data.response : {}
        if (Array.isArray(response.output) && response.output.length > 0)
          return garbage(`a ${type} event that already holds output`)
        return [raw]
      }
      case 'response.output_item.added':
        return this.itemAdded(data, raw)
      case 'response.output_item.done':
        return this.itemDone(data, raw)
      case 'response.content_part.added':
        return this.partAdded(data, raw)
      case 'response.content_part.done':
        if (this.itemTypes.get(at) === 'reasoning' && !this.checks.checkText) return [raw]
        return [partFrame(type, data, this.guardOf(data).guard.out())]
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.textDelta(type, data, raw)
      case 'response.output_text.done':
      case 'response.refusal.done':
        return this.textDone(type, data)
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        return this.completed(type, data)
      default:
        // Status events and annotations; an item's own deltas when it was not held are garbage.
        if (RESPONSES_STREAM_EVENTS.rules[type]?.kind === 'inert') return [raw]
        if (type.startsWith('response.reasoning') && !this.checks.checkText) return [raw]
        return garbage(`a ${type} event for an item it did not announce`)
    }
  }

  private itemAdded(data: JsonObject, raw: string): RelayStep {
    const item = isObject(data.item) ? data.item : {}
    const bad = this.shape.outputRefusal('output', item.type, this.checks.types)
    if (bad) return refusedStep(bad.replace('refused the answer', 'ended the answer'))
    const type = String(item.type)
    const at = Number(data.output_index)
    this.itemTypes.set(at, type)
    if (CALLS.has(type) || RESULTS.has(type) || (type === 'reasoning' && this.checks.checkText)) {
      this.held.set(at, { type, frames: [raw] })
      return []
    }
    if (type === 'message') return [itemFrame('response.output_item.added', data, messageItem(item, []))]
    return [raw]
  }

  private async itemDone(data: JsonObject, raw: string): Promise<RelayStep> {
    const item = isObject(data.item) ? data.item : {}
    const at = Number(data.output_index)
    const held = this.held.get(at)
    this.held.delete(at)
    const type = String(item.type)
    if (held && held.type !== type) return garbage(`an item whose type changed from ${held.type} to ${type}`)
    if (CALLS.has(type)) return this.callDone(at, item, data, held?.frames ?? [])
    if (RESULTS.has(type)) return this.resultDone(at, item, data, held?.frames ?? [])
    if (type === 'reasoning' && held) return this.reasoningDone(at, item, data)
    if (type !== 'message') return [raw]
    const parts = Array.isArray(item.content) ? item.content : []
    const released = parts.map((part, p) => {
      const entry = this.guards.get(`${at}.${p}`)
      const shaped = isObject(part) ? part : {}
      const text = entry ? entry.guard.out() : ''
      return releasedPart(entry?.type ?? shaped.type, text, shaped.annotations)
    })
    const joined = await this.joined(released)
    if (!Array.isArray(joined)) return joined
    return [itemFrame('response.output_item.done', data, messageItem(item, released))]
  }

  /** The parts of one message checked joined (a secret split across two parts). */
  private async joined(parts: JsonObject[]): Promise<RelayStep> {
    const texts = parts.map((p) => String(p.text ?? p.refusal ?? ''))
    if (!this.checks.checkText || texts.length < 2) return []
    const joined = texts.join('')
    const checked = await this.checks.text(joined)
    if (!checked.ok) return { error: checked.error }
    if (checked.text !== joined)
      return refusedStep(
        'Warden ended the answer: a hook changed the text joined across its parts after they were sent',
      )
    return []
  }

  private partAdded(data: JsonObject, raw: string): RelayStep {
    const part = isObject(data.part) ? data.part : {}
    const owner = this.itemTypes.get(Number(data.output_index))
    if (owner !== 'message') {
      if (owner === 'reasoning' && !this.checks.checkText) return [raw]
      return garbage(`a content part for an item that is not a message (${owner ?? 'none announced'})`)
    }
    const bad = this.shape.outputRefusal('output-content', part.type, this.checks.types)
    if (bad) return refusedStep(bad.replace('refused the answer', 'ended the answer'))
    this.guardOf(data).type = part.type
    return this.checks.checkText ? [partFrame('response.content_part.added', data, '')] : [raw]
  }

  private guardOf(data: JsonObject): { guard: TextGuard; type: Json | undefined } {
    const key = `${String(data.output_index ?? 0)}.${String(data.content_index ?? 0)}`
    let entry = this.guards.get(key)
    if (!entry) {
      entry = { guard: new TextGuard(this.checks), type: undefined }
      this.guards.set(key, entry)
    }
    return entry
  }

  private async textDelta(type: string, data: JsonObject, raw: string): Promise<RelayStep> {
    const step = await this.guardOf(data).guard.push(typeof data.delta === 'string' ? data.delta : '')
    if (!step.ok) return { error: step.error }
    if (!this.checks.checkText) return [raw]
    return step.text === '' ? [] : [deltaFrame(type, data, step.text)]
  }

  private async textDone(type: string, data: JsonObject): Promise<RelayStep> {
    const { guard } = this.guardOf(data)
    const step = await guard.finish()
    if (!step.ok) return { error: step.error }
    const key = `${String(data.output_index ?? 0)}.${String(data.content_index ?? 0)}`
    if (guard.rewritten()) this.verdicts.texts.set(key, guard.out())
    const deltaType =
      type === 'response.refusal.done' ? 'response.refusal.delta' : 'response.output_text.delta'
    const out: string[] = []
    if (step.text !== '') out.push(deltaFrame(deltaType, data, step.text))
    out.push(textDoneFrame(type, data, guard.out()))
    return out
  }

  private async callDone(at: number, item: JsonObject, data: JsonObject, held: string[]): Promise<RelayStep> {
    const call = this.shape.callOf(item, `${at}`)
    if (!call) return garbage(`a ${String(item.type)} item Warden cannot read`)
    const verdict = await this.checks.call(call)
    this.verdicts.calls.set(`${at}`, verdict)
    if (verdict.kind === 'allow') return [...held, frame(JSON.stringify(data), 'response.output_item.done')]
    const next = this.shape.callItem(item, verdict)
    if (verdict.kind === 'rewrite' && next.type === item.type) {
      const pending = { ...next, status: 'in_progress' }
      return [
        itemFrame('response.output_item.added', data, pending),
        itemFrame('response.output_item.done', data, next),
      ]
    }
    return [
      itemFrame('response.output_item.added', data, next),
      itemFrame('response.output_item.done', data, next),
    ]
  }

  private async resultDone(
    at: number,
    item: JsonObject,
    data: JsonObject,
    held: string[],
  ): Promise<RelayStep> {
    const view = this.shape.readAnswer({ output: [item] }, this.checks.types)
    const result = view.results?.[0]
    if (!result || !this.checks.result) return garbage(`a ${String(item.type)} item Warden cannot read`)
    const checked = await this.checks.result(result)
    if (!checked.ok) return { error: checked.error }
    if (checked.output === result.output)
      return [...held, frame(JSON.stringify(data), 'response.output_item.done')]
    this.verdicts.results?.set(`${at}`, checked.output)
    const next = this.shape.applyAnswer(
      { output: [item] },
      { texts: new Map(), calls: new Map(), results: new Map([['0', checked.output]]) },
    )
    const done = (next.output as JsonObject[])[0] as JsonObject
    return [
      itemFrame('response.output_item.added', data, done),
      itemFrame('response.output_item.done', data, done),
    ]
  }

  private async reasoningDone(at: number, item: JsonObject, data: JsonObject): Promise<RelayStep> {
    const view = this.shape.readAnswer({ output: [item] }, this.checks.types)
    const texts = new Map<string, string>()
    for (const { key, text } of view.texts) {
      const checked = await this.checks.text(text)
      if (!checked.ok) return { error: checked.error }
      texts.set(key.replace(/^0\./, `${at}.`), checked.text)
      if (checked.text !== text) this.verdicts.texts.set(key.replace(/^0\./, `${at}.`), checked.text)
    }
    const local = new Map([...texts].map(([k, v]) => [k.replace(/^\d+\./, '0.'), v]))
    const next = this.shape.applyAnswer({ output: [item] }, { texts: local, calls: new Map() })
    const done = (next.output as JsonObject[])[0] as JsonObject
    return [
      itemFrame('response.output_item.added', data, done),
      itemFrame('response.output_item.done', data, done),
    ]
  }

  /** The final response: streamed verdicts applied, anything that did not stream checked now. */
  private async completed(type: string, data: JsonObject): Promise<RelayStep> {
    if (!isObject(data.response)) return garbage(`a ${type} event without its response`)
    const response = structuredClone(data.response)
    const view = this.shape.readAnswer(response, this.checks.types)
    if (view.refusal)
      return {
        error: {
          ...view.refusal,
          message: view.refusal.message.replace('refused the answer', 'ended the answer'),
        },
      }
    for (const { key, text } of view.texts) {
      if (this.guards.has(key) || this.verdicts.texts.has(key) || key.endsWith('.joined')) continue
      if (!this.checks.checkText) continue
      const checked = await this.checks.text(text)
      if (!checked.ok) return { error: checked.error }
      if (checked.text !== text) this.verdicts.texts.set(key, checked.text)
    }
    for (const [key, entry] of this.guards) {
      const streamed = entry.guard.out()
      const final = view.texts.find((t) => t.key === key)
      if (final && final.text !== streamed) this.verdicts.texts.set(key, streamed)
    }
    for (const call of view.calls) {
      const key = call.key ?? call.id
      if (!this.verdicts.calls.has(key)) this.verdicts.calls.set(key, await this.checks.call(call))
    }
    for (const result of view.results ?? []) {
      const key = result.key ?? result.id
      if (this.verdicts.results?.has(key) || !this.checks.result) continue
      const checked = await this.checks.result(result)
      if (!checked.ok) return { error: checked.error }
      if (checked.output !== result.output) this.verdicts.results?.set(key, checked.output)
    }
    this.response = this.shape.applyAnswer(response, this.verdicts)
    return [responseFrame(type, data, this.response)]
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

function garbage(what: string): RelayStep {
  return { error: { status: 502, code: 'upstream_garbage', message: `the model API sent ${what}` } }
}

function refusedStep(message: string): RelayStep {
  return { error: { status: 502, code: 'unchecked_type', message } }
}
