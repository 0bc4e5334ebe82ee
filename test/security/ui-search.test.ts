// The decisions search and filters, the hooks' activity and the condition reference, attacked
// on a real `warden serve` with token auth and two tenants: a tenant-scoped viewer's search
// (free text, tool, hook, session) never returns another tenant's decisions nor names
// another tenant's hook; asking for another tenant is refused; hostile filter values
// (LIKE wildcards, quotes, SQL, over-long text) are bounded and taken literally; the
// activity counts only the caller's tenant and lists only hooks it may see; the reason given
// when a hook is switched off is kept in the change record, which the other tenant cannot read.

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
    description: Stops recursive deletes
    event: tool.pre
    matcher: "^Bash$"
    if: "tool_input.command.contains('rm -rf')"
    handler: { type: deny, reason: "no recursive deletes" }
`

/** One Bash call on /aos as an agent token of a tenant. */
async function bash(url: string, secret: string, command: string, session: string): Promise<string> {
  const answer = await aos(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: {
          executionId: `e-${randomUUID()}`,
          toolId: 'Bash',
          inputs: [{ name: 'command', value: command }],
        },
        context: { agent: { id: 'agent-1', name: 'agent' }, session: { id: session } },
      },
    },
    { authorization: `Bearer ${secret}` },
  )
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return (answer.body.result as Loose).decision as string
}

describe('decision search and hook activity across tenants', () => {
  const dir = tempDir('warden-ui-search-')
  let warden: Served
  let store: Store
  let acmeViewer: WsClient
  let globexViewer: WsClient
  let admin: WsClient
  let acmeEditor: WsClient

  beforeAll(async () => {
    const db = join(dir, 'warden.db')
    warden = await serve({ dir, name: 'search', db, yaml: CONFIG })
    store = await storeAt(db)
    const acmeAgent = (await token(store, 'agent', 'acme', 'acme-agent')).token
    const globexAgent = (await token(store, 'agent', 'globex', 'globex-agent')).token
    acmeViewer = await WsClient.connect(warden.url, (await token(store, 'viewer', 'acme')).token)
    globexViewer = await WsClient.connect(warden.url, (await token(store, 'viewer', 'globex')).token)
    acmeEditor = await WsClient.connect(warden.url, (await token(store, 'editor', 'acme')).token)
    admin = await WsClient.connect(warden.url, (await token(store, 'admin')).token)
    await acmeEditor.ok('hooks.create', {
      name: 'acme-only',
      description: 'acme’s own',
      event: 'tool.pre',
      matcher: '^Bash$',
      handler: { type: 'allow' },
    })
    expect(await bash(warden.url, globexAgent, 'rm -rf /srv/globex-secret', 'globex-session')).toBe('deny')
    expect(await bash(warden.url, globexAgent, 'cat globex%_plan', 'globex-session')).toBe('allow')
    expect(await bash(warden.url, acmeAgent, 'ls /srv/acme', 'acme-session')).toBe('allow')
    expect(await bash(warden.url, acmeAgent, 'rm -rf /tmp/acme-scratch', 'acme-session')).toBe('deny')
    // Decisions are written in batches: wait until all four are visible to the admin.
    for (let i = 0; i < 100; i++) {
      if ((await admin.ok('decisions.list', {})).decisions.length >= 4) break
      await new Promise((r) => setTimeout(r, 50))
    }
  }, 60_000)

  afterAll(async () => {
    for (const c of [acmeViewer, globexViewer, admin, acmeEditor]) c?.close()
    await store?.close()
    await warden?.stop()
  })

  it("a tenant viewer's free-text, tool, hook and session search never returns another tenant's decisions", async () => {
    const searches: Record<string, unknown>[] = [
      { text: 'globex' },
      { text: 'rm -rf' },
      { tool: 'Bash' },
      { hook: 'no-rm' },
      { session: 'globex-session' },
      { text: 'deny' },
      {},
    ]
    for (const params of searches) {
      const page = await acmeViewer.ok('decisions.list', params)
      for (const d of page.decisions) expect(d.tenant, JSON.stringify(params)).toBe('acme')
      expect(JSON.stringify(page)).not.toContain('globex')
    }
    expect((await acmeViewer.ok('decisions.list', { tool: 'Bash' })).decisions).toHaveLength(2)
    // The same searches as the globex viewer do find globex's rows (the filters work).
    const found = await globexViewer.ok('decisions.list', { text: 'rm -rf', hook: 'no-rm', tool: 'Bash' })
    expect(found.decisions.map((d: Loose) => d.preview)).toEqual(['{"command":"rm -rf /srv/globex-secret"}'])
  })

  it("asking for another tenant's decisions is refused", async () => {
    const res = await acmeViewer.call('decisions.list', { tenant: 'globex', text: 'rm' })
    expect(res.ok).toBe(false)
    expect(res.error?.code).toBe('forbidden')
  })

  it('hostile filter values are bounded and taken literally', async () => {
    for (const text of ['%', '_', "' or '1'='1", '%) or 1=1 --', '\\', "globex' --"]) {
      const page = await globexViewer.ok('decisions.list', { text })
      for (const d of page.decisions) expect(d.tenant).toBe('globex')
      // Only the decision whose input holds the characters themselves matches.
      const expected = text === '%' || text === '_' ? 1 : 0
      expect(page.decisions.length, text).toBe(expected)
    }
    const long = await admin.call('decisions.list', { text: 'x'.repeat(201) })
    expect(long.ok).toBe(false)
    expect(long.error?.field).toBe('text')
    const badTool = await admin.call('decisions.list', { tool: 'y'.repeat(201) })
    expect(badTool.error?.field).toBe('tool')
    const wide = await admin.call('hooks.activity', { hours: 24 * 365 })
    expect(wide.error?.field).toBe('hours')
  })

  it('the activity counts only the caller’s tenant and lists only hooks it may see', async () => {
    const acme = await acmeViewer.ok('hooks.activity', {})
    // A tenant token sees its own hooks only (as hooks.list): acme-only ran on both acme calls.
    expect(acme.hooks.map((h: Loose) => h.id)).toEqual(['acme/acme-only'])
    expect(acme.hooks[0].runs).toBe(2)
    expect(acme.hooks[0].denials).toBe(0)
    const globex = await globexViewer.ok('hooks.activity', {})
    expect(globex.hooks).toEqual([])
    // The global hook ran once per tenant: each tenant's other call was skipped (condition false).
    const all = await admin.ok('hooks.activity', {})
    const global = all.hooks.find((h: Loose) => h.id === 'no-rm')
    expect(global.runs).toBe(2)
    expect(global.denials).toBe(2)
  })

  it('the reason for switching a hook off is recorded; the other tenant cannot read it', async () => {
    await acmeEditor.ok('hooks.toggle', {
      id: 'acme/acme-only',
      enabled: false,
      reason: 'noisy during the migration',
    })
    const changes = await acmeViewer.ok('audit.changes', { target: 'acme/acme-only' })
    expect(changes.changes[0].reason).toBe('noisy during the migration')
    expect(changes.changes[0].action).toBe('hooks.toggle')
    const other = await globexViewer.ok('audit.changes', { target: 'acme/acme-only' })
    expect(other.changes).toEqual([])
    const hidden = await globexViewer.ok('hooks.list', { search: 'acme' })
    expect(hidden.hooks).toEqual([])
  })

  it('the condition reference names the event’s variables, from the catalog', async () => {
    const ref = await acmeViewer.ok('events.reference', { event: 'PreToolUse' })
    expect(ref.event).toBe('tool.pre')
    const paths = ref.variables.map((v: Loose) => v.path)
    expect(paths).toEqual(
      expect.arrayContaining(['tool_name', 'tool.input.command', 'context.agent', 'tenant']),
    )
    expect(ref.variables.find((v: Loose) => v.path === 'depth').type).toBe('int')
    const bad = await acmeViewer.call('events.reference', { event: 'no.such' })
    expect(bad.error?.code).toBe('invalid-params')
  })
})
