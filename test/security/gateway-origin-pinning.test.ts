// Attacks on origin pinning: a request target that names another host (`//host/x`,
// `/\host/x`, absolute-form, encoded slashes, dot segments) is refused 400 naming the
// target, and a browser navigation is refused 403, by a real `warden llm` process (with the
// operator's API key configured), a `warden a2a` server in front of the SDK agent and a
// `warden mcp --upstream` server. A second loopback server stands for the evil host and
// records every request: it must never be reached, above all with the operator's key.

import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startA2aGateway, startHttpGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { type PeerAgent, startPeerAgent } from '../gateway/a2a-peer.js'
import { startWardenLlm, type WardenLlm } from '../gateway/llm-process.js'
import { type ModelServer, startModelServer } from '../gateway/llm-upstream.js'

const OPERATOR_KEY = 'sk-operator-key-never-elsewhere-51c2'

interface Raw {
  status: number
  text: string
}

/** Sends a request with the exact target given (no URL parsing on the way). */
function raw(
  base: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Raw> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: target,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.once('error', reject)
    req.end(body)
  })
}

let evil: Server
let evilHost: string
const evilHits: { url: string; headers: Record<string, unknown> }[] = []
let model: ModelServer
let llm: WardenLlm
let peer: PeerAgent

beforeAll(async () => {
  evil = createServer((req, res) => {
    evilHits.push({ url: req.url ?? '', headers: req.headers })
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"stolen":true}')
  })
  await new Promise<void>((done) => evil.listen(0, '127.0.0.1', done))
  evilHost = `127.0.0.1:${(evil.address() as AddressInfo).port}`
  model = await startModelServer()
  peer = await startPeerAgent()
  llm = await startWardenLlm(['--upstream', model.url, '--db', ':memory:'], {
    ...process.env,
    WARDEN_LLM_API_KEY: OPERATOR_KEY,
  })
}, 60_000)

afterAll(async () => {
  await llm?.stop()
  await model?.close()
  await peer?.close()
  await new Promise<void>((done) => evil.close(() => done()))
})

function attacks(): [string, string][] {
  return [
    ['a "//host" target', `//${evilHost}/v1/models`],
    ['a backslash target', `/\\${evilHost}/v1/models`],
    ['an absolute-form target', `http://${evilHost}/v1/models`],
    ['an encoded slash', `/%2F${evilHost}/v1/models`],
    ['an encoded backslash', `/%5c${evilHost}/v1/models`],
    ['a dot segment', '/v1/../../v1/models'],
  ]
}

describe('warden llm: the operator key goes only to the configured origin', () => {
  it('sends the configured key to the configured upstream on a plain path (the control)', async () => {
    const before = model.requests.length
    const answer = await raw(llm.url, '/v1/models')
    expect(answer.status).toBe(200)
    expect(model.requests.length).toBe(before + 1)
    const sent = model.requests.at(-1)?.headers
    expect([sent?.authorization, sent?.['x-api-key']].join(' ')).toContain(OPERATOR_KEY)
  })

  it.each(attacks())('refuses %s with 400 naming the target, reaching no host', async (_name, target) => {
    const before = model.requests.length
    for (const answer of [
      await raw(llm.url, target),
      await raw(
        llm.url,
        target.replace('/v1/models', '/v1/chat/completions'),
        {},
        '{"model":"m","messages":[]}',
      ),
    ]) {
      expect(answer.status).toBe(400)
      expect(answer.text).toContain('request target')
      expect(answer.text).not.toContain('stolen')
    }
    expect(evilHits).toEqual([])
    expect(model.requests.length).toBe(before)
  })

  it('refuses browser navigations with 403 naming the header, the upstream never reached', async () => {
    const before = model.requests.length
    const navigate = await raw(llm.url, '/v1/models', {
      'sec-fetch-mode': 'navigate',
      'sec-fetch-site': 'cross-site',
    })
    expect(navigate.status).toBe(403)
    expect(JSON.parse(navigate.text).error.message).toMatch(/Sec-Fetch-Mode: navigate/)
    const document = await raw(llm.url, '/v1/models', { 'sec-fetch-dest': 'document' })
    expect(document.status).toBe(403)
    const page = await raw(llm.url, '/v1/models', { accept: 'text/html,application/xhtml+xml' })
    expect(page.status).toBe(403)
    expect(JSON.parse(page.text).error.message).toMatch(/HTML/)
    expect(model.requests.length).toBe(before)
    expect(evilHits).toEqual([])
  })
})

describe('warden a2a and warden mcp --upstream: the same pinning', () => {
  it('refuses every host-changing target and navigation, reaching no other host', async () => {
    const engine = buildEngine(undefined)
    const a2a = await startA2aGateway({ engine, upstream: new URL(peer.url) })
    const mcp = await startHttpGateway({ engine, upstream: new URL(`http://${evilHost}/mcp`) })
    try {
      for (const base of [a2a.url.href, mcp.url.href]) {
        for (const [, target] of attacks()) {
          const answer = await raw(base, target.replace('/v1/models', '/a2a/rest/tasks'))
          expect(answer.status, `${base} ${target}`).toBe(400)
          expect(answer.text).toContain('request target')
        }
        const navigate = await raw(base, '/.well-known/agent-card.json', { 'sec-fetch-mode': 'navigate' })
        expect(navigate.status).toBe(403)
        expect(JSON.parse(navigate.text).error.data.field).toBe('sec-fetch-mode')
      }
      // The control: a plain card request still reaches the agent through warden a2a.
      const card = await raw(a2a.url.href, '/.well-known/agent-card.json')
      expect(card.status).toBe(200)
      expect(evilHits).toEqual([])
    } finally {
      await a2a.close()
      await mcp.close()
      await engine.close()
    }
  })
})
