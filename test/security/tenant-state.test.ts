// State a hook can reach, attacked across tenants on a real `warden serve` (token auth, two
// tenants with agent tokens): a Starlark cache value planted by one tenant is never read by
// the other (nor what the other cached), `metrics.snapshot()` shows a tenant its own
// counters only, a per-turn cap counts per tenant, session and turn, turn logs reach only
// the turn.end hooks of their own tenant, ACS handshakes and deferral counts are per tenant,
// and a global hook's circuit breaker tripped by one tenant's failing traffic (with
// `disableOnTrip`) stays closed, and the hook on, for the other. On SQLite, and on
// PostgreSQL where the breaker state is shared.

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { acsRequest, clientHello } from '../../src/protocols/acs/index.js'
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
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const ACS_SECRET = 'the deployment key of the tenant-state test'
const ACS_KEY = { id: 'k1', material: Buffer.from(ACS_SECRET, 'utf8') }

const CONFIG = `
server: { auth: token }
limits: { breaker: { disableOnTrip: true } }
acs:
  keys:
    - id: k1
      secret: env:ACS_KEY_K1
  maxDeferralsPerSession: 1
hooks:
  - name: state
    event: tool.pre
    matcher: "^(plant|peek|count|snapshot|note)$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            name = payload["name"]
            args = payload["args"]
            if name == "plant":
                cache.set(args["key"], args["value"])
            elif name == "peek":
                return block("cached: " + str(cache.get(args["key"])))
            elif name == "count":
                metrics.incr(args["key"])
            elif name == "snapshot":
                return block("metrics: " + str(metrics.snapshot()))
            elif name == "note":
                log(args["line"])
            return allow()
  - name: guard
    event: tool.pre
    matcher: "^transfer$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            if cache.get("approved") == True:
                return allow("approved earlier in this session")
            return block("not approved")
  - name: turn-end
    event: agent.response
    handler:
      type: script
      source: |
        def handle(event, payload):
            return block("turn logs: " + str(payload.get("logs")))
  - name: capped
    event: tool.pre
    matcher: "^capped$"
    maxInvocationsPerTurn: 1
    handler: { type: allow }
  - name: fragile
    event: tool.pre
    matcher: "^fragile$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            return allow("checked " + payload["args"]["ticket"])
  - name: wait
    event: tool.pre
    matcher: "^deferred$"
    policy: { id: "defer:pending_dependency" }
    handler: { type: deny, reason: "waiting for the ticket" }
`

interface Tenant {
  name: string
  secret: string
}

/** One tool call on `/aos` as a tenant's agent, in a session and (optionally) a turn. */
async function call(
  url: string,
  tenant: Tenant,
  tool: string,
  inputs: Record<string, unknown>,
  context: { session: string; turn?: string },
): Promise<{ decision: string; message: string }> {
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
          inputs: Object.entries(inputs).map(([name, value]) => ({ name, value })),
        },
        context: {
          agent: { id: 'agent-1', name: 'agent' },
          session: { id: context.session },
          ...(context.turn ? { turnId: context.turn } : {}),
        },
      },
    },
    { authorization: `Bearer ${tenant.secret}` },
  )
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  const result = answer.body.result as Loose
  return { decision: result.decision, message: String(result.message ?? result.reasoning ?? '') }
}

/** The agent's answer at the end of a turn (`turn.end`), as a tenant's agent. */
async function turnEnd(
  url: string,
  tenant: Tenant,
  context: { session: string; turn: string },
): Promise<{ decision: string; message: string }> {
  const answer = await aos(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'steps/message',
      params: {
        message: { role: 'agent', id: `m-${randomUUID()}`, content: [{ kind: 'text', text: 'done' }] },
        context: {
          agent: { id: 'agent-1', name: 'agent' },
          session: { id: context.session },
          turnId: context.turn,
        },
      },
    },
    { authorization: `Bearer ${tenant.secret}` },
  )
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  const result = answer.body.result as Loose
  return { decision: result.decision, message: String(result.message ?? result.reasoning ?? '') }
}

/** Posts an ACS message as a tenant (its token, and the tenant_id it may name). */
async function acs(url: string, tenant: Tenant, body: JsonObject): Promise<Loose> {
  const response = await fetch(`${url}/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.secret}` },
    body: JSON.stringify(body),
  })
  return response.json()
}

function acsToolCall(tenant: Tenant, sessionId: string, tool: string, turn?: string): JsonObject {
  return acsRequest(
    'steps/toolCallRequest',
    { tool: { id: tool }, arguments: {} },
    {
      sessionId,
      key: ACS_KEY,
      params: {
        tenant_id: tenant.name,
        ...(turn ? { metadata: { agent_id: 'agent-1', session_id: sessionId, turn_id: turn } } : {}),
      },
    },
  )
}

