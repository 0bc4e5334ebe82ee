// The front door of `warden serve` attacked over real HTTP, with `server.auth: token`, two
// tenants and a token of every role: bodies a web page can send without asking (text/plain,
// forms), foreign Origins and cross-site fetches, DNS-rebinding Host names, roles that may
// not ask for decisions, tokens in the URL, the tenant rule on /acs, and /metrics without a
// token. Each refused request must leave no decision row.

import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { acsRequest, clientHello } from '../../src/protocols/acs/index.js'
import type { Store, TokenRole } from '../../src/store/index.js'
import { type Served, serve, storeAt, tempDir, token, WsClient } from '../server/management-helper.js'
import { bearer, send, TWO_TENANTS_YAML, toolCallBody } from './front-door-helper.js'

const dir = tempDir('warden-front-door-')
const db = join(dir, 'warden.db')
let warden: Served
let store: Store
let port: string
const tokens: Record<string, string> = {}

beforeAll(async () => {
  warden = await serve({ dir, name: 'front-door', yaml: TWO_TENANTS_YAML, db })
  port = new URL(warden.url).port
  store = await storeAt(db)
  for (const role of ['admin', 'editor', 'approver', 'viewer', 'agent'] as TokenRole[]) {
    tokens[role] = (await token(store, role)).token
  }
  tokens.agentAcme = (await token(store, 'agent', 'acme')).token
}, 60_000)

