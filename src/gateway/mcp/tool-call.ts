// A tools/call as tool events see it, and back: the arguments become `tool.input`, the
// result becomes `tool.output` (its content blocks) and `isError`; a modify on either is
// written back into the message that is forwarded, and checked before it leaves.

import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Decision, Json, JsonObject } from '../../core/index.js'
import { checkModifiedMessage, isObject, messageId, paramsOf, resultOf } from './jsonrpc.js'
import { canonicalJson } from './pins.js'

/** What `tool.post` sees of a tools/call answer. */
export interface ToolResultView {
  /** The result's content blocks (or the JSON-RPC error, for an error answer). */
  output: Json
  isError: boolean
  /** The result's structured content, when the tool returns one. */
  structuredContent?: Json
}

type Applied = { ok: true; message: JSONRPCMessage } | { ok: false; error: string }

/** The tool view of a tools/call answer. */
export function toolResultView(message: JSONRPCMessage): ToolResultView {
  const result = resultOf(message)
  if (!result) {
    const error = (message as { error?: unknown }).error
    return { output: isObject(error) ? error : null, isError: true }
  }
  const view: ToolResultView = {
    output: Array.isArray(result.content) ? result.content : [],
    isError: result.isError === true,
  }
  if (result.structuredContent !== undefined) view.structuredContent = result.structuredContent
  return view
}

/** Starts from the decision's `mcp.message` when it carries one (an `mcp.*` event). */
function baseMessage(decision: Pick<Decision, 'payload'>, original: JSONRPCMessage): Applied {
  const mcp = decision.payload?.mcp
  if (!isObject(mcp) || !isObject(mcp.message)) return { ok: true, message: original }
  return checkModifiedMessage(mcp.message, original)
}

/**
 * Writes a modify of `tool.pre` / `mcp.outbound` back into a tools/call request: a changed
 * `tool.input` becomes `params.arguments`. The tool name may not change.
 */
export function applyToolInput(
  decision: Pick<Decision, 'payload'>,
  original: JSONRPCMessage,
  input: JsonObject,
): Applied {
  const base = baseMessage(decision, original)
  if (!base.ok) return base
  let message = base.message
  const tool = decision.payload?.tool
  const name = paramsOf(original).name
  if (isObject(tool)) {
    if (tool.name !== undefined && tool.name !== name) {
      return { ok: false, error: 'a modify may not change the name of the tool called' }
    }
    if (tool.input !== undefined) {
      if (!isObject(tool.input)) return { ok: false, error: 'the modified tool.input must be an object' }
      if (canonicalJson(tool.input) !== canonicalJson(input)) {
        const params = { ...paramsOf(message), arguments: tool.input }
        message = { ...message, params } as JSONRPCMessage
      }
    }
  }
  if (paramsOf(message).name !== name) {
    return { ok: false, error: 'a modify may not change the name of the tool called' }
  }
  return { ok: true, message }
}

/**
 * Writes a modify of `tool.post` / `mcp.inbound` back into a tools/call answer: a changed
 * `tool.output` becomes the content, `isError` and `structuredContent` likewise. The new
 * result must be a valid tools/call result.
 */
export function applyToolResult(
  decision: Pick<Decision, 'payload'>,
  original: JSONRPCMessage,
  view: ToolResultView,
): Applied {
  const base = baseMessage(decision, original)
  if (!base.ok) return base
  let message = base.message
  const tool = decision.payload?.tool
  if (isObject(tool)) {
    const changes: JsonObject = {}
    if ('output' in tool && canonicalJson(tool.output) !== canonicalJson(view.output)) {
      changes.content = asContent(tool.output ?? null)
    }
    if (typeof tool.isError === 'boolean' && tool.isError !== view.isError) changes.isError = tool.isError
    if (
      'structuredContent' in tool &&
      canonicalJson(tool.structuredContent) !== canonicalJson(view.structuredContent)
    ) {
      changes.structuredContent = tool.structuredContent ?? null
    }
    if (Object.keys(changes).length > 0) {
      const result = resultOf(message) ?? { content: [], isError: true }
      const next: JsonObject = { ...result, ...changes }
      if (next.structuredContent === null) delete next.structuredContent
      message = { jsonrpc: '2.0', id: messageId(original), result: next } as JSONRPCMessage
    }
  }
  const result = resultOf(message)
  if (result && !CallToolResultSchema.safeParse(result).success) {
    return { ok: false, error: 'the modified tool result is not a valid tools/call result' }
  }
  return { ok: true, message }
}

/** Content blocks from a hook's output: blocks as they are, anything else as text. */
function asContent(output: Json): Json[] {
  if (Array.isArray(output)) return output
  if (typeof output === 'string') return [{ type: 'text', text: output }]
  return [{ type: 'text', text: JSON.stringify(output) }]
}

/** What tool events see of a tools/call answer: the call, its output and isError. */
export function toolWithResult(call: { name: string; input: JsonObject }, view: ToolResultView): JsonObject {
  const tool: JsonObject = { name: call.name, input: call.input, output: view.output, isError: view.isError }
  if (view.structuredContent !== undefined) tool.structuredContent = view.structuredContent
  return tool
}

/** The arguments of a tools/call request (an empty object when it has none). */
export function inputOf(message: JSONRPCMessage): JsonObject {
  const args = paramsOf(message).arguments
  return isObject(args) ? args : {}
}
