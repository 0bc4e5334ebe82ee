// The overview (`overview.get`) attacked on a real `warden serve` with token auth and two
// tenants: a tenant token's overview counts only its tenant's decisions, tools, agents,
// sessions, hooks and approvals, and never names the other tenant's; asking for another
// tenant is refused; the window is bounded and validated; a viewer reads the overview but
// cannot change anything (hooks, approvals, tokens) with the same token.

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import {
  aos,
  type Loose,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  WsClient,
} from '../server/management-helper.js'

const CONFIG = `
server: { auth: token }
hooks:
  - name: no-rm
    event: tool.pre
    matcher: "^Bash$"
    if: "tool_input.command.contains('rm -rf')"
    handler: { type: deny, reason: "no recursive deletes" }
`

/** One tool call on /aos as an agent token of a tenant. */
async function call(
  url: string,
  secret: string,
  tool: string,
  command: string,
  agent: string,
  session: string,
) {
  const answer = await aos(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: {
          executionId: `e-${randomUUID()}`,
          toolId: tool,
          inputs: [{ name: 'command', value: command }],
        },
        context: { agent: { id: agent, name: agent }, session: { id: session } },
      },
    },
    { authorization: `Bearer ${secret}` },
  )
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return (answer.body.result as Loose).decision as string
}

describe('the overview across tenants and roles', () => {
  const dir = tempDir('warden-overview-sec-')
  let warden: Served
  let store: Store
  let acmeViewer: WsClient
  let globexViewer: WsClient
  let admin: WsClient

  beforeAll(async () => {
    const db = join(dir, 'warden.db')
    warden = await serve({ dir, name: 'overview', db, yaml: CONFIG })
    store = await storeAt(db)
    const acme = (await token(store, 'agent', 'acme', 'acme-agent')).token
    const globex = (await token(store, 'agent', 'globex', 'globex-agent')).token
    acmeViewer = await WsClient.connect(warden.url, (await token(store, 'viewer', 'acme')).token)
    globexViewer = await WsClient.connect(warden.url, (await token(store, 'viewer', 'globex')).token)
    admin = await WsClient.connect(warden.url, (await token(store, 'admin')).token)
    expect(await call(warden.url, globex, 'Bash', 'rm -rf /srv/globex', 'globex-bot', 'globex-s1')).toBe(
      'deny',
    )
    expect(await call(warden.url, globex, 'Bash', 'rm -rf /srv/globex2', 'globex-bot', 'globex-s1')).toBe(
      'deny',
    )
    expect(await call(warden.url, globex, 'GlobexTool', 'x', 'globex-bot', 'globex-s1')).toBe('allow')
    expect(await call(warden.url, acme, 'Bash', 'ls', 'acme-bot', 'acme-s1')).toBe('allow')
    expect(await call(warden.url, acme, 'Bash', 'rm -rf /tmp/x', 'acme-bot', 'acme-s1')).toBe('deny')
    for (let i = 0; i < 100; i++) {
      if ((await admin.ok('overview.get', { window: '1h' })).totals.total >= 5) break
      await new Promise((r) => setTimeout(r, 50))
    }
  }, 60_000)

  afterAll(async () => {
    for (const c of [acmeViewer, globexViewer, admin]) c?.close()
    await store?.close()
    await warden?.stop()
  })

  it("a tenant token's overview holds only its tenant's figures", async () => {
    const acme = await acmeViewer.ok('overview.get', { window: '1h' })
    expect(acme.tenant).toBe('acme')
    expect(acme.totals).toMatchObject({ total: 2, allow: 1, deny: 1 })
    expect(acme.tools).toEqual([{ name: 'Bash', total: 2, deny: 1, ask: 0 }])
    expect(acme.agents.map((a: Loose) => a.name)).toEqual(['acme-bot'])
    expect(acme.sessions.map((s: Loose) => s.name)).toEqual(['acme-s1'])
    expect(acme.hooks.find((h: Loose) => h.hook === 'no-rm')).toMatchObject({ runs: 1, deny: 1 })
    expect(JSON.stringify(acme)).not.toMatch(/globex/i)
    // The same call as globex's viewer finds globex's figures (the scoping is by tenant, not empty).
    const globex = await globexViewer.ok('overview.get', { window: '1h' })
    expect(globex.totals).toMatchObject({ total: 3, deny: 2 })
    expect(globex.tools.map((t: Loose) => t.name)).toEqual(['Bash'])
    const all = await admin.ok('overview.get', { window: '1h' })
    expect(all.tenant).toBeNull()
    expect(all.totals).toMatchObject({ total: 5, deny: 3 })
    const one = await admin.ok('overview.get', { window: '1h', tenant: 'globex' })
    expect(one.totals.total).toBe(3)
  })

  it("asking for another tenant's overview is refused", async () => {
    const res = await acmeViewer.call('overview.get', { window: '24h', tenant: 'globex' })
    expect(res.ok).toBe(false)
    expect(res.error?.code).toBe('forbidden')
    expect(JSON.stringify(res)).not.toContain('rm -rf')
  })

  it('the window is validated and bounded', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ window: '1y' }, 'window'],
      [{ since: 10, until: 5 }, 'since'],
      [{ since: 0, until: 500 * 86_400_000 }, 'since'],
      [{ window: '1h', since: 1 }, 'window'],
      [{ since: -1 }, 'since'],
      [{ tenant: 'x'.repeat(201) }, 'tenant'],
      [{ extra: true }, ''],
    ]
    for (const [params, field] of cases) {
      const res = await admin.call('overview.get', params)
      expect(res.ok, JSON.stringify(params)).toBe(false)
      expect(res.error?.code, JSON.stringify(params)).toBe('invalid-params')
      if (field) expect(res.error?.field, JSON.stringify(params)).toBe(field)
    }
  })

  it('a viewer reads the overview and cannot change anything', async () => {
    const info = await acmeViewer.ok('server.info', {})
    expect(info.methods).toContain('overview.get')
    const attempts: [string, Record<string, unknown>][] = [
      ['hooks.create', { name: 'x', event: 'tool.pre', handler: { type: 'allow' } }],
      ['hooks.toggle', { id: 'no-rm', enabled: false }],
      ['approvals.resolve', { id: 'nope', action: 'approve' }],
      ['hooks.delete', { id: 'no-rm' }],
      ['hooks.update', { id: 'no-rm', enabled: false }],
    ]
    for (const [method, params] of attempts) {
      expect(info.methods).not.toContain(method)
      const res = await acmeViewer.call(method, params)
      expect(res.ok, method).toBe(false)
      expect(res.error?.code, method).toBe('forbidden')
    }
  })
})
