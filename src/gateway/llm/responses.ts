// OpenAI Responses (`POST …/responses`, and `GET …/responses/{id}`) as the gateway sees it:
// the request is read in responses-request.ts; an answer's output items are classified by
// the closed-world tables (an unknown type refuses the answer, naming it). Its texts are the
// `output_text` and `refusal` parts of its `message` items (each, and joined when there are
// several) and the texts of `reasoning` items; its tool calls every call the client runs
// (`function_call`, `custom_tool_call`, `local_shell_call`, `shell_call`, `apply_patch_call`,
// `computer_call`) and each `mcp_approval_request`; the results of tools that ran upstream
// (`mcp_call`, `code_interpreter_call`, `file_search_call`, `web_search_call`,
// `mcp_list_tools`) are checked as `tool.post`. Verdicts are keyed by position. A blocked
// call becomes a `message` item saying why; logprobs are removed when text is checked.

import type { Json, JsonObject } from '../../core/index.js'
import { classifyItem, type UnknownTypePolicy } from '../kit/index.js'
import {
  type AnswerVerdicts,
  type AnswerView,
  type CallVerdict,
  isObject,
  type LlmApi,
  notingLetThrough,
  parseArguments,
  type ToolCallView,
  type ToolResultView,
} from './api.js'
import { openAiErrorBody } from './openai-errors.js'
import { applyResponsesRequest, CALL_NAMES, readResponsesRequest } from './responses-request.js'
import { ResponsesRelay } from './responses-stream.js'
import { RESPONSES_OUTPUT_CONTENT, RESPONSES_OUTPUT_ITEMS, RESPONSES_UNCHECKED } from './responses-tables.js'

function output(body: JsonObject): JsonObject[] {
  return Array.isArray(body.output) ? body.output.filter(isObject) : []
}

const RESULT_TYPES = new Set([
  'mcp_call',
  'code_interpreter_call',
  'file_search_call',
  'web_search_call',
  'mcp_list_tools',
])

/** The refusal message of an output item or part type, or undefined when it may pass. */
export function outputRefusal(
  place: 'output' | 'output-content',
  type: unknown,
  types?: UnknownTypePolicy,
): string | undefined {
  const table = place === 'output' ? RESPONSES_OUTPUT_ITEMS : RESPONSES_OUTPUT_CONTENT
  const verdict = classifyItem(table, type, types)
  if (verdict.kind !== 'refused') return undefined
  const known = typeof type === 'string' ? RESPONSES_UNCHECKED[place]?.[type] : undefined
  const message = known
    ? `${table.protocol} ${table.place} type "${type}" is refused: ${known} (an operator can let it through unchecked with ${types?.setting ?? 'llm.allowUnknownTypes'}: ["${verdict.key}"])`
    : verdict.reason
  return `Warden refused the answer: ${message}`
}

/** The tool call an output item asks for, as hooks see it (undefined for other items). */
export function callOf(item: JsonObject, key: string): ToolCallView | undefined {
  const type = String(item.type)
  const id = String(item.call_id ?? item.id ?? '')
  const name = String(item.name ?? CALL_NAMES[type] ?? type)
  const action = isObject(item.action) ? item.action : {}
  const operation = isObject(item.operation) ? item.operation : {}
  const args = typeof item.arguments === 'string' ? item.arguments : ''
  const strings = (list: Json | undefined) => (Array.isArray(list) ? list.map(String) : [])
  let input: JsonObject | undefined
  if (type === 'function_call' || type === 'mcp_approval_request') input = parseArguments(args)
  if (type === 'mcp_approval_request') input = { ...input, server_label: item.server_label ?? null }
  if (type === 'custom_tool_call') input = { input: typeof item.input === 'string' ? item.input : '' }
  if (type === 'local_shell_call') {
    input = { ...action, command: shellLine(strings(action.command)), argv: action.command ?? [] }
    if (typeof action.working_directory === 'string') input.cwd = action.working_directory
  }
  if (type === 'shell_call')
    input = { command: strings(action.commands).join('\n'), commands: action.commands ?? [] }
  if (type === 'apply_patch_call')
    input = { path: operation.path ?? '', patch: operation.diff ?? '', operation: operation.type ?? '' }
  if (type === 'computer_call') input = { ...action }
  return input === undefined ? undefined : { key, id, name, input }
}

