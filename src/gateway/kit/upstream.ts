// The gateway's connection to the upstream agent: one keep-alive undici agent, requests
// bounded in time and size, and streams handed over unread so their events can be checked
// one by one. The upstream is the one the operator named (`--upstream`), so it is reached
// directly; URLs from callers (push notifications) go through the SSRF policy instead.

import { EventEmitter } from 'node:events'
import type { Readable } from 'node:stream'
import { Agent, type Dispatcher } from 'undici'
import { redactUrl } from '../../net/index.js'

/** Why the upstream could not be used. */
export type UpstreamErrorKind = 'unreachable' | 'timeout' | 'too-large' | 'garbage' | 'aborted'

/** A failure talking to the upstream, with what happened in its message. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError'
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
  ) {
    super(message)
  }
}

/** One request to the upstream. */
export interface UpstreamRequest {
  url: URL
  method: 'GET' | 'POST' | 'DELETE'
  headers?: Record<string, string>
  body?: string | Buffer
  signal?: AbortSignal | CallerGone
}

/**
 * A switch that abandons an upstream request when the caller leaves: what undici accepts as
 * a signal (`aborted`, an `abort` event), at a fraction of an AbortController's cost per call.
 */
export class CallerGone extends EventEmitter {
  aborted = false

  /** Abandons the request (once). */
  abort(): void {
    if (this.aborted) return
    this.aborted = true
    this.emit('abort')
  }
}

/** How messages name the upstream and the answer-size setting. */
export interface UpstreamNames {
  /** e.g. `upstream agent`, `model API`. */
  peer: string
  /** The setting bounding one answer, e.g. `a2a.maxEventBytes`. */
  answerSetting: string
}

const A2A_NAMES: UpstreamNames = { peer: 'upstream agent', answerSetting: 'a2a.maxEventBytes' }

/** A response whose body is read (bounded). */
export interface UpstreamAnswer {
  status: number
  contentType: string
  text: string
  headers: Dispatcher.ResponseData['headers']
}

/** A response whose body is still streaming. */
export interface UpstreamStream {
  status: number
  contentType: string
  body: Readable
  headers: Dispatcher.ResponseData['headers']
}

/** The upstream connection of one gateway. */
export class Upstream {
  private readonly agent: Agent

  constructor(
    private readonly timeoutMs: number,
    private readonly maxBytes: number,
    private readonly names: UpstreamNames = A2A_NAMES,
  ) {
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs },
    })
  }

  /**
   * Sends a request and reads the whole answer.
   * @throws UpstreamError naming the cause.
   */
  async call(request: UpstreamRequest): Promise<UpstreamAnswer> {
    const answer = await this.send(request, this.timeoutMs)
    const text = await readBounded(answer.body, this.maxBytes, request.url, this.names)
    return { status: answer.statusCode, contentType: contentType(answer), text, headers: answer.headers }
  }

  /**
   * Sends a request whose answer may stream; the body is left to the caller, who must
   * consume or destroy it. The stream is not bounded in time here (the caller bounds it).
   * @throws UpstreamError naming the cause.
   */
  async open(request: UpstreamRequest): Promise<UpstreamStream> {
    const answer = await this.send(request, 0)
    return {
      status: answer.statusCode,
      contentType: contentType(answer),
      body: answer.body,
      headers: answer.headers,
    }
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined)
  }

  private async send(request: UpstreamRequest, bodyTimeout: number): Promise<Dispatcher.ResponseData> {
    try {
      return await this.agent.request({
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers ?? {},
        body: request.body ?? null,
        signal: request.signal ?? null,
        headersTimeout: this.timeoutMs,
        bodyTimeout,
      })
    } catch (error) {
      throw translate(error, request.url, this.timeoutMs, request.signal, this.names.peer)
    }
  }
}

function contentType(answer: Dispatcher.ResponseData): string {
  const value = answer.headers['content-type']
  return (Array.isArray(value) ? value[0] : value) ?? ''
}

/** Reads a body whole, up to `max` bytes (listeners rather than an async iterator: no tick per chunk). */
function readBounded(body: Readable, max: number, url: URL, names: UpstreamNames): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let ended = false
    body.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > max) {
        reject(
          new UpstreamError(
            'too-large',
            `the ${names.peer} at ${redactUrl(url.href)} answered more than ${max} bytes (${names.answerSetting})`,
          ),
        )
        body.destroy()
        return
      }
      chunks.push(chunk)
    })
    body.once('end', () => {
      ended = true
      resolve(Buffer.concat(chunks, size).toString('utf8'))
    })
    body.once('error', (error) => reject(translate(error, url, 0, undefined, names.peer)))
    body.once('close', () => {
      if (!ended) reject(translate(new Error('the answer ended early'), url, 0, undefined, names.peer))
    })
  })
}

/** Turns what undici threw into an UpstreamError that says what happened. */
export function translate(
  error: unknown,
  url: URL,
  timeoutMs: number,
  signal: AbortSignal | CallerGone | undefined,
  peer = A2A_NAMES.peer,
): UpstreamError {
  if (error instanceof UpstreamError) return error
  const where = redactUrl(url.href)
  if (signal?.aborted) return new UpstreamError('aborted', `the request to ${where} was abandoned`)
  const code = (error as { code?: string }).code ?? ''
  if (/TIMEOUT/.test(code)) {
    return new UpstreamError('timeout', `the ${peer} at ${where} did not answer within ${timeoutMs} ms`)
  }
  const cause = (error as { cause?: { code?: string } }).cause?.code
  const detail = cause ?? (code && code !== 'UND_ERR_SOCKET' ? code : (error as Error).message)
  return new UpstreamError('unreachable', `could not reach the ${peer} at ${where}: ${detail}`)
}
