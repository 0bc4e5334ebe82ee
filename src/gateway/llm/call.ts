// One call through the gateway: the request checked and sent to the model API with the
// agent's headers (minus Warden's own and hop-by-hop ones; the configured API key when
// there is one), then the answer: an upstream error passes through as it came (status,
// headers, body), a whole answer is checked and sent, a stream is relayed event by event.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { Dispatcher } from 'undici'
import { errorMessage, type JsonObject } from '../../core/index.js'
import { SSE_HEADERS } from '../a2a/index.js'
import { CallerGone, pinnedUrl, type Upstream, UpstreamError } from '../kit/index.js'
import { type ApiErrorInfo, isObject, type LlmApi } from './api.js'
import type { CallScope, LlmChecks } from './checks.js'
import type { LlmLimits } from './limits.js'
import { relayStream } from './relay.js'

/** What every call needs. */
export interface CallDeps {
  checks: LlmChecks
  upstream: Upstream
  /** The model API's base URL; request paths are appended to it. */
  base: URL
  limits: LlmLimits
  /** The configured API key, sent in place of the agent's. */
  apiKey?: string
  /** Streams being relayed now. */
  streams: Set<Promise<void>>
  log: (line: string) => void
}

/** Request headers never forwarded (hop-by-hop, recomputed, or Warden's own). */
const DROPPED_REQUEST = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
  'accept-encoding',
  'origin',
  'referer',
  'cookie',
])

/** Response headers never passed back (hop-by-hop, or wrong once the body may change). */
const DROPPED_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'trailer',
  'upgrade',
])

/** Pinned upstream URLs by base and request target (agents call a handful of paths). */
const pinned = new WeakMap<URL, Map<string, URL>>()
/** Targets remembered per base; past it the map starts over. */
const PINNED_TARGETS = 64

/** The upstream URL of a request path (pinned to the base's origin; see {@link pinnedUrl}). */
export function upstreamUrl(base: URL, path: string): URL {
  let known = pinned.get(base)
  const hit = known?.get(path)
  if (hit) return hit
  const url = pinnedUrl(base, path)
  if (!known) {
    known = new Map()
    pinned.set(base, known)
  }
  if (known.size >= PINNED_TARGETS) known.clear()
  known.set(path, url)
  return url
}

/**
 * The headers sent upstream.
 * @param drop headers that carried the caller's Warden token
 */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  api: LlmApi | undefined,
  apiKey: string | undefined,
  drop: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (
      value === undefined ||
      DROPPED_REQUEST.has(name) ||
      name.startsWith('x-warden-') ||
      drop.includes(name)
    )
      continue
    out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  out['accept-encoding'] = 'identity'
  if (apiKey !== undefined) {
    delete out.authorization
    delete out['x-api-key']
    if (api?.name === 'anthropic') out['x-api-key'] = apiKey
    else out.authorization = `Bearer ${apiKey}`
  }
  return out
}

/** The upstream's response headers worth passing on (rate limits, request ids, ...). */
export function passedHeaders(
  headers: Dispatcher.ResponseData['headers'],
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !DROPPED_RESPONSE.has(name)) out[name] = value
  }
  return out
}

/** Writes a gateway-made error in the API's shape. */
export function writeApiError(res: ServerResponse, api: LlmApi, error: ApiErrorInfo): void {
  if (res.headersSent) {
    res.end()
    return
  }
  res
    .writeHead(error.status, { 'content-type': 'application/json', 'x-warden-error': error.code })
    .end(JSON.stringify(api.errorBody(error)))
}

/** The API error of an upstream failure. */
export function upstreamError(error: unknown): ApiErrorInfo {
  if (error instanceof UpstreamError) {
    const status = error.kind === 'timeout' ? 504 : 502
    return { status, code: `upstream_${error.kind.replace('-', '_')}`, message: error.message }
  }
  return { status: 502, code: 'upstream_unreachable', message: `the gateway failed: ${errorMessage(error)}` }
}

