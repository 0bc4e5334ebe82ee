// The outbound HTTP client every network-facing part of Warden uses. Each connection
// resolves its host once, through the injectable resolver, inside the socket's own lookup:
// the addresses checked are the addresses connected to, so DNS rebinding has no second
// lookup to win. IP literals are checked before the request. Redirects are refused unless
// configured, and each hop is checked again. Responses are capped in size and time.

import type { LookupAddress, LookupOptions } from 'node:dns'
import { lookup as dnsLookup } from 'node:dns/promises'
import { EventEmitter } from 'node:events'
import { Agent, type Dispatcher } from 'undici'
import { formatIp, type IpAddress } from './address.js'
import {
  type AllowList,
  checkAddress,
  checkHostName,
  checkResolved,
  checkUrl,
  compileAllowList,
  literalAddress,
  redactUrl,
} from './policy.js'
import {
  type OutboundClient,
  type OutboundClientOptions,
  OutboundError,
  type OutboundRequest,
  type OutboundResponse,
  type Resolver,
} from './types.js'

/** Default response size cap: 1 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024
/** Default total time per request. */
export const DEFAULT_TIMEOUT_MS = 10_000
/** Hops followed when `followRedirects: true`. */
export const DEFAULT_REDIRECT_HOPS = 5

const REDIRECTS = new Set([301, 302, 303, 307, 308])
/** Headers the client sets itself; a caller may not. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'keep-alive',
])
/** Headers kept when a redirect leaves the origin (everything else may be a credential). */
const CROSS_ORIGIN_HEADERS = new Set(['content-type', 'accept', 'user-agent'])

/** The system resolver: every address of a host, in the order the system gives them. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true })
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void

/** A `lookup` for net/tls.connect that resolves once and refuses special-purpose addresses. */
function checkedLookup(allow: AllowList, resolver: Resolver) {
  return (hostname: string, options: LookupOptions | LookupCallback, callback?: LookupCallback) => {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback
    const opts = (typeof options === 'function' ? {} : options) as { all?: boolean; family?: number }
    const host = hostname.replace(/^\[|\]$/g, '')
    resolveChecked(allow, resolver, host).then(
      (addresses) => {
        const wanted = opts.family === 4 || opts.family === 6 ? opts.family : undefined
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses
        const first = usable[0]
        if (!first) return done(new OutboundError('dns', `${host} has no IPv${wanted} address`), '')
        if (opts.all)
          return done(
            null,
            usable.map((a) => ({ address: formatIp(a), family: a.family })),
          )
        done(null, formatIp(first), first.family)
      },
      (error: Error) => done(error, ''),
    )
  }
}

async function resolveChecked(allow: AllowList, resolver: Resolver, host: string): Promise<IpAddress[]> {
  checkHostName(allow, host)
  let answers: Awaited<ReturnType<Resolver>>
  try {
    answers = await resolver(host)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new OutboundError('dns', `could not resolve ${host}: ${code ?? (error as Error).message}`)
  }
  return checkResolved(allow, host, answers)
}

/**
 * Creates the outbound client: SSRF-checked, address-pinned, size- and time-bounded.
 * @throws OutboundError `invalid-request` when an `allow` entry is malformed.
 */
export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const allow = compileAllowList(options.allow)
  const resolver = options.resolver ?? systemResolver
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const defaultCap = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  const maxHops =
    options.followRedirects === true
      ? DEFAULT_REDIRECT_HOPS
      : typeof options.followRedirects === 'number'
        ? Math.max(0, Math.floor(options.followRedirects))
        : 0
  const agent = new Agent({
    connect: { lookup: checkedLookup(allow, resolver), timeout: defaultTimeout },
    keepAliveTimeout: 4_000,
  })

  // URLs already parsed and checked (scheme, credentials, IP literal): hooks call the same
  // few URLs over and over. The checks are pure, so a cached answer is the same answer.
  const checkedUrls = new Map<string, URL>()
  const checkLiteral = (url: URL) => {
    const literal = literalAddress(url)
    if (literal) checkAddress(allow, url.hostname, literal)
  }
  function checkedUrl(text: string): URL {
    const known = checkedUrls.get(text)
    if (known) return known
    const url = checkUrl(text, { allowCredentials: options.allowCredentials ?? false })
    checkLiteral(url)
    if (checkedUrls.size >= 256) checkedUrls.clear()
    checkedUrls.set(text, url)
    return url
  }

  /** One stop per request, fired by the caller's signal or the total time limit. */
  async function request(req: OutboundRequest): Promise<OutboundResponse> {
    const timeoutMs = req.timeoutMs ?? defaultTimeout
    const stop = new RequestStop()
    const timer = setTimeout(fireTimeout, timeoutMs, stop)
    const caller = req.onAbort ? undefined : req.signal
    const off = req.onAbort?.((reason) => stop.fire(reason))
    if (caller?.aborted) stop.fire(caller.reason)
    else caller?.addEventListener('abort', stop, { once: true })
    try {
      return await send(req, timeoutMs, stop)
    } finally {
      clearTimeout(timer)
      off?.()
      caller?.removeEventListener('abort', stop)
    }
  }

  async function send(req: OutboundRequest, timeoutMs: number, stop: RequestStop): Promise<OutboundResponse> {
    const cap = req.maxResponseBytes ?? defaultCap
    let url = checkedUrl(req.url)
    let method: string = req.method ?? (req.body === undefined ? 'GET' : 'POST')
    let body = req.body
    let headers = callerHeaders(req.headers)
    for (let hop = 0; ; hop++) {
      if (hop > 0) checkLiteral(url)
      let answer: Dispatcher.ResponseData
      try {
        answer = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: method as Dispatcher.HttpMethod,
          headers,
          body: body ?? null,
          signal: stop,
        })
      } catch (error) {
        throw translate(error, url, timeoutMs, req.signal, stop)
      }
      const location = header(answer.headers.location)
      if (REDIRECTS.has(answer.statusCode) && location !== undefined) {
        discard(answer.body)
        if (maxHops === 0) {
          throw new OutboundError(
            'redirect',
            `${redactUrl(url.href)} answered ${answer.statusCode}, a redirect; redirects are not followed (set network.followRedirects to follow them, each hop is checked)`,
          )
        }
        if (hop >= maxHops) {
          throw new OutboundError('redirect', `${redactUrl(req.url)}: more than ${maxHops} redirects`)
        }
        let next: URL
        try {
          next = checkUrl(new URL(location, url).href, {
            allowCredentials: options.allowCredentials ?? false,
          })
        } catch (error) {
          throw error instanceof OutboundError
            ? new OutboundError(error.code, `redirect from ${redactUrl(url.href)}: ${error.message}`)
            : error
        }
        if (next.origin !== url.origin) headers = crossOriginHeaders(headers)
        if (
          answer.statusCode === 303 ||
          ((answer.statusCode === 301 || answer.statusCode === 302) && method === 'POST')
        ) {
          method = 'GET'
          body = undefined
          headers = withoutContentType(headers)
        }
        url = next
        continue
      }
      let bytes: Uint8Array
      try {
        bytes = await readCapped(answer, cap, url)
      } catch (error) {
        throw translate(error, url, timeoutMs, req.signal, stop)
      }
      return makeResponse(answer, bytes, url.href)
    }
  }

  return {
    request,
    async close() {
      await agent.close()
    },
  }
}

