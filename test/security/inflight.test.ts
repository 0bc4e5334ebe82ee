// Bounded memory under a flood: `warden serve`, `warden a2a` and the MCP HTTP gateway each
// admit only so many requests and body bytes at once. 400 concurrent 1 MB `/aos` requests
// against a real `warden serve` are all answered, 200 or 503; every 503 carries Retry-After
// and a JSON-RPC error naming the limit, and /metrics counts them by limit. Bodies sent
// without Content-Length are counted as they stream. The gateways hold the same line with
// smaller numbers.

import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { Agent, type IncomingHttpHeaders, request } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type A2aGateway,
  type HttpGateway,
  prepareGateway,
  startA2aGateway,
  startHttpGateway,
} from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { type PeerAgent, startPeerAgent } from '../gateway/a2a-peer.js'
import { eventually, freePort } from '../gateway/helpers.js'
import { ROOT } from '../helpers/cli.js'
import { type Served, serve, tempDir } from '../server/management-helper.js'

/** One answer as read off the wire. */
interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })

/** Posts `body` to `url` (with Content-Length unless `chunked`) and reads the whole answer. */
function post(url: string, body: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** Sends `count` posts at once. */
function flood(count: number, send: (i: number) => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => send(i)))
}

/** A steps/toolCallRequest whose body is `bytes` long. */
function aosBody(bytes: number, id: number | string = 1): Buffer {
  const shell = {
    jsonrpc: '2.0',
    id,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: { executionId: `e-${id}`, toolId: 'exec', inputs: [{ name: 'cmd', value: '' }] },
      context: { agent: { id: 'flood', name: 'flood' }, session: { id: 's' } },
    },
  }
  const empty = Buffer.byteLength(JSON.stringify(shell))
  shell.params.toolCallRequest.inputs[0] = { name: 'cmd', value: 'x'.repeat(bytes - empty) }
  return Buffer.from(JSON.stringify(shell))
}

/** Checks a 503 the limits sent: Retry-After, and the JSON-RPC error naming `setting`. */
function expectRefusal(answer: Answer, setting: RegExp): void {
  expect(answer.status).toBe(503)
  expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  const rpc = JSON.parse(answer.body) as {
    jsonrpc: string
    error: { code: number; message: string; data: { limit: string } }
  }
  expect(rpc.jsonrpc).toBe('2.0')
  expect(rpc.error.code).toBe(-32000)
  expect(rpc.error.data.limit).toMatch(setting)
  expect(rpc.error.message).toMatch(setting)
}

/** A counter's value on /metrics. */
async function metric(url: string, line: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const found = text.split('\n').find((l) => l.startsWith(`${line} `))
  return found ? Number(found.slice(line.length + 1)) : Number.NaN
}

/** Starts a chunked POST that sends `first` bytes and waits; `finish` sends the rest. */
function openUpload(url: string, first: number): { answer: Promise<Answer>; finish(): void } {
  let finish: () => void = () => {}
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        )
      },
    )
    req.on('error', (error) => (req.writableEnded ? undefined : reject(error)))
    const body = aosBody(first + 200)
    req.write(body.subarray(0, first))
    finish = () => req.end(body.subarray(first))
  })
  return { answer, finish: () => finish() }
}

