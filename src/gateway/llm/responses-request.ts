// An OpenAI Responses request as the gateway sees it. Every item of `input` is classified by
// the closed-world tables (an unknown or unreadable type refuses the request, naming it),
// and so is every content part of a message and every tool offered. Every user text
// (`input_text` parts, a string `input`, inline `input_file` data) is checked wherever it
// stands, each message's parts also joined; every tool output (`function_call_output`,
// `custom_tool_call_output`, `local_shell_call_output`, `shell_call_output`,
// `apply_patch_call_output`, `computer_call_output`, an earlier `mcp_call`) is checked as
// `tool.post`, named after the call it answers; a reusable `prompt`'s text variables are user
// texts too. Texts and outputs are keyed by position;
// `instructions` is the system prompt. `background: true` is refused: its answer would be
// delivered later, around the stream checks.

import type { Json, JsonObject } from '../../core/index.js'
import { classifyItem, type ItemTable, type UnknownTypePolicy } from '../kit/index.js'
import {
  type ApiErrorInfo,
  isObject,
  notingLetThrough,
  parseArguments,
  type RequestChanges,
  type RequestView,
} from './api.js'
import { outputText } from './chat.js'
import {
  RESPONSES_INPUT_CONTENT,
  RESPONSES_INPUT_ITEMS,
  RESPONSES_TOOLS,
  RESPONSES_UNCHECKED,
} from './responses-tables.js'

/** The name each client-executed call type goes by when it has none of its own. */
export const CALL_NAMES: Readonly<Record<string, string>> = {
  local_shell_call: 'local_shell',
  shell_call: 'shell',
  apply_patch_call: 'apply_patch',
  computer_call: 'computer',
}

const RESULTS = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'shell_call_output',
  'apply_patch_call_output',
  'computer_call_output',
  'mcp_call',
])

function items(input: Json | undefined): Json[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }]
  return Array.isArray(input) ? input : []
}

/** The refusal of a type in `table`, or undefined when it is checked, inert or let through. */
function refusal(table: ItemTable, type: unknown, types?: UnknownTypePolicy): ApiErrorInfo | undefined {
  const verdict = classifyItem(table, type, types)
  if (verdict.kind !== 'refused') return undefined
  const known = typeof type === 'string' ? RESPONSES_UNCHECKED[table.key]?.[type] : undefined
  const message = known
    ? `${table.protocol} ${table.place} type "${type}" is refused: ${known} (an operator can let it through unchecked with ${types?.setting ?? 'llm.allowUnknownTypes'}: ["${verdict.key}"])`
    : verdict.reason
  return { status: 400, code: 'unchecked_type', message: `Warden refused the request: ${message}` }
}

/** The decoded text of an inline file (`data:…;base64,…` or bare base64). */
function fileText(data: string): string {
  const comma = data.startsWith('data:') ? data.indexOf(',') : -1
  return Buffer.from(comma >= 0 ? data.slice(comma + 1) : data, 'base64').toString('utf8')
}

/** Reads a Responses request; `types` lets named unknown types through. */
export function readResponsesRequest(body: JsonObject, given?: UnknownTypePolicy): RequestView {
  const letThrough: string[] = []
  const types = notingLetThrough(given, letThrough)
  const view = readWith(body, types)
  if (letThrough.length > 0) view.letThrough = letThrough
  return view
}

