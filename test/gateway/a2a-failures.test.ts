// `warden a2a` failing closed: malformed JSON-RPC, unknown methods, oversized bodies, an
// upstream that is down, slow, answers garbage, serves a card that is not JSON, or sends
// a never-ending SSE event. Each gets a clear error naming the cause; the gateway stays up.

import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine, JsonObject } from '../../src/core/index.js'
import { A2A_UPSTREAM_ERROR_CODE, type A2aGateway, startA2aGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'

/** An upstream that misbehaves as told by the path of each request. */
async function startBadUpstream(): Promise<{ url: URL; server: Server; mode: { value: string } }> {
  const mode = { value: 'garbage' }
  const sockets = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    sockets.add(res)
    res.on('close', () => sockets.delete(res))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    if (req.url === '/.well-known/agent-card.json') {
      if (mode.value === 'bad-card')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json')
      const card = {
        name: 'bad-agent',
        supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      }
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card))
    }
    if (mode.value === 'garbage')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('this is not json')
    if (mode.value === 'slow') return void setTimeout(() => res.end('{}'), 5_000).unref()
    if (mode.value === 'endless-event') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"jsonrpc":"2.0","id":1,"result":{"text":"')
      const timer = setInterval(() => res.write('x'.repeat(4096)), 1)
      res.on('close', () => clearInterval(timer))
      return
    }
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), server, mode }
}

async function rpc(
  gateway: A2aGateway,
  body: string,
  path = '/rpc',
): Promise<{ status: number; json: JsonObject }> {
  const response = await fetch(new URL(path, gateway.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
  return { status: response.status, json: (await response.json()) as JsonObject }
}

const send = (method = 'SendMessage', id: number | string = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
  })

describe('warden a2a failing closed', () => {
  let engine: Engine
  let bad: Awaited<ReturnType<typeof startBadUpstream>>
  let gateway: A2aGateway

  beforeAll(async () => {
    engine = buildEngine(undefined, {})
    bad = await startBadUpstream()
    gateway = await startA2aGateway({
      engine,
      upstream: bad.url,
      limits: { maxBodyBytes: 64 * 1024, maxEventBytes: 256 * 1024, upstreamTimeoutMs: 500, cardTtlMs: 0 },
    })
  })

  afterAll(async () => {
    await gateway?.close()
    bad?.server.closeAllConnections()
    bad?.server.close()
    await engine?.close()
  })

  it('answers malformed JSON-RPC with the JSON-RPC error that names the problem', async () => {
    bad.mode.value = 'garbage'
    expect((await rpc(gateway, '{not json')).json.error).toMatchObject({
      code: -32700,
      message: 'the body is not valid JSON',
    })
    expect((await rpc(gateway, '[]')).json.error).toMatchObject({ code: -32600 })
    expect(
      (await rpc(gateway, JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'SendMessage' }))).json.error,
    ).toMatchObject({ message: 'jsonrpc must be "2.0"' })
    expect(
      (await rpc(gateway, JSON.stringify({ jsonrpc: '2.0', method: 'SendMessage' }))).json.error,
    ).toMatchObject({ code: -32600 })
    expect(
      (await rpc(gateway, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: [1] }))).json
        .error,
    ).toMatchObject({ code: -32602 })
    const unknown = await rpc(gateway, send('tasks/explode', 9))
    expect(unknown.json).toMatchObject({ id: 9, error: { code: -32601 } })
    expect(String((unknown.json.error as JsonObject).message)).toContain(
      '"tasks/explode" is not an A2A method',
    )
  })

  it('refuses a body over a2a.maxBodyBytes', async () => {
    const big = await rpc(
      gateway,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { pad: 'x'.repeat(100_000) } }),
    )
    expect(big.status).toBe(413)
    expect(String((big.json.error as JsonObject).message)).toContain('a2a.maxBodyBytes')
  })

  it('fails closed with the cause when the upstream answers garbage, is slow, or sends an endless event', async () => {
    bad.mode.value = 'garbage'
    const garbage = await rpc(gateway, send())
    expect(garbage.status).toBe(502)
    expect(garbage.json.error).toMatchObject({ code: A2A_UPSTREAM_ERROR_CODE })
    expect(String((garbage.json.error as JsonObject).message)).toContain('not JSON')
    bad.mode.value = 'slow'
    const slow = await rpc(gateway, send())
    expect(slow.status).toBe(504)
    expect(String((slow.json.error as JsonObject).message)).toContain('did not answer within 500 ms')
    bad.mode.value = 'endless-event'
    const response = await fetch(new URL('/rpc', gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: send('SendStreamingMessage'),
    })
    const text = await response.text()
    expect(text).toContain('a2a.maxEventBytes')
    expect(text).toContain('-32090')
    expect(gateway.openStreams()).toBe(0)
  })

  it('says when the card is not JSON, and stays up', async () => {
    bad.mode.value = 'bad-card'
    const card = await fetch(new URL('/.well-known/agent-card.json', gateway.url))
    expect(card.status).toBe(502)
    expect(JSON.stringify(await card.json())).toContain('is not JSON')
    bad.mode.value = 'garbage'
    expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(200)
  })

  it('says when the upstream is down', async () => {
    const down = await startA2aGateway({
      engine,
      upstream: new URL('http://127.0.0.1:9/'),
      limits: { upstreamTimeoutMs: 2000 },
    })
    try {
      const answer = await fetch(new URL('/.well-known/agent-card.json', down.url))
      expect(answer.status).toBe(502)
      expect(JSON.stringify(await answer.json())).toContain('could not reach the upstream agent')
      const call = await rpc(down, send())
      expect(call.json.error).toMatchObject({ code: A2A_UPSTREAM_ERROR_CODE })
      expect(String((call.json.error as JsonObject).message)).toContain('ECONNREFUSED')
    } finally {
      await down.close()
    }
  })
})
