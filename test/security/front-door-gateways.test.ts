// The same front door on the gateways, attacked over real HTTP: `warden a2a` in front of an
// SDK agent and `warden mcp --upstream` in front of server-everything, both real CLI
// processes with `server.auth: token` — content types, Origin, Sec-Fetch-Site, Host
// rebinding and `server.allowedHosts`, roles, tokens in the URL, and (MCP) a session that
// answers only the token that opened it.

import { type ChildProcess, spawn } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store, TokenRole } from '../../src/store/index.js'
import { type PeerAgent, startPeerAgent } from '../gateway/a2a-peer.js'
import { eventually, firstText, freePort } from '../gateway/helpers.js'
import { cliArgs, ROOT } from '../helpers/cli.js'
import { SECRET_KEY, storeAt, tempDir, token } from '../server/management-helper.js'
import { bearer, send, TWO_TENANTS_YAML } from './front-door-helper.js'

const dir = tempDir('warden-front-door-gw-')
const db = join(dir, 'warden.db')
const config = join(dir, 'warden.yaml')
const children: ChildProcess[] = []
let store: Store
let peer: PeerAgent
let everything: ChildProcess
let a2aUrl: string
let mcpUrl: string
const tokens: Record<string, string> = {}

function start(args: string[], ready: RegExp): Promise<string> {
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: ROOT,
    env: { ...process.env, WARDEN_SECRET_KEY: SECRET_KEY, WARDEN_DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let output = ''
  child.stdout?.on('data', (d) => {
    output += d
  })
  child.stderr?.on('data', (d) => {
    output += d
  })
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const match = ready.exec(output)
      if (match?.[1]) {
        clearInterval(poll)
        resolve(match[1])
      } else if (child.exitCode !== null) {
        clearInterval(poll)
        reject(new Error(`${args[0]} exited: ${output}`))
      }
    }, 50)
  })
}

beforeAll(async () => {
  writeFileSync(config, TWO_TENANTS_YAML)
  store = await storeAt(db)
  for (const role of ['admin', 'editor', 'approver', 'viewer', 'agent'] as TokenRole[]) {
    tokens[role] = (await token(store, role)).token
  }
  peer = await startPeerAgent()
  const everythingPort = await freePort()
  everything = spawn(
    process.execPath,
    [`${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'streamableHttp'],
    { env: { ...process.env, PORT: String(everythingPort) }, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  everything.stderr?.on('data', (d) => {
    stderr += d
  })
  await eventually(() => stderr.includes('listening on port'), 30_000)
  const a2a = start(
    ['a2a', '--config', config, '--db', db, '--upstream', peer.url.href],
    /gateway listening on (http:\/\/\S+?)\/?,/,
  )
  const mcp = start(
    ['mcp', '--config', config, '--db', db, '--upstream', `http://127.0.0.1:${everythingPort}/mcp`],
    /listening on (http:\/\/\S+\/mcp)/,
  )
  a2aUrl = await a2a
  mcpUrl = await mcp
}, 90_000)

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  everything?.kill('SIGKILL')
  await peer?.close()
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

const CARD = '/.well-known/agent-card.json'
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
})
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' }

describe.each([
  ['warden a2a', () => a2aUrl, '/a2a/jsonrpc'],
  ['warden mcp --upstream', () => new URL(mcpUrl).origin, '/mcp'],
])('%s: the front door', (_name, base, path) => {
  it('refuses a body that is not JSON with 415 naming its type', async () => {
    const answer = await send(base(), path, {
      headers: { authorization: `Bearer ${tokens.agent}`, 'content-type': 'text/plain', ...MCP_ACCEPT },
      body: INITIALIZE,
    })
    expect(answer.status).toBe(415)
    expect(answer.json.error.message).toContain('"text/plain"')
  })

  it('refuses a foreign Origin and Sec-Fetch-Site: cross-site with 403 naming the header', async () => {
    const foreign = await send(base(), path, {
      headers: bearer(tokens.agent as string, { origin: 'http://evil.example', ...MCP_ACCEPT }),
      body: INITIALIZE,
    })
    expect(foreign.status).toBe(403)
    expect(foreign.json.error.data.field).toBe('origin')
    const crossSite = await send(base(), path, {
      headers: bearer(tokens.agent as string, { 'sec-fetch-site': 'cross-site', ...MCP_ACCEPT }),
      body: INITIALIZE,
    })
    expect(crossSite.status).toBe(403)
    expect(crossSite.json.error.data.field).toBe('sec-fetch-site')
  })

  it('answers 421 to a rebinding Host naming the setting, and accepts server.allowedHosts', async () => {
    const port = new URL(base()).port
    const rebound = await send(base(), path, {
      headers: bearer(tokens.agent as string, { host: `evil.example:${port}`, ...MCP_ACCEPT }),
      body: INITIALIZE,
    })
    expect(rebound.status).toBe(421)
    expect(rebound.json.error.message).toContain('server.allowedHosts')
    const named = await send(base(), path, {
      headers: bearer(tokens.agent as string, { host: `warden.test:${port}`, ...MCP_ACCEPT }),
      body: INITIALIZE,
    })
    expect(named.status).not.toBe(421)
    expect(named.status).toBeLessThan(500)
  })

  it('refuses a token in the URL with 401', async () => {
    const answer = await send(base(), `${path}?token=${tokens.admin}`, {
      headers: { 'content-type': 'application/json', ...MCP_ACCEPT },
      body: INITIALIZE,
    })
    expect(answer.status).toBe(401)
    expect(answer.json.error.message).toContain('Authorization: Bearer')
  })

  it('refuses viewer, approver and editor tokens with 403 naming the role', async () => {
    for (const role of ['viewer', 'approver', 'editor']) {
      const answer = await send(base(), path, {
        headers: bearer(tokens[role] as string, MCP_ACCEPT),
        body: INITIALIZE,
      })
      expect(answer.status, role).toBe(403)
      expect(answer.json.error.message).toContain(`role "${role}"`)
    }
  })
})

describe('warden a2a: roles and metrics', () => {
  it('serves the card to agent and admin tokens only', async () => {
    for (const role of ['agent', 'admin']) {
      const card = await send(a2aUrl, CARD, { headers: { authorization: `Bearer ${tokens[role]}` } })
      expect(card.status, card.text).toBe(200)
    }
    const viewer = await send(a2aUrl, CARD, { headers: { authorization: `Bearer ${tokens.viewer}` } })
    expect(viewer.status).toBe(403)
  })

  it('needs a token on /metrics', async () => {
    expect((await send(a2aUrl, '/metrics')).status).toBe(401)
    const viewer = await send(a2aUrl, '/metrics', { headers: { authorization: `Bearer ${tokens.viewer}` } })
    expect(viewer.status).toBe(200)
    expect(viewer.text).toContain('warden_')
  })
})

describe('warden mcp --upstream: tokens', () => {
  it('lets an agent token use its session, and no other token', async () => {
    const client = new Client({ name: 'front-door', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${tokens.agent}` } },
    })
    await client.connect(transport)
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('Echo: hi')
    const stolen = await send(new URL(mcpUrl).origin, '/mcp', {
      headers: bearer(tokens.admin as string, {
        ...MCP_ACCEPT,
        'mcp-session-id': transport.sessionId as string,
      }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    })
    expect(stolen.status).toBe(404)
    const anonymous = await send(new URL(mcpUrl).origin, '/mcp', {
      headers: { 'content-type': 'application/json', ...MCP_ACCEPT },
      body: INITIALIZE,
    })
    expect(anonymous.status).toBe(401)
    await client.close()
  })
})
