// Attacks on the policy lifecycle against a real `warden serve`: shadow hooks that deny,
// time out, crash or ask never change the answer (nor starve the enforced hooks' budget);
// hooks.impact never reads another tenant's decisions and is bounded in rows, range and
// time; only editors and admins preview or promote, and a tenant cannot promote another's.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { seedHistory } from '../helpers/history.js'
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

const dir = tempDir('warden-sec-lifecycle-')
const db = join(dir, 'warden.db')

const YAML = `
audit: { mode: sync }
limits: { chainBudgetMs: 1500 }
hooks:
  - name: shadow-slow
    event: tool.pre
    mode: shadow
    timeoutMs: 1000
    handler: { type: command, command: "sleep 5" }
  - name: shadow-crash
    event: tool.pre
    mode: shadow
    priority: 1
    handler: { type: http, url: "http://127.0.0.1:1/never" }
  - name: shadow-deny
    event: tool.pre
    mode: shadow
    priority: 2
    handler: { type: deny, reason: "would deny everything" }
  - name: shadow-ask
    event: tool.pre
    mode: shadow
    priority: 3
    handler: { type: ask, reason: "would ask" }
  - name: enforced-slow-allow
    event: tool.pre
    priority: 4
    handler: { type: command, command: "sleep 0.8; echo '{}'", shell: true }
`

function call(tenant: string) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: { executionId: 'e-1', toolId: 'exec', inputs: [{ name: 'cmd', value: 'ls' }] },
      context: { agent: { id: 'a', name: 'a' }, user: { id: 'u', organization: { id: tenant } } },
    },
  }
}

let warden: Served
let store: Store
const clients: WsClient[] = []
async function client(role: 'admin' | 'editor' | 'viewer', tenant?: string): Promise<WsClient> {
  const c = await WsClient.connect(warden.url, (await token(store, role, tenant)).token)
  clients.push(c)
  return c
}

beforeAll(async () => {
  warden = await serve({ dir, name: 'sec-lifecycle', yaml: YAML, db })
  store = await storeAt(db)
  await seedHistory(store, { count: 60, tenant: 'acme' })
  await seedHistory(store, { count: 40, tenant: 'globex' })
}, 60_000)

afterAll(async () => {
  for (const c of clients) c.close()
  await store?.close()
  await warden?.stop()
})

describe('shadow hooks cannot change the answer', () => {
  it('a shadow timeout, crash, deny and ask are recorded, the answer is the enforced hooks’ allow', async () => {
    const answer = await aos(warden.url, call('acme'))
    expect(answer.status).toBe(200)
    expect(answer.body.result.decision).toBe('allow')
    const trace = answer.body.result.data.trace as Loose[]
    const byHook = new Map(trace.map((t) => [t.hook, t]))
    expect(byHook.get('shadow-slow')).toMatchObject({
      shadow: true,
      outcome: 'deny',
      error: { kind: 'timeout' },
    })
    expect(byHook.get('shadow-crash')).toMatchObject({ shadow: true, outcome: 'deny' })
    expect(byHook.get('shadow-crash')?.error).toBeDefined()
    expect(byHook.get('shadow-deny')).toMatchObject({ shadow: true, outcome: 'deny' })
    expect(byHook.get('shadow-ask')).toMatchObject({ shadow: true, outcome: 'ask' })
    // The enforced hook had its whole budget although the shadow one used 1 s of 1.5 s.
    expect(byHook.get('enforced-slow-allow')).toMatchObject({ outcome: 'allow' })
    expect(byHook.get('enforced-slow-allow')?.error).toBeUndefined()
  })
})

describe('hooks.impact', () => {
  it('never reads another tenant’s decisions, for a draft or a hook of another tenant', async () => {
    const globex = await client('editor', 'globex')
    const draft = await globex.ok('hooks.impact', {
      hook: { name: 'deny-all', event: 'tool.pre', handler: { type: 'deny', reason: 'x' } },
    })
    expect(draft.replayed).toBe(40)
    expect(draft.events.every((e: Loose) => e.tenant === 'globex')).toBe(true)
    const asAcme = await globex.call('hooks.impact', {
      hook: {
        name: 'deny-all',
        event: 'tool.pre',
        scope: { tenant: 'acme' },
        handler: { type: 'deny', reason: 'x' },
      },
    })
    expect(asAcme.error?.code).toBe('forbidden')
    const admin = await client('admin')
    await admin.ok('hooks.create', {
      name: 'acme-only',
      event: 'tool.pre',
      mode: 'shadow',
      scope: { tenant: 'acme' },
      handler: { type: 'deny', reason: 'acme' },
    })
    const foreign = await globex.call('hooks.impact', { id: 'acme/acme-only' })
    expect(foreign.error?.code).toBe('not-found')
  })

  it('is bounded in rows, range and time, and refuses what runs programs through the API', async () => {
    const editor = await client('editor', 'acme')
    const hook = { name: 'd', event: 'tool.pre', handler: { type: 'deny', reason: 'x' } }
    const tooMany = await editor.call('hooks.impact', { hook, limit: 100_001 })
    expect(tooMany.error).toMatchObject({ code: 'invalid-params', field: 'limit' })
    const tooLong = await editor.call('hooks.impact', { hook, timeLimitMs: 3_600_000 })
    expect(tooLong.error).toMatchObject({ code: 'invalid-params', field: 'timeLimitMs' })
    const wide = await editor.call('hooks.impact', { hook, since: 0 })
    expect(wide.error).toMatchObject({ code: 'invalid-params', field: 'since' })
    const limited = await editor.ok('hooks.impact', { hook, limit: 10 })
    expect(limited).toMatchObject({ replayed: 10, truncated: true, stoppedBy: 'limit' })
    const program = await editor.call('hooks.impact', {
      hook: { name: 'p', event: 'tool.pre', handler: { type: 'command', command: 'touch /tmp/pwned' } },
    })
    expect(program.error?.code).toBe('forbidden')
  })
})

describe('roles', () => {
  it('a viewer can neither preview nor promote; a tenant cannot promote another tenant’s hook', async () => {
    const viewer = await client('viewer')
    expect(
      (await viewer.call('hooks.promote', { id: 'acme/acme-only', reason: 'ship it' })).error?.code,
    ).toBe('forbidden')
    expect((await viewer.call('hooks.impact', { id: 'acme/acme-only' })).error?.code).toBe('forbidden')
    const globex = await client('editor', 'globex')
    expect(
      (await globex.call('hooks.promote', { id: 'acme/acme-only', reason: 'ship it' })).error?.code,
    ).toBe('not-found')
    const admin = await client('admin')
    expect((await admin.ok('hooks.get', { id: 'acme/acme-only' })).mode).toBe('shadow')
  })
})