/** Handles one model call end to end. Never throws. */
export async function handleModelCall(
  deps: CallDeps,
  api: LlmApi,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  scope: CallScope,
  drop: readonly string[],
): Promise<void> {
  let body: JsonObject
  try {
    const parsed = JSON.parse(raw.toString('utf8')) as unknown
    if (!isObject(parsed)) throw new Error('the body is not a JSON object')
    body = parsed
  } catch (error) {
    return writeApiError(res, api, {
      status: 400,
      code: 'invalid_request',
      message: `the ${api.label} request is not valid JSON: ${errorMessage(error)}`,
    })
  }
  const checked = await deps.checks.request(api, body, scope)
  if (!checked.ok) return writeApiError(res, api, checked.error)
  if (res.destroyed) return
  const url = upstreamUrl(deps.base, req.url ?? '/')
  const headers = upstreamHeaders(req.headers, api, deps.apiKey, drop)
  const payload = checked.changed ? JSON.stringify(checked.body) : raw
  if (checked.changed) headers['content-type'] = 'application/json'
  const gone = new CallerGone()
  const onClose = () => {
    if (!res.writableFinished) gone.abort()
  }
  res.once('close', onClose)
  try {
    if (checked.body.stream === true) {
      const answer = await deps.upstream.open({
        url,
        method: 'POST',
        headers,
        body: payload,
        signal: gone,
      })
      if (answer.status >= 300 || !answer.contentType.startsWith('text/event-stream')) {
        const text = await readAll(answer.body, deps.limits.maxAnswerBytes)
        if (answer.status < 200 || answer.status >= 300)
          return passThrough(res, answer.status, answer.headers, text)
        // A whole answer to a streamed request is still an answer: checked as one.
        return await answerWhole(deps, api, res, scope, { ...answer, text })
      }
      res.writeHead(200, { ...passedHeaders(answer.headers), ...SSE_HEADERS })
      res.flushHeaders()
      const relay = api.relay(deps.checks.streamChecks(scope))
      const done = relayStream({
        relay,
        body: answer.body,
        res,
        limits: deps.limits,
        log: deps.log,
        delivered: () => deps.checks.report(api, relay.summary(), scope, relay.letThrough?.()),
      })
      deps.streams.add(done)
      await done
      deps.streams.delete(done)
      return
    }
    const answer = await deps.upstream.call({
      url,
      method: 'POST',
      headers,
      body: payload,
      signal: gone,
    })
    if (answer.status < 200 || answer.status >= 300)
      return passThrough(res, answer.status, answer.headers, answer.text)
    await answerWhole(deps, api, res, scope, answer)
  } catch (error) {
    if (gone.aborted) return
    const failure = upstreamError(error)
    deps.log(`${api.label}: ${failure.message}`)
    writeApiError(res, api, failure)
  } finally {
    res.off('close', onClose)
  }
}

/** Checks a whole 2xx answer and writes it (or the refusal). */
async function answerWhole(
  deps: CallDeps,
  api: LlmApi,
  res: ServerResponse,
  scope: CallScope,
  answer: { status: number; headers: Dispatcher.ResponseData['headers']; text: string },
): Promise<void> {
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.text)
  } catch {
    parsed = undefined
  }
  if (!isObject(parsed)) {
    return writeApiError(res, api, {
      status: 502,
      code: 'upstream_garbage',
      message: `the model API answered ${answer.status} with a body that is not a JSON object`,
    })
  }
  const result = await deps.checks.answer(api, parsed, scope)
  if (!result.ok) return writeApiError(res, api, result.error)
  const out = result.changed ? JSON.stringify(result.body) : answer.text
  res
    .writeHead(answer.status, { ...passedHeaders(answer.headers), 'content-type': 'application/json' })
    .end(out)
}

/**
 * Fetches a stored answer (`GET …/responses/{id}`, how `background: true` delivers) and
 * checks it as an answer; a streamed retrieval (`?stream=true`) is refused. Never throws.
 */
export async function handleStoredAnswer(
  deps: CallDeps,
  api: LlmApi,
  req: IncomingMessage,
  res: ServerResponse,
  scope: CallScope,
  drop: readonly string[],
): Promise<void> {
  const target = req.url ?? '/'
  if (/[?&]stream=(true|1)\b/i.test(target))
    return writeApiError(res, api, {
      status: 400,
      code: 'unchecked_type',
      message: 'Warden refused the request: a stored answer is checked whole; fetch it without stream=true',
    })
  try {
    const answer = await deps.upstream.call({
      url: upstreamUrl(deps.base, target),
      method: 'GET',
      headers: upstreamHeaders(req.headers, api, deps.apiKey, drop),
    })
    if (answer.status < 200 || answer.status >= 300)
      return passThrough(res, answer.status, answer.headers, answer.text)
    await answerWhole(deps, api, res, scope, answer)
  } catch (error) {
    const failure = upstreamError(error)
    deps.log(`${api.label}: ${failure.message}`)
    writeApiError(res, api, failure)
  }
}

/** Forwards a call the gateway does not check (model lists, token counts) as it is. */
export async function forwardUnchecked(
  deps: CallDeps,
  api: LlmApi | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  drop: readonly string[],
): Promise<void> {
  const url = upstreamUrl(deps.base, req.url ?? '/')
  const method = req.method === 'POST' ? 'POST' : 'GET'
  const headers = upstreamHeaders(req.headers, api, deps.apiKey, drop)
  const answer = await deps.upstream.call({
    url,
    method,
    headers,
    ...(method === 'POST' ? { body: raw } : {}),
  })
  passThrough(res, answer.status, answer.headers, answer.text)
}

function passThrough(
  res: ServerResponse,
  status: number,
  headers: Dispatcher.ResponseData['headers'],
  text: string,
): void {
  res.writeHead(status, passedHeaders(headers)).end(text)
}

async function readAll(body: import('node:stream').Readable, max: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += (chunk as Buffer).length
    if (size > max) {
      body.destroy()
      throw new UpstreamError(
        'too-large',
        `the model API answered more than ${max} bytes (llm.maxAnswerBytes)`,
      )
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}