/** An argv as one shell command line, each word quoted as a shell would need it. */
function shellLine(argv: string[]): string {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`
  return argv.map((word) => (/^[A-Za-z0-9_/.,:=@%+-]+$/.test(word) ? word : quote(word))).join(' ')
}

/** The upstream tool result an output item carries (undefined for other items). */
function resultOf(item: JsonObject, key: string): ToolResultView | undefined {
  const type = String(item.type)
  if (!RESULT_TYPES.has(type)) return undefined
  const { id, type: _type, status: _status, ...fields } = item
  const name = type === 'mcp_call' ? String(item.name ?? 'mcp') : type.replace(/_call$/, '')
  const result: ToolResultView = { key, id: String(id ?? ''), name, output: fields }
  return item.error ? { ...result, isError: true } : result
}

function readAnswer(body: JsonObject, given?: UnknownTypePolicy): AnswerView {
  const letThrough: string[] = []
  const types = notingLetThrough(given, letThrough)
  const view: AnswerView = { texts: [], calls: [], results: [] }
  output(body).forEach((item, at) => {
    if (view.refusal) return
    const refused = outputRefusal('output', item.type, types)
    if (refused) {
      view.refusal = { status: 502, code: 'unchecked_type', message: refused }
      return
    }
    if (item.type === 'message' && Array.isArray(item.content)) {
      const joined: string[] = []
      item.content.forEach((part, p) => {
        const partType = isObject(part) ? part.type : undefined
        const bad = outputRefusal('output-content', partType, types)
        if (bad) view.refusal ??= { status: 502, code: 'unchecked_type', message: bad }
        if (!isObject(part)) return
        const text = partType === 'refusal' ? part.refusal : part.text
        if (typeof text !== 'string') return
        view.texts.push({ key: `${at}.${p}`, text })
        joined.push(text)
        if (part.logprobs !== undefined) view.logprobs = true
      })
      if (joined.length > 1) view.texts.push({ key: `${at}.joined`, text: joined.join('') })
    }
    if (item.type === 'reasoning') {
      for (const [field, tag] of [
        ['summary', 's'],
        ['content', 'c'],
      ] as const) {
        const list = Array.isArray(item[field]) ? (item[field] as Json[]) : []
        list.forEach((part, i) => {
          if (isObject(part) && typeof part.text === 'string')
            view.texts.push({ key: `${at}.${tag}${i}`, text: part.text })
        })
      }
    }
    const call = callOf(item, `${at}`)
    if (call) view.calls.push(call)
    const result = resultOf(item, `${at}`)
    if (result) view.results?.push(result)
  })
  if (isObject(body.usage)) view.usage = body.usage
  if (letThrough.length > 0) view.letThrough = letThrough
  return view
}

/** A call item after its verdict: rewritten in its own shape, or a `message` saying why it was blocked. */
export function callItem(item: JsonObject, verdict: CallVerdict | undefined): JsonObject {
  if (verdict?.kind === 'rewrite') return rewritten(item, verdict.input)
  if (verdict?.kind !== 'blocked') return item
  return {
    type: 'message',
    id: `msg_${String(item.id ?? item.call_id ?? 'blocked')}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: verdict.text, annotations: [] }],
  }
}

function rewritten(item: JsonObject, input: JsonObject): JsonObject {
  const action = isObject(item.action) ? item.action : {}
  const strings = (v: Json | undefined) => Array.isArray(v) && v.every((s) => typeof s === 'string')
  switch (item.type) {
    case 'custom_tool_call':
      return { ...item, input: typeof input.input === 'string' ? input.input : JSON.stringify(input) }
    case 'local_shell_call': {
      const argv = strings(input.argv) ? (input.argv as Json[]) : ['sh', '-c', String(input.command ?? '')]
      return { ...item, action: { ...action, command: argv } }
    }
    case 'shell_call': {
      const commands = strings(input.commands) ? (input.commands as Json[]) : [String(input.command ?? '')]
      return { ...item, action: { ...action, commands } }
    }
    case 'apply_patch_call': {
      const operation = isObject(item.operation) ? item.operation : {}
      const patched: JsonObject = { ...operation, path: String(input.path ?? operation.path ?? '') }
      if (operation.type !== 'delete_file') patched.diff = String(input.patch ?? '')
      return { ...item, operation: patched }
    }
    case 'computer_call':
      return { ...item, action: input }
    default: {
      const { server_label: _label, ...args } = input
      return { ...item, arguments: JSON.stringify(item.type === 'mcp_approval_request' ? args : input) }
    }
  }
}

/** An upstream tool's item with its checked output put back. */
function resultItem(item: JsonObject, output: Json): JsonObject {
  if (!isObject(output)) return { ...item, output: output }
  return { ...item, ...output, type: item.type as Json, id: item.id ?? null }
}

function applyAnswer(body: JsonObject, verdicts: AnswerVerdicts): JsonObject {
  body.output = output(body).map((item, at) => {
    const call = verdicts.calls.get(`${at}`)
    if (call) return callItem(item, call)
    const result = verdicts.results?.get(`${at}`)
    if (result !== undefined) return resultItem(item, result)
    if (item.type === 'reasoning') return reasoningItem(item, at, verdicts)
    if (item.type !== 'message' || !Array.isArray(item.content)) return item
    const joined = verdicts.texts.get(`${at}.joined`)
    const content = item.content.map((part, p) => {
      if (!isObject(part)) return part
      const { logprobs: _logprobs, ...rest } = part
      const next: JsonObject = verdicts.textChecked ? rest : { ...part }
      if (verdicts.textChecked && part.logprobs !== undefined) next.logprobs = []
      const text = joined !== undefined ? (p === 0 ? joined : '') : verdicts.texts.get(`${at}.${p}`)
      if (text === undefined) return next
      if (part.type === 'refusal') next.refusal = text
      else next.text = text
      return next
    })
    return { ...item, content }
  })
  if (typeof body.output_text === 'string') {
    body.output_text = output(body)
      .flatMap((item) => (item.type === 'message' && Array.isArray(item.content) ? item.content : []))
      .map((part) => (isObject(part) && part.type === 'output_text' ? String(part.text ?? '') : ''))
      .join('')
  }
  return body
}

function reasoningItem(item: JsonObject, at: number, verdicts: AnswerVerdicts): JsonObject {
  const next = { ...item }
  for (const [field, tag] of [
    ['summary', 's'],
    ['content', 'c'],
  ] as const) {
    if (!Array.isArray(item[field])) continue
    next[field] = (item[field] as Json[]).map((part, i) => {
      const text = verdicts.texts.get(`${at}.${tag}${i}`)
      return text !== undefined && isObject(part) ? { ...part, text } : part
    })
  }
  return next
}

/** OpenAI Responses. */
export const responsesApi: LlmApi = {
  name: 'responses',
  label: 'OpenAI Responses',
  readRequest: readResponsesRequest,
  applyRequest: applyResponsesRequest,
  readAnswer,
  applyAnswer,
  errorBody: openAiErrorBody,
  relay: (checks) => new ResponsesRelay(checks, { readAnswer, applyAnswer, callOf, callItem, outputRefusal }),
}
