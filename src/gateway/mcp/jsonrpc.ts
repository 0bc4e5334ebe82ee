// JSON-RPC at the gateway's edge: telling requests, notifications and responses apart,
// keying request ids, and building the answers the gateway sends in a peer's place (a
// JSON-RPC error for most denied requests, a tool result with isError for tools/call).

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { JSONRPCMessageSchema, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js'
import { type Json, type JsonObject, withArticle } from '../../core/index.js'

/** The JSON-RPC error code of a request Warden denied (a server-defined code). */
export const DENIED_ERROR_CODE = -32003

/** The JSON-RPC error code when the gateway itself failed while checking a message. */
export const GATEWAY_ERROR_CODE = -32603

/** A request id as JSON-RPC carries it. */
export type RequestId = string | number

/** What kind of JSON-RPC message this is. */
export type MessageKind = 'request' | 'notification' | 'response'

/** The kind of a message that passed the SDK's schema. */
export function messageKind(message: JSONRPCMessage): MessageKind {
  const record = message as Record<string, unknown>
  if (typeof record.method === 'string') return 'id' in record ? 'request' : 'notification'
  return 'response'
}

/** The id of a request or response, when it has one. */
export function messageId(message: JSONRPCMessage): RequestId | undefined {
  const id = (message as { id?: unknown }).id
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}

/** The method of a request or notification. */
export function messageMethod(message: JSONRPCMessage): string | undefined {
  const method = (message as { method?: unknown }).method
  return typeof method === 'string' ? method : undefined
}

/** A map key for a request id that keeps `1` and `"1"` apart. */
export function idKey(id: RequestId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`
}

/** The params of a request or notification as an object (empty when absent). */
export function paramsOf(message: JSONRPCMessage): JsonObject {
  const params = (message as { params?: unknown }).params
  return isObject(params) ? params : {}
}

/** The result of a success response, or undefined for an error response. */
export function resultOf(message: JSONRPCMessage): JsonObject | undefined {
  const result = (message as { result?: unknown }).result
  return isObject(result) ? result : undefined
}

/** A JSON-RPC error response. */
export function errorResponse(id: RequestId, code: number, message: string, data?: Json): JSONRPCMessage {
  const error: JsonObject = { code, message }
  if (data !== undefined) error.data = data
  return { jsonrpc: '2.0', id, error } as JSONRPCMessage
}

/** A tools/call result that reports the call as failed, with the reason as text. */
export function toolErrorResult(id: RequestId, text: string): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text }], isError: true },
  } as JSONRPCMessage
}

/**
 * Checks a message a hook produced (a modify) before it is forwarded.
 * @returns the message, or an error naming what is wrong with it.
 */
export function checkModifiedMessage(
  candidate: unknown,
  original: JSONRPCMessage,
): { ok: true; message: JSONRPCMessage } | { ok: false; error: string } {
  const parsed = JSONRPCMessageSchema.safeParse(candidate)
  if (!parsed.success) return { ok: false, error: 'the modified message is not a valid JSON-RPC message' }
  const message = parsed.data as JSONRPCMessage
  if (messageKind(message) !== messageKind(original)) {
    return {
      ok: false,
      error: `a modify may not turn ${withArticle(messageKind(original))} into ${withArticle(messageKind(message))}`,
    }
  }
  if (messageId(message) !== messageId(original))
    return { ok: false, error: 'a modify may not change the message id' }
  if (messageMethod(message) !== messageMethod(original)) {
    return { ok: false, error: 'a modify may not change the method' }
  }
  return { ok: true, message }
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result'])
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error'])

/**
 * What makes a parsed value not a JSON-RPC message MCP accepts, or undefined when it is
 * one: the rules of the SDK's `JSONRPCMessageSchema` (a request, a notification, a result
 * or an error response, with no other top-level members), checked without copying.
 */
export function envelopeProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object'
  if (value.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"'
  let keys: Set<string>
  if ('method' in value) {
    if (typeof value.method !== 'string') return 'method must be a string'
    if ('id' in value && !isRequestId(value.id)) return 'id must be a string or an integer'
    if (value.params !== undefined) {
      if (!isObject(value.params)) return 'params must be an object'
      const problem = metaProblem(value.params._meta)
      if (problem) return `params._meta: ${problem}`
    }
    keys = REQUEST_KEYS
  } else if ('result' in value) {
    if (!isRequestId(value.id)) return 'id must be a string or an integer'
    if (!isObject(value.result)) return 'result must be an object'
    const problem = metaProblem(value.result._meta)
    if (problem) return `result._meta: ${problem}`
    keys = RESULT_KEYS
  } else if ('error' in value) {
    if (value.id !== undefined && !isRequestId(value.id)) return 'id must be a string or an integer'
    const error = value.error
    if (!isObject(error)) return 'error must be an object'
    if (!Number.isInteger(error.code)) return 'error.code must be an integer'
    if (typeof error.message !== 'string') return 'error.message must be a string'
    keys = ERROR_KEYS
  } else {
    return 'neither a request, a notification nor a response'
  }
  for (const key in value) if (!keys.has(key)) return `unexpected member "${key}"`
  return undefined
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isInteger(value)
}

/** What is wrong with a `_meta` object (its progress token and related task). */
function metaProblem(meta: unknown): string | undefined {
  if (meta === undefined) return undefined
  if (!isObject(meta)) return 'must be an object'
  if (meta.progressToken !== undefined && !isRequestId(meta.progressToken)) {
    return 'progressToken must be a string or an integer'
  }
  const task = meta[RELATED_TASK_META_KEY]
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string')) {
    return `${RELATED_TASK_META_KEY} must be an object with a taskId`
  }
  return undefined
}

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