let pg: TestDatabase | undefined
beforeAll(async () => {
  pg = await postgresForTests()
})
afterAll(async () => {
  await pg?.release()
})

const backends = [
  { backend: 'sqlite', db: (dir: string) => join(dir, 'warden.db') },
  { backend: 'postgres', db: () => pg?.url },
]

describe.each(backends)('tenant state on $backend', ({ backend, db: where }) => {
  const dir = tempDir(`warden-tenant-state-${backend}-`)
  let warden: Served
  let store: Store
  let acme: Tenant
  let globex: Tenant
  let admin: WsClient | undefined

  beforeAll(async () => {
    const db = where(dir)
    if (!db) return
    warden = await serve({ dir, name: backend, db, yaml: CONFIG, env: { ACS_KEY_K1: ACS_SECRET } })
    store = await storeAt(db)
    acme = { name: 'acme', secret: (await token(store, 'agent', 'acme', `acme-${randomUUID()}`)).token }
    globex = {
      name: 'globex',
      secret: (await token(store, 'agent', 'globex', `globex-${randomUUID()}`)).token,
    }
    admin = await WsClient.connect(
      warden.url,
      (await token(store, 'admin', undefined, `admin-${randomUUID()}`)).token,
    )
  }, 60_000)

  afterAll(async () => {
    admin?.close()
    await store?.close()
    await warden?.stop()
  })

  const skipWithoutDb = (ctx: { skip: () => void }) => {
    if (!where(dir)) ctx.skip()
  }

  it('a cache value one tenant planted never turns the other tenant’s deny into an allow', async (ctx) => {
    skipWithoutDb(ctx)
    const session = `s-${randomUUID()}`
    expect((await call(warden.url, globex, 'transfer', {}, { session })).decision).toBe('deny')
    await call(warden.url, acme, 'plant', { key: 'approved', value: true }, { session })
    const transfer = await call(warden.url, globex, 'transfer', {}, { session })
    expect(transfer.decision).toBe('deny')
    expect(transfer.message).toContain('not approved')
    // The tenant's own value still works in its own session.
    await call(warden.url, globex, 'plant', { key: 'approved', value: true }, { session })
    expect((await call(warden.url, globex, 'transfer', {}, { session })).decision).toBe('allow')
  })

  it('a tenant never reads what the other tenant cached in a session of the same id', async (ctx) => {
    skipWithoutDb(ctx)
    const session = `s-${randomUUID()}`
    await call(warden.url, globex, 'plant', { key: 'card', value: '4111 1111 1111 1111' }, { session })
    const peeked = await call(warden.url, acme, 'peek', { key: 'card' }, { session })
    expect(peeked.message).toContain('cached: None')
    expect(peeked.message).not.toContain('4111')
    expect((await call(warden.url, globex, 'peek', { key: 'card' }, { session })).message).toContain('4111')
  })

  it('metrics.snapshot() shows a tenant its own counters only', async (ctx) => {
    skipWithoutDb(ctx)
    const session = `s-${randomUUID()}`
    await call(warden.url, globex, 'count', { key: 'globex_refunds' }, { session })
    await call(warden.url, acme, 'count', { key: 'acme_orders' }, { session })
    const seen = await call(warden.url, acme, 'snapshot', {}, { session })
    expect(seen.message).toContain('acme_orders')
    expect(seen.message).not.toContain('globex_refunds')
    const other = await call(warden.url, globex, 'snapshot', {}, { session })
    expect(other.message).toContain('globex_refunds')
    expect(other.message).not.toContain('acme_orders')
  })

  it('a per-turn cap counts per tenant, session and turn: the same turn id elsewhere has its own', async (ctx) => {
    skipWithoutDb(ctx)
    const turn = `t-${randomUUID()}`
    const [one, two] = [`s-${randomUUID()}`, `s-${randomUUID()}`]
    expect((await call(warden.url, acme, 'capped', {}, { session: one, turn })).decision).toBe('allow')
    const again = await call(warden.url, acme, 'capped', {}, { session: one, turn })
    expect(again.decision).toBe('deny')
    expect(again.message).toContain('maxInvocationsPerTurn')
    // Another session of the same tenant, and the other tenant, calling their turn the same.
    expect((await call(warden.url, acme, 'capped', {}, { session: two, turn })).decision).toBe('allow')
    expect((await call(warden.url, globex, 'capped', {}, { session: one, turn })).decision).toBe('allow')
  })

  it('turn logs reach only the turn.end hooks of their own tenant', async (ctx) => {
    skipWithoutDb(ctx)
    const session = `s-${randomUUID()}`
    const turn = 't-1'
    await call(warden.url, acme, 'note', { line: 'acme card 4111' }, { session, turn })
    const theirs = await turnEnd(warden.url, globex, { session, turn })
    expect(theirs.message).not.toContain('4111')
    const own = await turnEnd(warden.url, acme, { session, turn })
    expect(own.message).toContain('acme card 4111')
  })

  it('an ACS handshake of one tenant does not open the same session id for the other', async (ctx) => {
    skipWithoutDb(ctx)
    const session = randomUUID()
    const hello = await acs(
      warden.url,
      acme,
      clientHello(session, {}, { key: ACS_KEY, params: { tenant_id: 'acme' } }),
    )
    expect(hello.result, JSON.stringify(hello)).toBeDefined()
    const theirs = await acs(warden.url, globex, acsToolCall(globex, session, 'read'))
    expect(theirs.error?.message ?? '', JSON.stringify(theirs)).toMatch(/no handshake for this session/)
    const own = await acs(warden.url, acme, acsToolCall(acme, session, 'read'))
    expect(own.result?.decision, JSON.stringify(own)).toBe('allow')
  })

  it('ACS deferrals are counted per tenant: one tenant cannot use up the other’s', async (ctx) => {
    skipWithoutDb(ctx)
    const session = randomUUID()
    for (const tenant of [acme, globex]) {
      const hello = await acs(
        warden.url,
        tenant,
        clientHello(session, {}, { key: ACS_KEY, params: { tenant_id: tenant.name } }),
      )
      expect(hello.result, JSON.stringify(hello)).toBeDefined()
    }
    expect((await acs(warden.url, acme, acsToolCall(acme, session, 'deferred'))).result?.decision).toBe(
      'defer',
    )
    const limited = await acs(warden.url, acme, acsToolCall(acme, session, 'deferred'))
    expect(limited.result?.reason_codes).toContain('defer_limit')
    const theirs = await acs(warden.url, globex, acsToolCall(globex, session, 'deferred'))
    expect(theirs.result?.decision, JSON.stringify(theirs)).toBe('defer')
  })

  it('an ACS turn’s cap counts per tenant, session and turn', async (ctx) => {
    skipWithoutDb(ctx)
    const turn = `t-${randomUUID()}`
    const [one, two] = [randomUUID(), randomUUID()]
    for (const [tenant, session] of [
      [acme, one],
      [acme, two],
      [globex, one],
    ] as const) {
      const hello = await acs(
        warden.url,
        tenant,
        clientHello(session, {}, { key: ACS_KEY, params: { tenant_id: tenant.name } }),
      )
      expect(hello.result, JSON.stringify(hello)).toBeDefined()
    }
    expect((await acs(warden.url, acme, acsToolCall(acme, one, 'capped', turn))).result?.decision).toBe(
      'allow',
    )
    const again = await acs(warden.url, acme, acsToolCall(acme, one, 'capped', turn))
    expect(again.result?.decision, JSON.stringify(again)).toBe('deny')
    expect(again.result?.reasoning).toContain('maxInvocationsPerTurn')
    for (const [tenant, session] of [
      [acme, two],
      [globex, one],
    ] as const) {
      const own = await acs(warden.url, tenant, acsToolCall(tenant, session, 'capped', turn))
      expect(own.result?.decision, JSON.stringify(own)).toBe('allow')
    }
  })

  it('a global hook’s breaker tripped by one tenant’s failing traffic stays closed, and the hook on, for the other', async (ctx) => {
    skipWithoutDb(ctx)
    const session = `s-${randomUUID()}`
    // acme's calls lack the ticket: the global hook fails on each (5 failures trip it).
    for (let i = 0; i < 6; i++) {
      const failed = await call(warden.url, acme, 'fragile', {}, { session })
      expect(failed.decision).toBe('deny')
    }
    const held = await call(warden.url, acme, 'fragile', { ticket: 'T-1' }, { session })
    expect(held.decision).toBe('deny')
    expect(held.message).toMatch(/circuit breaker is open/)
    const theirs = await call(warden.url, globex, 'fragile', { ticket: 'T-2' }, { session })
    expect(theirs.decision, theirs.message).toBe('allow')
    const listed = (await admin?.ok('hooks.list', {})) as Loose
    const hooks = (Array.isArray(listed) ? listed : listed.hooks) as Loose[]
    const fragile = hooks.find((h) => h.id === 'fragile')
    expect(fragile?.enabled).toBe(true)
    expect(fragile?.breaker?.tenants).toEqual(['acme'])
    // The stored breaker (what every instance and a restart read) is acme's alone.
    await expect
      .poll(async () => (await store.loadBreakers()).filter((r) => r.hookId === 'fragile'), { timeout: 5000 })
      .toEqual([expect.objectContaining({ hookId: 'fragile', tenant: 'acme' })])
    expect((await store.getHook('fragile'))?.enabled ?? true).toBe(true)
    expect((await store.listHookOverrides()).get('fragile')).not.toBe(false)
  })
})