function readWith(body: JsonObject, types?: UnknownTypePolicy): RequestView {
  const input = items(body.input)
  const view: RequestView = {
    stream: body.stream === true,
    messages: input,
    tools: Array.isArray(body.tools) ? body.tools : [],
    toolResults: [],
    userTexts: [],
  }
  if (typeof body.model === 'string') view.model = body.model
  if (body.instructions !== undefined && body.instructions !== null) view.system = body.instructions
  if (body.background === true) {
    view.refusal = {
      status: 400,
      code: 'unchecked_type',
      message:
        'Warden refused the request: background responses are delivered later, around the checks of a streamed answer; ask without background: true',
    }
    return view
  }
  for (const tool of view.tools) {
    const type = isObject(tool) ? tool.type : undefined
    const shown = type === 'mcp' && isObject(tool) && tool.require_approval !== 'always' ? 'mcp.auto' : type
    view.refusal ??= refusal(RESPONSES_TOOLS, shown, types)
  }
  const names = new Map<string, string>()
  const texts = view.userTexts as { key: string; text: string }[]
  if (isObject(body.prompt)) readPrompt(body.prompt, texts, view)
  input.forEach((item, at) => {
    if (view.refusal || !isObject(item)) {
      view.refusal ??= refusal(RESPONSES_INPUT_ITEMS, undefined, types)
      return
    }
    const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined)
    view.refusal = refusal(RESPONSES_INPUT_ITEMS, type, types)
    if (view.refusal) return
    if (typeof item.call_id === 'string' && typeof type === 'string' && !RESULTS.has(type))
      names.set(item.call_id, String(item.name ?? CALL_NAMES[type] ?? type))
    if (type === 'mcp_approval_response' && item.approve === true) approve(item, input, at, view)
    if (type === 'message') readMessage(item, `${at}`, texts, view, types)
    else if (typeof type === 'string' && RESULTS.has(type)) {
      const id = String(item.call_id ?? item.id ?? '')
      const name = type === 'mcp_call' ? String(item.name ?? 'mcp') : (names.get(id) ?? 'unknown')
      const output = type === 'mcp_call' ? (item.output ?? item.error ?? '') : (item.output ?? '')
      const result = { key: `${at}`, id, name, output }
      view.toolResults.push(item.status === 'failed' ? { ...result, isError: true } : result)
    }
  })
  return view
}

function readMessage(
  item: JsonObject,
  at: string,
  texts: { key: string; text: string }[],
  view: RequestView,
  types?: UnknownTypePolicy,
): void {
  const user = item.role === 'user'
  if (typeof item.content === 'string') {
    if (user) texts.push({ key: at, text: item.content })
    return
  }
  if (!Array.isArray(item.content)) {
    view.refusal = refusal(RESPONSES_INPUT_CONTENT, undefined, types)
    return
  }
  const parts: string[] = []
  item.content.forEach((part, p) => {
    if (view.refusal) return
    const type = isObject(part) ? part.type : undefined
    const remote = type === 'input_file' && isObject(part) && typeof part.file_data !== 'string'
    view.refusal = refusal(RESPONSES_INPUT_CONTENT, remote ? 'input_file.remote' : type, types)
    if (user && (type === 'output_text' || type === 'refusal'))
      view.refusal = {
        status: 400,
        code: 'unchecked_type',
        message: `Warden refused the request: a user message holds a "${type}" part, which only the model's own messages carry`,
      }
    if (view.refusal || !user || !isObject(part)) return
    if (type === 'input_text' && typeof part.text === 'string') {
      texts.push({ key: `${at}.${p}`, text: part.text })
      parts.push(part.text)
    }
    if (type === 'input_file' && typeof part.file_data === 'string')
      texts.push({ key: `${at}.${p}.file`, text: fileText(part.file_data) })
  })
  if (parts.length > 1) texts.push({ key: `${at}.joined`, text: parts.join('\n') })
}

/**
 * An approval of an upstream MCP call: accepted only with its `mcp_approval_request` in the
 * same input, whose call is checked again as `tool.pre` (an approval of a call Warden blocked,
 * or of one it cannot see, would let the upstream run it).
 */
