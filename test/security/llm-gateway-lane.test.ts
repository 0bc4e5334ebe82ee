// `warden llm` takes model calls on its fast lane (ahead of Fastify): the lane must hold the
// same limits and door as the rest of the gateway. A second call past llm.maxInFlight is
// refused 503 naming the setting (the upstream never sees it) and its place comes back once
// the first is answered; a chunked body past llm.maxBodyBytes is refused 413 without being
// forwarded; a cross-site browser POST is refused at the door; a malformed caller header is
// refused 400. Each is checked against what the upstream received. An agent that leaves
// before the answer has its upstream call abandoned at once.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allow } from '../../src/core/index.js'
import { type LlmGateway, startLlmGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { type ModelServer, startModelServer } from '../gateway/llm-upstream.js'

const HEADERS = {
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-agent',
  'anthropic-version': '2023-06-01',
}
const BODY = JSON.stringify({
  model: 'claude-test',
  max_tokens: 10,
  messages: [{ role: 'user', content: 'hello' }],
})

describe('warden llm fast lane keeps the limits and the door', () => {
  let upstream: ModelServer
  let gateway: LlmGateway
  const engine = buildEngine(undefined, {
    extraHooks: [{ name: 'prompt', event: 'user.message', handler: { type: 'fn', fn: () => allow() } }],
  })

  beforeAll(async () => {
    upstream = await startModelServer([{ text: ['slow'], delayMs: 400 }, { text: ['ok'] }])
    gateway = await startLlmGateway({
      engine,
      upstream: new URL(upstream.url),
      limits: { maxInFlight: 1, maxBodyBytes: 4096 },
    })
  })

  afterAll(async () => {
    await gateway.close()
    await upstream.close()
    await engine.close()
  })

  const post = (headers: Record<string, string> = HEADERS, body: string | ReadableStream = BODY) =>
    fetch(new URL('/v1/messages', gateway.url), {
      method: 'POST',
      headers,
      body,
      duplex: 'half',
    } as RequestInit)

  it('refuses a call past llm.maxInFlight with 503, and gives the place back once answered', async () => {
    const first = post()
    // The first call is held by the upstream (400 ms) once it got there.
    while (upstream.requests.length === 0) await new Promise((resolve) => setImmediate(resolve))
    const second = await post()
    expect(second.status).toBe(503)
    expect(second.headers.get('retry-after')).toBe('1')
    expect(await second.text()).toContain('llm.maxInFlight')
    const answered = await first
    expect(answered.status).toBe(200)
    expect(JSON.stringify(await answered.json())).toContain('slow')
    const third = await post()
    expect(third.status).toBe(200)
    expect(upstream.requests).toHaveLength(2)
  })

  it('refuses a chunked body past llm.maxBodyBytes with 413, forwarding nothing', async () => {
    const before = upstream.requests.length
    const big = JSON.stringify({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'x'.repeat(8000) }],
    })
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      },
    })
    const answer = await post(HEADERS, chunked)
    expect(answer.status).toBe(413)
    expect(await answer.text()).toContain('llm.maxBodyBytes')
    expect(upstream.requests.length).toBe(before)
  })

  it('refuses a cross-site browser POST at the door and a malformed caller header, forwarding neither', async () => {
    const before = upstream.requests.length
    const crossSite = await post({
      ...HEADERS,
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
    })
    expect(crossSite.status).toBe(403)
    const badTenant = await post({ ...HEADERS, 'x-warden-tenant': '../other' })
    expect(badTenant.status).toBe(400)
    expect(await badTenant.text()).toContain('X-Warden-Tenant')
    expect(upstream.requests.length).toBe(before)
  })

  it('abandons the upstream call at once when the agent leaves before the answer', async () => {
    let closed = false
    let arrived = false
    // An upstream that never answers, and says when its caller hung up.
    const silent = createServer((req) => {
      arrived = true
      req.socket.once('close', () => {
        closed = true
      })
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as AddressInfo).port
    const held = await startLlmGateway({ engine, upstream: new URL(`http://127.0.0.1:${port}`) })
    try {
      const leave = new AbortController()
      const call = fetch(new URL('/v1/messages', held.url), {
        method: 'POST',
        headers: HEADERS,
        body: BODY,
        signal: leave.signal,
      }).catch(() => 'left')
      await expect.poll(() => arrived, { timeout: 5000 }).toBe(true)
      leave.abort()
      expect(await call).toBe('left')
      await expect.poll(() => closed, { timeout: 2000 }).toBe(true)
    } finally {
      await held.close()
      silent.closeAllConnections()
      silent.close()
    }
  })
})
