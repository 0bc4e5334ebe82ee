// JSON-RPC 2.0 as AOS uses it: the error codes, the error that crosses the wire (a numeric
// code and a `data` naming the field), decoding a raw body (UTF-8, nesting depth, JSON) and
// checking the envelope of one request before any method sees it.

import { isUtf8 } from 'node:buffer'
import type { Json, JsonObject } from '../../core/index.js'

/** The JSON-RPC error codes AOS uses. */
export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const

const RPC_MESSAGES: Record<number, string> = {
  [-32700]: 'Invalid JSON payload',
  [-32600]: 'Request payload validation error',
  [-32601]: 'Method not found',
  [-32602]: 'Invalid parameters',
  [-32603]: 'Internal error',
}

/** What `error.data` carries: the field that was wrong and why. */
export interface RpcErrorData {
  field: string
  reason: string
  [key: string]: Json
}

/** An error that crosses the wire as a JSON-RPC error object. */
export class RpcError extends Error {
  override readonly name = 'RpcError'
  constructor(
    readonly code: number,
    readonly data: RpcErrorData,
  ) {
    super(`${data.field}: ${data.reason}`)
  }
}

/** A request id as AOS allows it. */
export type RpcId = string | number

/** One JSON-RPC request whose envelope was checked. */
export interface RpcRequest {
  jsonrpc: '2.0'
  method: string
  params: JsonObject
  /** Absent for a notification (no response is sent). */
  id?: RpcId
}

/** A JSON-RPC error response. `id` is null when the request's id could not be read. */
export function errorResponse(id: RpcId | null, error: RpcError): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: RPC_MESSAGES[error.code] ?? 'Server error', data: error.data },
  }
}

/** Shorthand for an {@link RpcError}. */
export function rpcError(code: number, field: string, reason: string): RpcError {
  return new RpcError(code, { field, reason })
}

/**
 * Decodes a request body: valid UTF-8, nesting no deeper than `maxDepth`, valid JSON.
 * @throws RpcError -32700 (not UTF-8, not JSON) or -32600 (nested too deep).
 */
export function decodeBody(body: Uint8Array, maxDepth: number): unknown {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (!isUtf8(bytes)) throw rpcError(RPC_ERRORS.parse, 'body', 'the body is not valid UTF-8')
  if (nestingDepth(bytes, maxDepth) > maxDepth) {
    throw rpcError(
      RPC_ERRORS.invalidRequest,
      'body',
      `the JSON nests deeper than ${maxDepth} levels; flatten the request`,
    )
  }
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch (error) {
    throw rpcError(RPC_ERRORS.parse, 'body', `the body is not valid JSON: ${(error as Error).message}`)
  }
}

const QUOTE = 34
const BACKSLASH = 92
const OPEN = [123, 91] as const
const CLOSE_BRACE = 125
const CLOSE_BRACKET = 93

/**
 * The deepest bracket nesting of a JSON text (strings skipped), read from its UTF-8 bytes
 * (multi-byte characters never contain ASCII bytes); stops counting past `cap`. A body
 * with no more than `cap` opening brackets in all cannot nest deeper, which the native
 * search settles without the byte-by-byte scan.
 */
function nestingDepth(bytes: Buffer, cap: number): number {
  let opening = 0
  for (const open of OPEN) {
    for (let at = bytes.indexOf(open); at >= 0 && opening <= cap; at = bytes.indexOf(open, at + 1)) opening++
  }
  if (opening <= cap) return opening
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN[0] || c === OPEN[1]) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > cap) return deepest
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
  }
  return deepest
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The id of a message if it is one AOS accepts, else undefined. */
export function readableId(message: unknown): RpcId | undefined {
  if (!isObject(message)) return undefined
  const id = message.id
  if (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) return id
  return undefined
}

/**
 * Checks the envelope of one request: `jsonrpc: "2.0"`, a method, an id that is a string
 * or an integer (absent for a notification), params an object.
 * @throws RpcError -32600 naming the field when the message is not a request object (not
 * an object, no `jsonrpc: "2.0"`, a bad id, no method); -32602 naming `params` when a
 * request object's params are not an object (a string, number, boolean or array).
 */
export function checkEnvelope(message: unknown): RpcRequest {
  if (!isObject(message)) {
    throw rpcError(RPC_ERRORS.invalidRequest, 'request', 'each request must be a JSON object')
  }
  if (message.jsonrpc !== '2.0') {
    throw rpcError(RPC_ERRORS.invalidRequest, 'jsonrpc', 'must be the string "2.0"')
  }
  if ('id' in message) {
    const id = message.id
    const valid = typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))
    if (!valid) {
      throw rpcError(
        RPC_ERRORS.invalidRequest,
        'id',
        'must be a string or an integer (leave it out to send a notification)',
      )
    }
    if (typeof id === 'string' && id.length > 256) {
      throw rpcError(RPC_ERRORS.invalidRequest, 'id', 'must be at most 256 characters')
    }
  }
  if (typeof message.method !== 'string' || message.method.length === 0) {
    throw rpcError(RPC_ERRORS.invalidRequest, 'method', 'must be a non-empty string such as "steps/message"')
  }
  // From here on the message is a request object; params of the wrong type (a string, a
  // number, a boolean, or an array where every AOS method takes named params) are invalid
  // params, not an invalid request.
  const params = message.params
  if (params !== undefined && params !== null && !isObject(params)) {
    throw rpcError(
      RPC_ERRORS.invalidParams,
      'params',
      Array.isArray(params)
        ? 'must be an object, not an array (AOS uses named params)'
        : `must be an object (got ${typeof params})`,
    )
  }
  const request: RpcRequest = { jsonrpc: '2.0', method: message.method, params: (params ?? {}) as JsonObject }
  if ('id' in message) request.id = message.id as RpcId
  return request
}
