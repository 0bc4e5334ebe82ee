// Anthropic Messages (`POST /v1/messages`) as the gateway sees it. The request is read in
// anthropic-request.ts, a streamed answer relayed in anthropic-stream.ts. An answer's texts
// are its `text` blocks (each, and joined), its tool calls its `tool_use` blocks and the
// server tool calls (`server_tool_use`, `mcp_tool_use`: already run, so a deny refuses the
// answer), its tool results the server tools' result blocks (`tool.post`, a rewrite replaces
// their content). A blocked tool call becomes a `text` block saying why (`stop_reason:
// tool_use` becomes `end_turn` when no call is left); a block of a type Warden does not know
// refuses the answer; errors are `{type: "error", error: {type, message}}`.

import type { Json, JsonObject } from '../../core/index.js'
import type { UnknownTypePolicy } from '../kit/index.js'
import { applyAnthropicRequest, blocks, readAnthropicRequest } from './anthropic-request.js'
import { MessagesRelay } from './anthropic-stream.js'
import { ANTHROPIC_OUTPUT } from './anthropic-tables.js'
import {
  type AnswerVerdicts,
  type AnswerView,
  type ApiErrorInfo,
  isObject,
  type LlmApi,
  type ToolCallView,
  type ToolResultView,
} from './api.js'
import { TypeCheck } from './item-types.js'

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

/** An Anthropic error body. */
export function anthropicErrorBody(error: ApiErrorInfo): JsonObject {
  return { type: 'error', error: { type: errorType(error.status), message: error.message } }
}

/** Block types of calls Anthropic runs itself (server tools, MCP). */
export const SERVER_CALLS: ReadonlySet<unknown> = new Set(['server_tool_use', 'mcp_tool_use'])

/** The answer block a call block is, as `tool.pre` sees it, or why it cannot be read. */
export function callOf(block: JsonObject, key: string, input?: Json): ToolCallView | string {
  if (typeof block.name !== 'string' || block.name === '') return `a ${String(block.type)} block has no name`
  const given = input ?? block.input
  if (given !== undefined && !isObject(given))
    return `the input of tool call ${block.name.slice(0, 64)} is not an object`
  const call: ToolCallView = {
    id: typeof block.id === 'string' ? block.id : '',
    key,
    name: block.name,
    input: given ?? {},
  }
  if (SERVER_CALLS.has(block.type)) {
    call.upstream = true
    if (typeof block.server_name === 'string') call.name = `${block.server_name}/${block.name}`
  }
  return call
}

/** A server tool's result block as `tool.post` sees it. */
export function resultOf(block: JsonObject, key: string, names: ReadonlyMap<string, string>): ToolResultView {
  const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : ''
  const result: ToolResultView = {
    id,
    key,
    name: names.get(id) ?? String(block.type),
    output: block.content ?? null,
  }
  if (block.is_error === true) result.isError = true
  return result
}

function readAnswer(body: JsonObject, policy?: UnknownTypePolicy): AnswerView {
  const types = new TypeCheck(policy, 502)
  const view: AnswerView = { texts: [], calls: [], results: [], groups: [[]] }
  if (body.content !== undefined && !Array.isArray(body.content)) types.refuse('content is not a list')
  const names = new Map<string, string>()
  const list: Json[] = Array.isArray(body.content) ? body.content : []
  list.forEach((block, index) => {
    const verdict = types.verdict(ANTHROPIC_OUTPUT, isObject(block) ? block.type : undefined)
    if (verdict.kind !== 'checked' || !isObject(block)) return
    const key = String(index)
    if (block.type === 'text') {
      if (typeof block.text !== 'string') types.refuse('a text block has no text')
      else {
        view.texts.push({ key, text: block.text })
        view.groups?.[0]?.push(key)
      }
    } else if (verdict.event === 'tool.pre') {
      const call = callOf(block, key)
      if (typeof call === 'string') types.refuse(`${call}; Warden denies what it cannot read`)
      else {
        view.calls.push(call)
        names.set(call.id, call.name)
      }
    } else if (verdict.event === 'tool.post') view.results?.push(resultOf(block, key, names))
  })
  if (isObject(body.usage)) view.usage = body.usage
  const refusal = types.refusal()
  if (refusal) view.refusal = refusal
  if (types.letThrough().length > 0) view.letThrough = types.letThrough()
  return view
}

function applyAnswer(body: JsonObject, verdicts: AnswerVerdicts): JsonObject {
  let calls = 0
  const content = blocks(body.content).map((block, index): JsonObject => {
    const key = String(index)
    const text = verdicts.texts.get(key)
    if (text !== undefined) return { ...block, text }
    const output = verdicts.results?.get(key)
    if (output !== undefined) return { ...block, content: output }
    if (block.type !== 'tool_use') return block
    const verdict = verdicts.calls.get(key)
    if (verdict?.kind === 'blocked') return { type: 'text', text: verdict.text }
    calls++
    return verdict?.kind === 'rewrite' ? { ...block, input: verdict.input } : block
  })
  body.content = content
  if (calls === 0 && body.stop_reason === 'tool_use') body.stop_reason = 'end_turn'
  return body
}

/** Anthropic Messages. */
export const anthropicApi: LlmApi = {
  name: 'anthropic',
  label: 'Anthropic Messages',
  readRequest: readAnthropicRequest,
  applyRequest: applyAnthropicRequest,
  readAnswer,
  applyAnswer,
  errorBody: anthropicErrorBody,
  relay: (checks) => new MessagesRelay(checks),
}
