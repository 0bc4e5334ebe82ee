// What both transports share once a call is parsed: check the request, send it upstream,
// check what comes back (a whole answer as `a2a.response`, or a stream event by event),
// and answer the client, counting the streams open. A client that leaves while a hook's ask
// is held abandons the approval: nothing is sent upstream and nothing is recorded as allowed. The transport supplies how a call is
// framed upstream and how answers, errors and stream events are written.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EventContext, Json, JsonObject, OnCallerGone } from '../../core/index.js'
import { errorMessage } from '../../core/index.js'
import { CallerGone, type Upstream, UpstreamError, type UpstreamRequest } from '../kit/index.js'
import type { A2aChecks } from './checks.js'
import type { A2aLimits } from './limits.js'
import type { A2aMethodInfo } from './methods.js'
import type { Caller, RpcId, Target } from './payload.js'
import { SSE_HEADERS } from './sse.js'
import { type RelaySink, relayStream } from './stream.js'
import { type Refusal, upstreamFailure } from './wire.js'

/** The gateway-wide parts a call uses. */
export interface ForwardDeps {
  checks: A2aChecks
  upstream: Upstream
  limits: A2aLimits
  log: (line: string) => void
  /** Streams open now (kept for tests and shutdown). */
  streams: Set<Promise<void>>
}

/** How one transport frames a call and its answers. */
export interface TransportCall {
  info: A2aMethodInfo
  /** The method name events carry. */
  method: string
  /** The JSON-RPC id events carry (the caller's, or the generated request id on HTTP+JSON). */
  id: RpcId
  params: JsonObject
  caller: Caller
  target: Target
  requestId: string
  /** The upstream request for the (checked) params; `unchanged` when no hook modified them. */
  upstreamRequest(params: JsonObject, signal: CallerGone, unchanged: boolean): UpstreamRequest
  /**
   * Reads the upstream's whole answer: the value to check, or an upstream error to pass on
   * as it came, or garbage.
   */
  readAnswer(
    status: number,
    text: string,
  ):
    | { type: 'value'; value: Json }
    | { type: 'pass'; status: number; body: string }
    | { type: 'garbage'; reason: string }
    | { type: 'empty'; status: number }
  /** Writes a checked answer; `raw` is the upstream's own text when no hook changed it. */
  answer(res: ServerResponse, value: Json, raw?: string): void
  /** Writes a refusal. */
  refuse(res: ServerResponse, refusal: Refusal): void
  /** The stream sink writing to this response (after the SSE headers). */
  sink(res: ServerResponse): Omit<RelaySink, 'end'>
}

/** Runs one call end to end; never throws. */
export async function forwardCall(
  deps: ForwardDeps,
  call: TransportCall,
  res: ServerResponse,
): Promise<void> {
  // What undici takes as a signal, at a fraction of an AbortController's cost per call.
  const gone = new CallerGone()
  const onClose = () => {
    if (!res.writableFinished) gone.abort()
  }
  res.on('close', onClose)
  try {
    const checked = await deps.checks.request(
      call.info,
      call.method,
      call.id,
      call.params,
      call.caller,
      call.target,
      call.requestId,
      callerGone(res),
    )
    if (!checked.ok) return res.destroyed ? undefined : call.refuse(res, checked.refusal)
    if (gone.aborted) return
    const request = call.upstreamRequest(checked.params, gone, checked.params === call.params)
    if (call.info.streaming) return await openStream(deps, call, checked.context, request, res, gone)
    const answer = await deps.upstream.call(request)
    const read = call.readAnswer(answer.status, answer.text)
    if (read.type === 'garbage') return call.refuse(res, upstreamFailure('garbage', read.reason))
    if (read.type === 'empty') {
      res.writeHead(read.status).end()
      return
    }
    if (read.type === 'pass') {
      res.writeHead(read.status, { 'content-type': 'application/json' }).end(read.body)
      return
    }
    const result = await deps.checks.response(
      { method: call.method, operation: call.info.operation, caller: call.caller },
      call.id,
      read.value,
      checked.context,
      call.target,
    )
    if (!result.ok) return call.refuse(res, result.refusal)
    if (result.value === read.value) call.answer(res, result.value, answer.text)
    else call.answer(res, result.value)
  } catch (error) {
    if (gone.aborted) return
    const refusal =
      error instanceof UpstreamError
        ? upstreamFailure(error.kind, error.message)
        : upstreamFailure('unreachable', `the gateway failed: ${errorMessage(error)}`)
    deps.log(`${call.method}: ${refusal.message}`)
    if (!res.headersSent) call.refuse(res, refusal)
    else res.end()
  } finally {
    res.off('close', onClose)
  }
}

async function openStream(
  deps: ForwardDeps,
  call: TransportCall,
  context: EventContext,
  request: UpstreamRequest,
  res: ServerResponse,
  gone: CallerGone,
): Promise<void> {
  const stream = await deps.upstream.open(request)
  if (!stream.contentType.startsWith('text/event-stream')) {
    const text = await readAll(stream.body, deps.limits.maxEventBytes)
    const read = call.readAnswer(stream.status, text)
    if (read.type === 'pass') {
      res.writeHead(read.status, { 'content-type': 'application/json' }).end(read.body)
      return
    }
    const reason =
      read.type === 'garbage'
        ? read.reason
        : `the upstream answered HTTP ${stream.status} without an event stream`
    return call.refuse(res, upstreamFailure('garbage', reason))
  }
  res.writeHead(200, SSE_HEADERS)
  res.flushHeaders()
  const sink: RelaySink = { ...call.sink(res), end: () => res.end() }
  const relay = relayStream({
    checks: deps.checks,
    context,
    target: call.target,
    call: { method: call.method, operation: call.info.operation, caller: call.caller },
    id: call.id,
    limits: deps.limits,
    body: stream.body,
    sink,
    clientGone: gone,
    log: deps.log,
  })
  deps.streams.add(relay)
  try {
    await relay
  } finally {
    deps.streams.delete(relay)
  }
}

async function readAll(body: NodeJS.ReadableStream & { destroy(): void }, max: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += (chunk as Buffer).length
    if (size > max) {
      body.destroy()
      break
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * How a held ask learns that its caller went away: the response closed before it was
 * written, so the approval is marked abandoned at once and nothing is sent upstream.
 */
function callerGone(res: ServerResponse): OnCallerGone {
  return (listener) => {
    if (res.writableFinished) return
    if (res.destroyed) return listener()
    res.once('close', () => {
      if (!res.writableFinished) listener()
    })
  }
}

/** The headers passed on to the upstream: A2A's own, and the caller's credentials when asked. */
export function upstreamHeaders(
  req: IncomingMessage,
  forwardAuthorization: boolean,
  accept: string,
): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept }
  for (const name of ['a2a-version', 'a2a-extensions', 'x-a2a-extensions']) {
    const value = req.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  if (forwardAuthorization && typeof req.headers.authorization === 'string')
    headers.authorization = req.headers.authorization
  return headers
}