/**
 * What undici watches to abort one request (undici accepts an EventEmitter as `signal`):
 * far cheaper than an AbortController per request. It is also the listener (`handleEvent`)
 * put on the caller's signal.
 */
class RequestStop extends EventEmitter {
  aborted = false
  reason: unknown = undefined
  timedOut = false

  fire(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.emit('abort')
  }

  handleEvent(event: Event): void {
    this.fire((event.target as AbortSignal).reason)
  }
}

function fireTimeout(stop: RequestStop): void {
  stop.timedOut = true
  stop.fire(new Error('the outbound request timed out'))
}

function callerHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const key = name.toLowerCase()
    if (RESERVED_HEADERS.has(key)) {
      throw new OutboundError('invalid-request', `header "${name}" is set by Warden itself; remove it`)
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new OutboundError('invalid-request', `header name "${name}" is not a valid HTTP header name`)
    }
    if (/[\r\n\0]/.test(value)) {
      throw new OutboundError('invalid-request', `header "${name}" contains a line break or NUL`)
    }
    out[key] = value
  }
  return out
}

function crossOriginHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_HEADERS.has(k)))
}

function withoutContentType(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'content-type'))
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function tooLarge(url: URL, cap: number): OutboundError {
  return new OutboundError(
    'too-large',
    `${redactUrl(url.href)} answered more than ${cap} bytes; raise network.maxResponseBytes if that is expected`,
  )
}

async function readCapped(answer: Dispatcher.ResponseData, cap: number, url: URL): Promise<Uint8Array> {
  const declared = Number(header(answer.headers['content-length']))
  if (Number.isFinite(declared) && declared > cap) {
    discard(answer.body)
    throw tooLarge(url, cap)
  }
  const body = answer.body
  const chunks = await new Promise<Buffer[]>((resolve, reject) => {
    const kept: Buffer[] = []
    let size = 0
    body.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > cap) {
        discard(body)
        reject(tooLarge(url, cap))
        return
      }
      kept.push(chunk)
    })
    body.once('end', () => resolve(kept))
    body.once('error', reject)
  })
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
}

/** Drops a response body without reading it (undici reports the abort as an error: ignore it). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined)
  body.destroy()
}

function makeResponse(answer: Dispatcher.ResponseData, body: Uint8Array, url: string): OutboundResponse {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  let text: string | undefined
  return {
    status: answer.statusCode,
    headers,
    body,
    url,
    text() {
      text ??= Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
      return text
    },
    json() {
      return JSON.parse(this.text())
    },
  }
}

/** Turns whatever undici or the lookup threw into an OutboundError that says what happened. */
function translate(
  error: unknown,
  url: URL,
  timeoutMs: number,
  caller: AbortSignal | undefined,
  stop: RequestStop,
): OutboundError {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundError) return e
  }
  const where = redactUrl(url.href)
  if (caller?.aborted || (stop.aborted && !stop.timedOut))
    return new OutboundError('aborted', `the request to ${where} was aborted`)
  const code = (error as { code?: string }).code ?? ''
  if (stop.timedOut || /TIMEOUT/.test(code)) {
    return new OutboundError('timeout', `${where} did not answer within ${timeoutMs} ms`)
  }
  if (code === 'UND_ERR_INVALID_ARG') {
    return new OutboundError(
      'invalid-request',
      `the request to ${where} is invalid: ${(error as Error).message}`,
    )
  }
  const cause = (error as { cause?: { code?: string } }).cause?.code
  const detail = code && code !== 'UND_ERR_SOCKET' ? code : (cause ?? (error as Error).message)
  return new OutboundError('connect', `could not reach ${where}: ${detail}`)
}
