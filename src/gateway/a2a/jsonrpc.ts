// The JSON-RPC binding: one POST per call to the path of the upstream's JSON-RPC interface.
// The envelope is checked at the edge (JSON, `jsonrpc: "2.0"`, a string or integer id, a
// known A2A method, object params) and every problem answered with its JSON-RPC error;
// a checked call is forwarded with the same id and method, streaming ones as SSE.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Json, JsonObject } from '../../core/index.js'
import { type ForwardDeps, forwardCall, type TransportCall, upstreamHeaders } from './forward.js'
import { A2A_JSONRPC_METHODS, methodInfo } from './methods.js'
import { type Caller, isObject, type Target } from './payload.js'
import { sseFrame } from './sse.js'
import type { Decoded } from './stream.js'
import {
  invalid,
  type Refusal,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  rpcError,
} from './wire.js'

/** Writes a JSON-RPC refusal (HTTP 200 for denials and bad calls, 413/502/504 otherwise). */
export function writeRpcRefusal(res: ServerResponse, id: Json, refusal: Refusal): void {
  const status = refusal.status === 413 || refusal.kind === 'upstream' ? refusal.status : 200
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(rpcError(id, refusal)))
}

/** Handles one JSON-RPC request body aimed at an upstream JSON-RPC interface. */
export async function handleJsonRpc(
  deps: ForwardDeps,
  body: Buffer,
  upstreamUrl: URL,
  caller: Caller,
  target: Target,
  forwardAuthorization: boolean,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let envelope: unknown
  try {
    envelope = JSON.parse(body.toString('utf8'))
  } catch {
    return writeRpcRefusal(res, null, invalid(RPC_PARSE_ERROR, 'the body is not valid JSON'))
  }
  const problem = envelopeProblem(envelope)
  if (problem) {
    const id =
      isObject(envelope) && (typeof envelope.id === 'string' || typeof envelope.id === 'number')
        ? envelope.id
        : null
    return writeRpcRefusal(res, id, problem)
  }
  const request = envelope as { id: string | number; method: string; params?: JsonObject }
  const info = methodInfo(request.method)
  if (!info) {
    const refusal = invalid(
      RPC_METHOD_NOT_FOUND,
      `"${request.method.slice(0, 100)}" is not an A2A method; use one of ${A2A_JSONRPC_METHODS.join(', ')}`,
    )
    return writeRpcRefusal(res, request.id, refusal)
  }
  const id = request.id
  const call: TransportCall = {
    info,
    method: request.method,
    id,
    params: request.params ?? {},
    caller,
    target,
    requestId: String(id),
    upstreamRequest: (params, signal, unchanged) => ({
      url: upstreamUrl,
      method: 'POST',
      headers: upstreamHeaders(
        req,
        forwardAuthorization,
        info.streaming ? 'text/event-stream' : 'application/json',
      ),
      body: unchanged
        ? body.toString('utf8')
        : JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params }),
      signal,
    }),
    readAnswer(status, text) {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return {
          type: 'garbage',
          reason: `the upstream answered HTTP ${status} with a body that is not JSON`,
        }
      }
      if (!isObject(parsed) || parsed.jsonrpc !== '2.0') {
        return {
          type: 'garbage',
          reason: `the upstream answered HTTP ${status} with something that is not a JSON-RPC response`,
        }
      }
      if ('error' in parsed) return { type: 'pass', status, body: text }
      if (!('result' in parsed))
        return { type: 'garbage', reason: 'the upstream JSON-RPC response has neither result nor error' }
      return { type: 'value', value: parsed.result as Json }
    },
    answer: (response, value, raw) => {
      const text = raw ?? JSON.stringify({ jsonrpc: '2.0', id, result: value })
      response.writeHead(200, { 'content-type': 'application/json' }).end(text)
    },
    refuse: (response, refusal) => writeRpcRefusal(response, id, refusal),
    sink: (response) => ({
      decode: (event) => decodeRpcEvent(event.data),
      write: (result) => response.write(sseFrame({ jsonrpc: '2.0', id, result })),
      passError: (raw) => response.write(sseFrame(raw)),
      fail: (refusal) => response.write(sseFrame(rpcError(id, refusal))),
    }),
  }
  await forwardCall(deps, call, res)
}

/** Reads one streamed JSON-RPC event. */
export function decodeRpcEvent(data: string): Decoded {
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch {
    return { type: 'garbage', reason: 'the upstream sent a streamed event that is not JSON' }
  }
  if (!isObject(parsed) || parsed.jsonrpc !== '2.0') {
    return { type: 'garbage', reason: 'the upstream sent a streamed event that is not a JSON-RPC response' }
  }
  if ('error' in parsed) return { type: 'error', raw: parsed }
  if (!('result' in parsed))
    return { type: 'garbage', reason: 'the upstream sent a streamed event without a result' }
  return { type: 'result', result: parsed.result as Json }
}

function envelopeProblem(value: unknown): Refusal | undefined {
  if (Array.isArray(value))
    return invalid(
      RPC_INVALID_REQUEST,
      'JSON-RPC batches are not supported by A2A; send one request per POST',
    )
  if (!isObject(value)) return invalid(RPC_INVALID_REQUEST, 'the body must be a JSON-RPC request object')
  if (value.jsonrpc !== '2.0') return invalid(RPC_INVALID_REQUEST, 'jsonrpc must be "2.0"')
  if (typeof value.id !== 'string' && !Number.isInteger(value.id)) {
    return invalid(RPC_INVALID_REQUEST, 'id must be a string or an integer (A2A has no notifications)')
  }
  if (typeof value.method !== 'string' || value.method.length === 0)
    return invalid(RPC_INVALID_REQUEST, 'method must be a non-empty string')
  if (value.params !== undefined && !isObject(value.params))
    return invalid(RPC_INVALID_PARAMS, 'params must be an object')
  return undefined
}