afterAll(async () => {
  await warden?.stop()
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

/**
 * Runs `refused` (whose requests use the agent ids given), then one request that is
 * answered; once that one's row is written, none of the refused ones may have a row.
 */
async function noRowWritten(agents: string[], refused: () => Promise<void>): Promise<void> {
  await refused()
  const markerId = `marker-${randomUUID()}`
  const marker = await send(warden.url, '/aos', {
    headers: bearer(tokens.agent as string),
    body: toolCallBody(markerId),
  })
  expect(marker.status, marker.text).toBe(200)
  const deadline = Date.now() + 10_000
  while ((await store.listDecisions({ agentId: markerId })).length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  expect(await store.listDecisions({ agentId: markerId })).toHaveLength(1)
  for (const agentId of agents) expect(await store.listDecisions({ agentId }), agentId).toHaveLength(0)
}

async function acsCall(
  headers: Record<string, string>,
  tool = 'probe-acs',
): Promise<{ status: number; json: JsonObject }> {
  const sessionId = randomUUID()
  await send(warden.url, '/acs', {
    headers,
    body: JSON.stringify(clientHello(sessionId, { metadata: { agent_id: tool, session_id: sessionId } })),
  })
  const answer = await send(warden.url, '/acs', {
    headers,
    body: JSON.stringify(
      acsRequest(
        'steps/toolCallRequest',
        { tool: { id: tool }, arguments: {} },
        { sessionId, agentId: tool },
      ),
    ),
  })
  return { status: answer.status, json: answer.json as JsonObject }
}

describe('warden serve: bodies a web page can send without asking are refused', () => {
  it('answers 415 to text/plain, form and missing content types on /aos and /acs, naming the type, and writes no row', async () => {
    await noRowWritten(['probe-text'], async () => {
      for (const path of ['/aos', '/acs']) {
        for (const type of [
          'text/plain',
          'text/plain;charset=UTF-8',
          'application/x-www-form-urlencoded',
          undefined,
        ]) {
          const answer = await send(warden.url, path, {
            headers: {
              authorization: `Bearer ${tokens.agent}`,
              ...(type === undefined ? {} : { 'content-type': type }),
            },
            body: toolCallBody('probe-text'),
          })
          expect(answer.status, `${path} ${type}`).toBe(415)
          expect(answer.json.error.data.field).toBe('content-type')
          expect(answer.json.error.data.reason).toContain(
            type === undefined ? 'no content-type' : `"${type}"`,
          )
        }
      }
    })
    const charset = await send(warden.url, '/aos', {
      headers: bearer(tokens.agent as string, { 'content-type': 'application/json; charset=utf-8' }),
      body: toolCallBody('probe-json'),
    })
    expect(charset.status).toBe(200)
  })
})

describe('warden serve: requests from other web pages are refused', () => {
  it('refuses a foreign Origin with 403 naming the header, on /aos, /acs, /metrics and /healthz; no Origin or its own passes', async () => {
    await noRowWritten(['probe-origin'], async () => {
      for (const path of ['/aos', '/acs']) {
        const answer = await send(warden.url, path, {
          headers: bearer(tokens.agent as string, { origin: 'http://evil.example' }),
          body: toolCallBody('probe-origin'),
        })
        expect(answer.status).toBe(403)
        expect(answer.json.error.data.field).toBe('origin')
        expect(answer.json.error.data.reason).toContain('http://evil.example')
      }
      const nullOrigin = await send(warden.url, '/aos', {
        headers: bearer(tokens.agent as string, { origin: 'null' }),
        body: toolCallBody('probe-origin'),
      })
      expect(nullOrigin.status).toBe(403)
    })
    for (const path of ['/metrics', '/healthz']) {
      const answer = await send(warden.url, path, {
        headers: { authorization: `Bearer ${tokens.viewer}`, origin: `http://localhost:${Number(port) + 1}` },
      })
      expect(answer.status, path).toBe(403)
    }
    const own = await send(warden.url, '/aos', {
      headers: bearer(tokens.agent as string, { origin: `http://127.0.0.1:${port}` }),
      body: toolCallBody('probe-own'),
    })
    expect(own.status, own.text).toBe(200)
    const allowed = await send(warden.url, '/aos', {
      headers: bearer(tokens.agent as string, { origin: 'https://warden.test', host: 'warden.test' }),
      body: toolCallBody('probe-own'),
    })
    expect(allowed.status, allowed.text).toBe(200)
  })

  it('refuses Sec-Fetch-Site: cross-site with 403 naming the header; a navigation to the UI still opens', async () => {
    await noRowWritten(['probe-fetch-site'], async () => {
      const answer = await send(warden.url, '/aos', {
        headers: bearer(tokens.agent as string, {
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'no-cors',
        }),
        body: toolCallBody('probe-fetch-site'),
      })
      expect(answer.status).toBe(403)
      expect(answer.json.error.data.field).toBe('sec-fetch-site')
    })
    const metrics = await send(warden.url, '/metrics', {
      headers: {
        authorization: `Bearer ${tokens.viewer}`,
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'cors',
      },
    })
    expect(metrics.status).toBe(403)
    const same = await send(warden.url, '/aos', {
      headers: bearer(tokens.agent as string, { 'sec-fetch-site': 'same-origin' }),
      body: toolCallBody('probe-same'),
    })
    expect(same.status).toBe(200)
    const navigation = await send(warden.url, '/', {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    })
    expect(navigation.status).toBe(200)
  })
})

describe('warden serve: DNS rebinding', () => {
  it('answers 421 naming the Host and server.allowedHosts to a name that is not its own, on every route', async () => {
    await noRowWritten(['probe-rebind'], async () => {
      const answer = await send(warden.url, '/aos', {
        headers: bearer(tokens.agent as string, { host: `evil.example:${port}` }),
        body: toolCallBody('probe-rebind'),
      })
      expect(answer.status).toBe(421)
      expect(answer.json.error.data.reason).toContain(`evil.example:${port}`)
      expect(answer.json.error.data.reason).toContain('server.allowedHosts')
    })
    for (const path of ['/metrics', '/healthz', '/', '/acs', '/ws']) {
      const answer = await send(warden.url, path, {
        headers: { host: `evil.example:${port}`, authorization: `Bearer ${tokens.admin}` },
      })
      expect(answer.status, path).toBe(421)
    }
  })

  it('accepts the loopback names with or without the port, and the names in server.allowedHosts', async () => {
    for (const host of [
      '127.0.0.1',
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      `[::1]:${port}`,
      'warden.test',
      `warden.test:${port}`,
    ]) {
      const answer = await send(warden.url, '/aos', {
        headers: bearer(tokens.agent as string, { host }),
        body: toolCallBody('probe-host'),
      })
      expect(answer.status, host).toBe(200)
    }
    const sub = await send(warden.url, '/healthz', { headers: { host: 'sub.warden.test' } })
    expect(sub.status).toBe(421)
  })
})

describe('warden serve: roles on the data plane', () => {
  it('refuses viewer, approver and editor tokens on /aos and /acs with 403 naming the role, and writes no row', async () => {
    await noRowWritten(['probe-role', 'probe-acs'], async () => {
      for (const role of ['viewer', 'approver', 'editor']) {
        const aos = await send(warden.url, '/aos', {
          headers: bearer(tokens[role] as string),
          body: toolCallBody('probe-role'),
        })
        expect(aos.status, role).toBe(403)
        expect(aos.json.error.data.reason).toContain(`role "${role}"`)
        const acs = await acsCall(bearer(tokens[role] as string))
        expect(acs.status, role).toBe(403)
        expect((acs.json.error as { data: { reason: string } }).data.reason).toContain(`role "${role}"`)
      }
    })
  })

  it('answers agent and admin tokens on /aos and /acs', async () => {
    for (const role of ['agent', 'admin']) {
      const aos = await send(warden.url, '/aos', {
        headers: bearer(tokens[role] as string),
        body: toolCallBody('probe-ok'),
      })
      expect(aos.status, role).toBe(200)
      const acs = await acsCall(bearer(tokens[role] as string))
      expect(acs.status, JSON.stringify(acs.json)).toBe(200)
      expect(acs.json.result, JSON.stringify(acs.json)).toBeDefined()
    }
  })
})

describe('warden serve: tokens in the URL', () => {
  it('refuses ?token= on /aos, /acs and /metrics with 401 pointing to the Authorization header', async () => {
    await noRowWritten(['probe-query'], async () => {
      for (const path of ['/aos', '/acs']) {
        const answer = await send(warden.url, `${path}?token=${tokens.admin}`, {
          headers: { 'content-type': 'application/json' },
          body: toolCallBody('probe-query'),
        })
        expect(answer.status, path).toBe(401)
        expect(answer.json.error.data.reason).toContain('Authorization: Bearer')
      }
    })
    const metrics = await send(warden.url, `/metrics?token=${tokens.admin}`)
    expect(metrics.status).toBe(401)
  })

  it('still takes the token in the URL of the browser WebSocket', async () => {
    const client = await WsClient.connect(warden.url, tokens.viewer, 'query')
    expect((await client.ok('hooks.list')).hooks).toBeDefined()
    client.socket.close()
  })
})

describe('warden serve: one tenant rule for every endpoint that decides', () => {
  it('refuses a tenant token naming another tenant on /acs as on /aos', async () => {
    const headers = bearer(tokens.agentAcme as string, { 'x-warden-tenant': 'globex' })
    const aos = await send(warden.url, '/aos', { headers, body: toolCallBody('probe-tenant') })
    expect(aos.status).toBe(403)
    const acs = await acsCall(headers)
    expect(acs.status).toBe(403)
    expect((acs.json.error as { data: { reason: string } }).data.reason).toContain(
      'this token belongs to tenant "acme"',
    )
    const own = await acsCall(bearer(tokens.agentAcme as string))
    expect(JSON.stringify(own.json)).toContain("acme's own rule")
  })

  it("applies the named tenant's hooks on /acs for a master token, as on /aos", async () => {
    const headers = bearer(tokens.admin as string, { 'x-warden-tenant': 'globex' })
    const aos = await send(warden.url, '/aos', { headers, body: toolCallBody('probe-tenant') })
    expect(JSON.stringify(aos.json)).toContain("globex's own rule")
    const acs = await acsCall(headers)
    expect(acs.status).toBe(200)
    expect(JSON.stringify(acs.json)).toContain("globex's own rule")
  })
})

describe('warden serve: /metrics under server.auth: token', () => {
  it('needs a token (any role)', async () => {
    const anonymous = await send(warden.url, '/metrics')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers['www-authenticate']).toBe('Bearer')
    const bad = await send(warden.url, '/metrics', { headers: { authorization: 'Bearer wdn_nope' } })
    expect(bad.status).toBe(401)
    const viewer = await send(warden.url, '/metrics', {
      headers: { authorization: `Bearer ${tokens.viewer}` },
    })
    expect(viewer.status).toBe(200)
    expect(viewer.text).toContain('warden_')
    const health = await send(warden.url, '/healthz')
    expect(health.status).toBe(200)
  })
})
