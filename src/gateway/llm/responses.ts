// OpenAI Responses (`POST …/responses`) as the gateway sees it. A request's new user
// message is its `input` when that is text, else its last `user` item; its tool results
// the `function_call_output` items at the end of `input` (named after the `function_call`
// items they answer); `instructions` is the system prompt. An answer's texts are the
// `output_text` parts of its `message` items, its tool calls its `function_call` items. A
// blocked tool call becomes a `message` item saying why.

import type { Json, JsonObject } from '../../core/index.js'
import {
  type AnswerVerdicts,
  type AnswerView,
  type CallVerdict,
  isObject,
  type LlmApi,
  parseArguments,
  type RequestChanges,
  type RequestView,
} from './api.js'
import { contentText, outputText, withText } from './chat.js'
import { openAiErrorBody } from './openai-errors.js'
import { ResponsesRelay } from './responses-stream.js'

function items(input: Json | undefined): Json[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }]
  return Array.isArray(input) ? input : []
}

function readRequest(body: JsonObject): RequestView {
  const input = items(body.input)
  const view: RequestView = {
    stream: body.stream === true,
    messages: input,
    tools: Array.isArray(body.tools) ? body.tools : [],
    toolResults: [],
  }
  if (typeof body.model === 'string') view.model = body.model
  if (body.instructions !== undefined && body.instructions !== null) view.system = body.instructions
  const last = input[input.length - 1]
  if (isObject(last) && last.role === 'user') {
    const text = contentText(last.content)
    if (text !== undefined) view.userText = text
  }
  const names = new Map<string, string>()
  for (const item of input) {
    if (isObject(item) && item.type === 'function_call' && typeof item.call_id === 'string')
      names.set(item.call_id, String(item.name ?? 'unknown'))
  }
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]
    if (!isObject(item) || item.type !== 'function_call_output') break
    const id = String(item.call_id ?? '')
    view.toolResults.unshift({ id, name: names.get(id) ?? 'unknown', output: item.output ?? '' })
  }
  return view
}

function applyRequest(body: JsonObject, changes: RequestChanges): JsonObject {
  if (changes.userText !== undefined && typeof body.input === 'string') body.input = changes.userText
  const input = Array.isArray(body.input) ? body.input : []
  const last = input[input.length - 1]
  if (changes.userText !== undefined && isObject(last) && last.role === 'user')
    last.content = withText(last.content, changes.userText)
  for (const item of input) {
    if (!isObject(item) || item.type !== 'function_call_output') continue
    const output = changes.toolOutputs.get(String(item.call_id ?? ''))
    if (output !== undefined) item.output = outputText(output)
  }
  if (changes.messages) body.input = changes.messages
  if (changes.tools) body.tools = changes.tools
  if (changes.system !== undefined) body.instructions = changes.system
  return body
}

function output(body: JsonObject): JsonObject[] {
  return Array.isArray(body.output) ? body.output.filter(isObject) : []
}

function readAnswer(body: JsonObject): AnswerView {
  const view: AnswerView = { texts: [], calls: [] }
  output(body).forEach((item, at) => {
    if (item.type === 'message' && Array.isArray(item.content)) {
      item.content.forEach((part, p) => {
        if (isObject(part) && part.type === 'output_text' && typeof part.text === 'string')
          view.texts.push({ key: `${at}.${p}`, text: part.text })
      })
    }
    if (item.type === 'function_call' && typeof item.call_id === 'string') {
      const args = typeof item.arguments === 'string' ? item.arguments : ''
      view.calls.push({ id: item.call_id, name: String(item.name ?? ''), input: parseArguments(args) })
    }
  })
  if (isObject(body.usage)) view.usage = body.usage
  return view
}

/** A function call item after its verdict. */
export function callItem(item: JsonObject, verdict: CallVerdict | undefined): JsonObject {
  if (verdict?.kind === 'rewrite') return { ...item, arguments: JSON.stringify(verdict.input) }
  if (verdict?.kind !== 'blocked') return item
  return {
    type: 'message',
    id: `msg_${String(item.id ?? item.call_id ?? 'blocked')}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: verdict.text, annotations: [] }],
  }
}

function applyAnswer(body: JsonObject, verdicts: AnswerVerdicts): JsonObject {
  body.output = output(body).map((item, at) => {
    if (item.type === 'function_call') return callItem(item, verdicts.calls.get(String(item.call_id)))
    if (item.type !== 'message' || !Array.isArray(item.content)) return item
    const content = item.content.map((part, p) => {
      const text = verdicts.texts.get(`${at}.${p}`)
      return text !== undefined && isObject(part) ? { ...part, text } : part
    })
    return { ...item, content }
  })
  if (typeof body.output_text === 'string') {
    body.output_text = output(body)
      .flatMap((item) => (Array.isArray(item.content) ? item.content : []))
      .map((part) => (isObject(part) && part.type === 'output_text' ? String(part.text ?? '') : ''))
      .join('')
  }
  return body
}

/** OpenAI Responses. */
export const responsesApi: LlmApi = {
  name: 'responses',
  label: 'OpenAI Responses',
  readRequest,
  applyRequest,
  readAnswer,
  applyAnswer,
  errorBody: openAiErrorBody,
  relay: (checks) => new ResponsesRelay(checks, applyAnswer),
}