describe('warden serve under 400 concurrent 1 MB requests', () => {
  const dir = tempDir('warden-inflight-')
  let served: Served
  let small: Served

  beforeAll(async () => {
    ;[served, small] = await Promise.all([
      serve({ dir, name: 'flood', yaml: 'hooks: []\n', db: join(dir, 'flood.db') }),
      serve({
        dir,
        name: 'small',
        yaml: 'server:\n  maxInFlight: 3\n  maxInFlightBytes: 2200000\n',
        db: join(dir, 'small.db'),
      }),
    ])
  }, 60_000)

  afterAll(async () => {
    await Promise.all([served?.stop(), small?.stop()])
  })

  it('answers every one 200 or 503 with the machine-derived limits, 503s naming the limit and counted', async () => {
    const body = aosBody(1_000_000)
    const answers = await flood(400, () => post(`${served.url}/aos`, body))
    const statuses = new Set(answers.map((a) => a.status))
    expect([...statuses].every((s) => s === 200 || s === 503)).toBe(true)
    const refused = answers.filter((a) => a.status === 503)
    const answered = answers.filter((a) => a.status === 200)
    // The bytes limit on this machine is at most 32 MiB: far fewer than 400 bodies at once.
    expect(refused.length).toBeGreaterThan(0)
    expect(answered.length).toBeGreaterThan(0)
    for (const answer of refused) expectRefusal(answer, /server\.maxInFlightBytes/)
    for (const answer of answered) expect(JSON.parse(answer.body).result).toBeDefined()
    expect(await metric(served.url, 'warden_inflight_refused_total{limit="maxInFlightBytes"}')).toBe(
      refused.length,
    )
    // Everything is given back: no request is left in flight, and once the audit records
    // of the burst are written (they count toward the bytes), a request goes through again.
    expect(await metric(served.url, 'warden_inflight_requests')).toBe(0)
    let status = 0
    for (let tries = 0; tries < 60 && status !== 200; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 500))
      status = (await post(`${served.url}/aos`, aosBody(1_000_000))).status
    }
    expect(status).toBe(200)
  }, 120_000)

  it('refuses requests past server.maxInFlight while others are in flight, then takes them again', async () => {
    const held = [
      openUpload(`${small.url}/aos`, 1000),
      openUpload(`${small.url}/aos`, 1000),
      openUpload(`${small.url}/aos`, 1000),
    ]
    await new Promise((resolve) => setTimeout(resolve, 300))
    const refused = await post(`${small.url}/aos`, aosBody(2000))
    expectRefusal(refused, /server\.maxInFlight\b/)
    for (const upload of held) upload.finish()
    for (const answer of await Promise.all(held.map((h) => h.answer))) expect(answer.status).toBe(200)
    expect((await post(`${small.url}/aos`, aosBody(2000))).status).toBe(200)
    expect(await metric(small.url, 'warden_inflight_refused_total{limit="maxInFlight"}')).toBe(1)
  }, 60_000)

  it('counts a body sent without Content-Length as it streams, refusing the one that goes past the bytes', async () => {
    const first = openUpload(`${small.url}/aos`, 900_000)
    const second = openUpload(`${small.url}/aos`, 900_000)
    await new Promise((resolve) => setTimeout(resolve, 300))
    // 1.8 MB already held: 500 kB more, streamed, takes it past the 2.2 MB limit.
    const third = openUpload(`${small.url}/aos`, 500_000)
    expectRefusal(await third.answer, /server\.maxInFlightBytes/)
    first.finish()
    second.finish()
    expect((await first.answer).status).toBe(200)
    expect((await second.answer).status).toBe(200)
  }, 60_000)

  it('refuses a bytes limit below the body limit at start, naming both settings', async () => {
    await expect(
      serve({
        dir,
        name: 'bad',
        yaml: 'server:\n  bodyLimitBytes: 4000000\n  maxInFlightBytes: 1000000\n',
        db: join(dir, 'bad.db'),
      }),
    ).rejects.toThrow(/server\.maxInFlightBytes \(1000000\) must be at least server\.bodyLimitBytes/)
  }, 60_000)
})

describe('warden a2a under a flood', () => {
  let peer: PeerAgent
  let gateway: A2aGateway
  const engine = buildEngine(undefined, {})

  beforeAll(async () => {
    peer = await startPeerAgent()
    gateway = await startA2aGateway({
      engine,
      upstream: peer.url,
      limits: { maxBodyBytes: 100_000, maxInFlightBytes: 400_000 },
    })
  }, 30_000)

  afterAll(async () => {
    await gateway?.close()
    await peer?.close()
    await engine.close()
  })

  // The upstream agent takes bodies up to 100 kB.
  it('answers 60 concurrent 80 kB requests 200 or 503, the 503s naming a2a.maxInFlightBytes', async () => {
    const pad = 'x'.repeat(80_000)
    const body = (i: number) =>
      Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'SendMessage',
          params: { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] }, pad },
        }),
      )
    const answers = await flood(60, (i) =>
      post(new URL('/a2a/jsonrpc', gateway.url).href, body(i), { 'a2a-version': '1.0' }),
    )
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true)
    const refused = answers.filter((a) => a.status === 503)
    expect(refused.length).toBeGreaterThan(0)
    expect(answers.some((a) => a.status === 200)).toBe(true)
    for (const answer of refused) expectRefusal(answer, /a2a\.maxInFlightBytes/)
  }, 60_000)
})

describe('the MCP HTTP gateway under a flood', () => {
  let upstream: ChildProcess
  let gateway: HttpGateway
  let closeSetup: () => Promise<void>

  beforeAll(async () => {
    const port = await freePort()
    upstream = spawn(
      process.execPath,
      [`${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'streamableHttp'],
      { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    upstream.stderr?.on('data', (d) => {
      stderr += d
    })
    await eventually(() => stderr.includes('listening on port'), 30_000)
    const setup = await prepareGateway({})
    closeSetup = setup.close
    const { InFlightLimiter } = await import('../../src/inflight/index.js')
    gateway = await startHttpGateway({
      ...setup,
      upstream: new URL(`http://127.0.0.1:${port}/mcp`),
      maxRequestBytes: 300_000,
      inFlight: new InFlightLimiter({ maxInFlight: 100, maxInFlightBytes: 1_000_000 }, 'mcp'),
    })
  }, 60_000)

  afterAll(async () => {
    await gateway?.close()
    await closeSetup?.()
    upstream?.kill()
  })

  it('answers 40 concurrent 250 kB initialize requests 200 or 503, the 503s naming the bytes limit', async () => {
    const pad = 'x'.repeat(250_000)
    const body = (i: number) =>
      Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: `flood-${i}`, version: '1.0.0' },
            _meta: { pad },
          },
        }),
      )
    const answers = await flood(40, (i) =>
      post(gateway.url.href, body(i), { accept: 'application/json, text/event-stream' }),
    )
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true)
    const refused = answers.filter((a) => a.status === 503)
    expect(refused.length).toBeGreaterThan(0)
    expect(answers.some((a) => a.status === 200)).toBe(true)
    for (const answer of refused) expectRefusal(answer, /mcp\.maxInFlightBytes/)
  }, 60_000)
})