function approve(item: JsonObject, input: Json[], at: number, view: RequestView): void {
  const id = item.approval_request_id
  const asked = input.findIndex(
    (other) => isObject(other) && other.type === 'mcp_approval_request' && other.id === id,
  )
  const request = input[asked]
  if (typeof id !== 'string' || asked < 0 || !isObject(request)) {
    view.refusal = {
      status: 400,
      code: 'unchecked_type',
      message:
        'Warden refused the request: an mcp_approval_response is accepted only with its mcp_approval_request in the same input, so the call it approves can be checked',
    }
    return
  }
  const args = typeof request.arguments === 'string' ? request.arguments : ''
  view.approvals ??= []
  view.approvals.push({
    key: `${at}`,
    id,
    name: String(request.name ?? 'mcp'),
    input: { ...parseArguments(args), server_label: request.server_label ?? null },
  })
}

/** A reusable prompt's variables: text ones are user texts; others Warden cannot read are refused. */
function readPrompt(prompt: JsonObject, texts: { key: string; text: string }[], view: RequestView): void {
  const variables = isObject(prompt.variables) ? prompt.variables : {}
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value === 'string') texts.push({ key: `prompt.${name}`, text: value })
    else if (isObject(value) && value.type === 'input_text' && typeof value.text === 'string')
      texts.push({ key: `prompt.${name}`, text: value.text })
    else if (!(isObject(value) && value.type === 'input_image')) {
      view.refusal ??= {
        status: 400,
        code: 'unchecked_type',
        message: `Warden refused the request: prompt variable "${name.slice(0, 64)}" is neither text nor an image, so it cannot be checked`,
      }
    }
  }
}

/** Puts checked user texts and tool outputs back, by position. */
export function applyResponsesRequest(body: JsonObject, changes: RequestChanges): JsonObject {
  if (typeof body.input === 'string') {
    const text = changes.userTexts?.get('0') ?? changes.userText
    if (text !== undefined) body.input = text
  }
  const input = Array.isArray(body.input) ? body.input : []
  for (const [key, text] of changes.userTexts ?? []) {
    if (key.startsWith('prompt.')) {
      const variables = isObject(body.prompt) && isObject(body.prompt.variables) ? body.prompt.variables : {}
      const name = key.slice('prompt.'.length)
      const value = variables[name]
      variables[name] = isObject(value) ? { ...value, text } : text
      continue
    }
    const [at, part, file] = key.split('.')
    const item = input[Number(at)]
    if (!isObject(item)) continue
    if (part === undefined) item.content = text
    else if (part === 'joined' && Array.isArray(item.content)) item.content = joinedParts(item.content, text)
    else if (Array.isArray(item.content)) {
      const target = item.content[Number(part)]
      if (!isObject(target)) continue
      if (file === 'file') target.file_data = `data:text/plain;base64,${Buffer.from(text).toString('base64')}`
      else target.text = text
    }
  }
  for (const [key, output] of changes.toolOutputs) {
    const item = input[Number(key)]
    if (isObject(item)) item.output = resultOutput(item, output)
  }
  if (changes.messages) body.input = changes.messages
  if (changes.tools) body.tools = changes.tools
  if (changes.system !== undefined) body.instructions = changes.system
  return body
}

/** The content with its input_text parts replaced by one holding `text`, where the first was. */
function joinedParts(content: Json[], text: string): Json[] {
  let placed = false
  return content.flatMap((part) => {
    if (!isObject(part) || part.type !== 'input_text') return [part]
    if (placed) return []
    placed = true
    return [{ ...part, text }]
  })
}

/** A rewritten tool output, in the shape its item type carries. */
function resultOutput(item: JsonObject, output: Json): Json {
  if (item.type === 'shell_call_output') {
    if (Array.isArray(output)) return output
    const first = Array.isArray(item.output) && isObject(item.output[0]) ? item.output[0] : {}
    const text = typeof output === 'string' ? output : JSON.stringify(output)
    return [{ ...first, stdout: text, stderr: '' }]
  }
  if (item.type === 'computer_call_output') return output
  if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
    return outputText(output)
  return typeof output === 'string' ? output : JSON.stringify(output)
}
