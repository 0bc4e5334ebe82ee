// Attacks on the `/aos` data plane (plain node:http in front of Fastify): bodies that try
// to slip past the limits by streaming without a Content-Length, declaring a huge one, or
// leaving mid-body; compressed or non-JSON bodies; a foreign Host or Origin; and paths that
// are not the data plane's. Each is answered with a JSON-RPC error naming what was wrong,
// the in-flight count goes back to zero, and the server keeps answering.

import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import { InFlightLimiter } from '../../src/inflight/index.js'
import { createServer, listen } from '../../src/server/index.js'
import { send, toolCallBody } from './front-door-helper.js'

const BODY_LIMIT = 8192
let app: FastifyInstance
let base: string
let port: number
const limiter = new InFlightLimiter({ maxInFlight: 4, maxInFlightBytes: 4096 })

/** Writes raw bytes on a new connection; resolves with everything read until it closes. */
function raw(head: string, body: (write: (chunk: string) => void) => void = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head)
      body((chunk) => socket.write(chunk))
    })
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
  })
}

/** The JSON body of a raw HTTP answer. */
function jsonOf(answer: string): { error?: { data?: { field?: string; limit?: string } } } {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
}

const chunked = (size: number) => (write: (chunk: string) => void) => {
  write(`${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`)
  write('0\r\n\r\n')
}

beforeAll(async () => {
  const engine = createEngine({
    hooks: [{ name: 'deny-exec', event: 'tool.pre', matcher: '^exec$', handler: { type: 'deny' } }],
  })
  app = await createServer({ engine, bodyLimitBytes: BODY_LIMIT, inFlight: limiter })
  base = await listen(app, { port: 0 })
  port = Number(new URL(base).port)
})

afterAll(async () => {
  await app.close()
})

describe('the /aos data plane under attack', () => {
  it('refuses a streamed body (no Content-Length) past the in-flight bytes, closing the connection', async () => {
    const answer = await raw(
      `POST /aos HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
      chunked(6000),
    )
    expect(answer).toMatch(/^HTTP\/1.1 503/)
    expect(answer.toLowerCase()).toContain('retry-after: 1')
    expect(answer.toLowerCase()).toContain('connection: close')
    expect(jsonOf(answer).error?.data?.limit).toBe('server.maxInFlightBytes')
  })

  it('refuses a streamed body past the body limit with 413 naming the body', async () => {
    const roomy = new InFlightLimiter({ maxInFlight: 4, maxInFlightBytes: 1024 * 1024 })
    const engine = createEngine({ hooks: [] })
    const other = await createServer({ engine, bodyLimitBytes: 1000, inFlight: roomy })
    const url = new URL(await listen(other, { port: 0 }))
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), '127.0.0.1', () => {
          socket.write(
            `POST /aos HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
          )
          chunked(3000)((chunk) => socket.write(chunk))
        })
        let text = ''
        socket.on('data', (chunk) => {
          text += chunk
        })
        socket.on('close', () => resolve(text))
        socket.on('error', reject)
      })
      expect(answer).toMatch(/^HTTP\/1.1 413/)
      expect(answer).toContain('over the limit of 1000 bytes')
      expect(jsonOf(answer).error?.data?.field).toBe('body')
      expect(roomy.requests()).toBe(0)
    } finally {
      await other.close()
    }
  })

  it('answers a Content-Length over the limit at once, without waiting for the body', async () => {
    const answer = await raw(
      `POST /aos HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${BODY_LIMIT + 1}\r\n\r\n`,
    )
    expect(answer).toMatch(/^HTTP\/1.1 413/)
    expect(answer.toLowerCase()).toContain('connection: close')
    expect(jsonOf(answer).error?.data?.field).toBe('body')
  })

  it('gives the place back when the caller leaves mid-body, and keeps answering', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /aos HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"jsonrpc"`,
        )
        setImmediate(() => socket.destroy())
        socket.on('close', () => resolve())
      })
    })
    await expect.poll(() => limiter.requests()).toBe(0)
    await expect.poll(() => limiter.bytes()).toBe(0)
    const after = await send(base, '/aos', {
      headers: { 'content-type': 'application/json' },
      body: toolCallBody('exec'),
    })
    expect(after.json.result.decision).toBe('deny')
  })

  it('refuses compressed and non-JSON bodies with 415 naming the header', async () => {
    const gzip = await send(base, '/aos', {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: toolCallBody('exec'),
    })
    expect(gzip.status).toBe(415)
    expect(gzip.json.error.data.field).toBe('content-encoding')
    const text = await send(base, '/aos', {
      headers: { 'content-type': 'text/plain' },
      body: toolCallBody('exec'),
    })
    expect(text.status).toBe(415)
    expect(text.json.error.data.field).toBe('content-type')
  })

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin before reading the body', async () => {
    const host = await send(base, '/aos', {
      headers: { host: 'evil.example', 'content-type': 'application/json' },
      body: toolCallBody('exec'),
    })
    expect(host.status).toBe(421)
    expect(host.json.error.data.field).toBe('host')
    const origin = await send(base, '/aos', {
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: toolCallBody('exec'),
    })
    expect(origin.status).toBe(403)
    expect(origin.json.error.data.field).toBe('origin')
  })

  it('answers POST /aos with a query string, and leaves other methods and paths to the app', async () => {
    const queried = await send(base, '/aos?trace=1', {
      headers: { 'content-type': 'application/json' },
      body: toolCallBody('exec'),
    })
    expect(queried.json.result.decision).toBe('deny')
    expect((await send(base, '/aos')).status).toBe(404)
    expect(
      (await send(base, '/aos/', { headers: { 'content-type': 'application/json' }, body: '{}' })).status,
    ).toBe(404)
    expect((await send(base, '/healthz')).json.status).toBe('ok')
    expect(limiter.requests()).toBe(0)
  })
})
