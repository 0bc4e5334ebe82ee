// The in-flight limits on a plain Node HTTP server (the MCP HTTP gateway): a request with
// a body is admitted or answered 503 once its headers are in, and its body is read here,
// counted chunk by chunk, so that what the server holds never passes the limits.

import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  declaredLength,
  type InFlightLimiter,
  type InFlightRefusal,
  type InFlightTicket,
  isRefusal,
  refusalBody,
  refusalHeaders,
} from './limiter.js'

/** Why a body could not be read: too big for its own limit, or for the bytes in flight. */
export type BodyFailure = { tooLarge: number } | { refusal: InFlightRefusal } | { aborted: true }

/**
 * Admits `req` under `limiter`, or answers it 503. Requests without a body (GET, HEAD,
 * OPTIONS) are not limited and get no ticket. `maxBodyBytes` is the largest body the server
 * takes (a larger one is refused for its size, not held).
 * @returns the ticket (released when the answer is done), `'free'` for a bodiless request,
 * or undefined when the request was refused and answered.
 */
export function admitNodeRequest(
  limiter: InFlightLimiter,
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes = Number.POSITIVE_INFINITY,
): InFlightTicket | 'free' | undefined {
  const method = req.method ?? 'GET'
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return 'free'
  // A body declared over its own limit is refused 413 once read up to it: no bytes held.
  const declared = declaredLength(req.headers['content-length'])
  const admitted = limiter.admit(declared !== undefined && declared > maxBodyBytes ? 0 : declared)
  if (isRefusal(admitted)) {
    writeRefusal(res, admitted)
    return undefined
  }
  res.once('close', admitted.release)
  return admitted
}

/** Writes a refusal: HTTP 503, Retry-After, the JSON-RPC error naming the limit. */
export function writeRefusal(res: ServerResponse, refusal: InFlightRefusal, closeConnection = false): void {
  const body = refusalBody(refusal)
  const headers: Record<string, string | number> = {
    ...refusalHeaders(refusal),
    'content-length': Buffer.byteLength(body),
  }
  if (closeConnection) headers.connection = 'close'
  res.writeHead(503, headers)
  res.end(body)
}

/**
 * Reads a request's body, counting its bytes on the ticket as they arrive.
 * @returns the body, or why it could not be read (the rest of the body is not read).
 */
export function readCountedBody(
  req: IncomingMessage,
  ticket: InFlightTicket,
  maxBytes: number,
): Promise<Buffer | BodyFailure> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = (failure: BodyFailure) => {
      req.off('data', onData)
      req.off('end', onEnd)
      chunks.length = 0
      resolve(failure)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) return stop({ tooLarge: maxBytes })
      const refusal = ticket.add(chunk.length)
      if (refusal) return stop({ refusal })
      chunks.push(chunk)
    }
    const onEnd = () => {
      req.off('data', onData)
      req.off('aborted', onAborted)
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size))
    }
    const onAborted = () => stop({ aborted: true })
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('aborted', onAborted)
    req.once('error', onAborted)
  })
}
