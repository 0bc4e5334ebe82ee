// Three `warden serve` instances on one real PostgreSQL server of this file's own (so it can
// be frozen with SIGSTOP and stopped without touching other tests' databases), as a team
// runs them behind a load balancer: pushes made on one instance reach `/ws` clients on
// another, in order per approval; an approval whose caller went away, or whose instance was
// killed, is marked abandoned and a late resolve is refused saying the caller is gone;
// `/readyz` fails while the database is unreachable; and during a freeze and a stop every
// answer (AOS, ACS, ask) arrives within its bound, names its cause and matches its audit row.

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SoakPostgres, startSoakPostgres } from '../../bench/soak/postgres.js'
import { acsRequest } from '../../src/protocols/acs/index.js'
import type { Store } from '../../src/store/index.js'
import {
  aos,
  type Loose,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  toolCall,
  WsClient,
} from './management-helper.js'

const dir = tempDir('warden-cluster-')
/** `audit.syncTimeoutMs` of the instances: the bound of every answer during an outage. */
const SYNC_TIMEOUT_MS = 1500
const YAML = `
limits: { approvalTimeoutMs: 15000 }
audit: { mode: sync, syncTimeoutMs: ${SYNC_TIMEOUT_MS} }
acs: { requireHandshake: false, onDecisionFailure: deny }
hooks:
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`

let postgres: SoakPostgres | undefined
let url = ''
let a: Served
let b: Served
let store: Store
let admin = ''
const clients: WsClient[] = []

beforeAll(async () => {
  try {
    postgres = await startSoakPostgres()
  } catch (error) {
    if (process.env.CI === 'true') throw error
    return
  }
  url = postgres.url
  ;[a, b] = await Promise.all([
    serve({ dir, name: 'a', yaml: YAML, db: url }),
    serve({ dir, name: 'b', yaml: YAML, db: url }),
  ])
  store = await storeAt(url)
  admin = (await token(store, 'admin')).token
}, 120_000)

afterAll(async () => {
  for (const c of clients) c.close()
  postgres?.freeze(false)
  await store?.close().catch(() => undefined)
  await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')])
  postgres?.destroy()
})

async function subscriber(on: Served, events: string[]): Promise<WsClient> {
  const client = await WsClient.connect(on.url, admin)
  clients.push(client)
  await client.ok('subscribe', { events })
  return client
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `check` returns a value, or fails after `ms`. */
async function until<T>(check: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const value = await check().catch(() => undefined)
    if (value !== undefined) return value
    await sleep(100)
  }
  throw new Error(`${what} did not happen within ${ms} ms`)
}

/** Posts and measures how long the answer took. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now()
  const value = await work()
  return { value, ms: Date.now() - started }
}

async function acs(on: Served, tool: string): Promise<Loose> {
  const request = acsRequest(
    'steps/toolCallRequest',
    { tool: { id: tool }, arguments: { cmd: 'ls' } },
    { sessionId: `s-${randomUUID()}` },
  )
  const response = await fetch(`${on.url}/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  })
  return response.json()
}

async function readyz(on: Served): Promise<{ status: number; body: Loose }> {
  const response = await fetch(`${on.url}/readyz`)
  return { status: response.status, body: await response.json() }
}

describe('several instances on one PostgreSQL', () => {
  it('pushes approvals and decisions made on one instance to subscribers of another, in order', async (ctx) => {
    if (!postgres) return ctx.skip()
    const onB = await subscriber(b, ['approval.requested', 'approval.resolved', 'decision', 'hook.changed'])
    const onA = await WsClient.connect(a.url, admin)
    clients.push(onA)
    // B's subscription reaches A with B's next heartbeat (every second).
    await sleep(2500)
    // over NOTIFY's 8000-byte payload limit: sent in chunks and put together again
    const held = aos(a.url, toolCall('deploy', { target: 'prod', notes: 'n'.repeat(20_000) }))
    const requested = await onB.push('approval.requested', (p) => p.status === 'pending', 8000)
    expect(requested.input.payload.tool.input.notes).toHaveLength(20_000)
    await onA.ok('approvals.resolve', { id: requested.id, action: 'approve', comment: 'ok from A' })
    const resolved = await onB.push('approval.resolved', (p) => p.id === requested.id, 8000)
    expect(resolved.status).toBe('approved')
    const { body } = await held
    expect(body.result.decision).toBe('allow')
    const decision = await onB.push('decision', (p) => p.id === body.result.data.decisionId, 8000)
    expect(decision.decision).toBe('allow')
    // once each, requested before resolved
    const about = onB.pushes.filter((p) => p.payload.id === requested.id && p.event.startsWith('approval.'))
    expect(about.map((p) => p.event)).toEqual(['approval.requested', 'approval.resolved'])

    await onA.ok('hooks.create', {
      name: 'no-rm',
      event: 'tool.pre',
      matcher: '^rm$',
      handler: { type: 'deny', reason: 'no rm' },
    })
    await onB.push('hook.changed', (p) => p.id === 'no-rm' && p.change === 'created', 8000)
    await sleep(500)
    expect(onB.pushes.filter((p) => p.event === 'hook.changed' && p.payload.id === 'no-rm')).toHaveLength(1)
  }, 30_000)

  it('marks an approval abandoned at once when its caller goes away, and pushes it', async (ctx) => {
    if (!postgres) return ctx.skip()
    const onB = await subscriber(a, ['approval.requested', 'approval.resolved'])
    const caller = new AbortController()
    const held = fetch(`${a.url}/aos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(toolCall('deploy', { target: 'gone' })),
      signal: caller.signal,
    }).catch(() => undefined)
    const requested = await onB.push(
      'approval.requested',
      (p) => p.input?.payload?.tool?.input?.target === 'gone',
      8000,
    )
    const started = Date.now()
    caller.abort()
    await held
    const abandoned = await onB.push(
      'approval.resolved',
      (p) => p.id === requested.id && p.status === 'abandoned',
      5000,
    )
    expect(Date.now() - started).toBeLessThan(3000)
    expect(abandoned.comment).toMatch(/caller closed its connection/)
    const late = await onB.call('approvals.resolve', { id: requested.id, action: 'approve' })
    expect(late.ok).toBe(false)
    expect(late.error?.message).toMatch(/abandoned.*nobody is waiting/)
  }, 30_000)

  it('marks the approvals of a killed instance abandoned within seconds and refuses a late resolve', async (ctx) => {
    if (!postgres) return ctx.skip()
    const c = await serve({ dir, name: 'c', yaml: YAML, db: url })
    const onA = await subscriber(a, ['approval.requested', 'approval.resolved'])
    void aos(c.url, toolCall('deploy', { target: 'orphan' })).catch(() => undefined)
    const requested = await onA.push(
      'approval.requested',
      (p) => p.input?.payload?.tool?.input?.target === 'orphan',
      8000,
    )
    await c.stop('SIGKILL')
    const killed = Date.now()
    const row = await until(
      async () => {
        const found = await store.getApproval(requested.id)
        return found?.status === 'abandoned' ? found : undefined
      },
      12_000,
      "the abandonment of the killed instance's approval",
    )
    expect(Date.now() - killed).toBeLessThan(10_000)
    expect(row.reason).toMatch(/caller is gone/)
    const pushed = await onA.push('approval.resolved', (p) => p.id === requested.id, 5000)
    expect(pushed.status).toBe('abandoned')
    const late = await onA.call('approvals.resolve', { id: requested.id, action: 'approve' })
    expect(late.ok).toBe(false)
    expect(late.error?.message).toMatch(/abandoned: the caller is gone.*nobody is waiting/)
  }, 60_000)

  it('answers within the bound, naming the cause, while the database is frozen; the audit rows say the same', async (ctx) => {
    if (!postgres) return ctx.skip()
    const bound = SYNC_TIMEOUT_MS * 2 + 3000
    postgres.freeze(true)
    // thawed in any case, so that an answer that never comes fails the test, not the run
    const thaw = setTimeout(() => postgres?.freeze(false), bound + 3000)
    let answered: { aos: Loose; ask: Loose; acs: Loose; ready: { status: number; body: Loose } }
    try {
      const [plain, ask, signed, ready] = await Promise.all([
        timed(() => aos(a.url, toolCall('ls', { path: '/' }))),
        timed(() => aos(b.url, toolCall('deploy', { target: 'frozen' }))),
        timed(() => acs(a, 'ls')),
        timed(() => readyz(b)),
      ])
      for (const t of [plain, ask, signed, ready]) expect(t.ms).toBeLessThan(bound)
      answered = { aos: plain.value.body, ask: ask.value.body, acs: signed.value, ready: ready.value }
      expect((await fetch(`${b.url}/healthz`)).status).toBe(200)
    } finally {
      clearTimeout(thaw)
      postgres.freeze(false)
    }
    expect(answered.aos.result.decision).toBe('deny')
    expect(answered.aos.result.message).toMatch(/audit write did not finish within 1500 ms/)
    expect(answered.ask.result.decision).toBe('deny')
    expect(answered.ask.result.message).toMatch(/could not be (stored|recorded)/)
    expect(answered.acs.result.decision).toBe('deny')
    expect(answered.acs.result.reasoning).toMatch(/ACS ledger .* did not answer within 1500 ms/)
    expect(answered.ready.status).toBe(503)
    expect(answered.ready.body.cause).toMatch(/database cannot be reached/)

    // Once the database answers again, the rows say what the callers were told.
    const row = await until(
      async () => {
        const found = await store.getDecision(answered.aos.result.data.decisionId)
        return found?.decision === 'deny' ? found : undefined
      },
      10_000,
      'the deny row of the frozen AOS request',
    )
    expect(row.reason).toMatch(/audit write did not finish/)
    const ask = await until(
      async () => {
        const found = await store.getDecision(answered.ask.result.data.decisionId)
        return found ?? undefined
      },
      10_000,
      'the row of the frozen ask',
    )
    expect(ask.decision).toBe('deny')
    // nothing recorded as allowed while the callers were denied
    const allowed = await store.listDecisions({ decision: 'allow', since: Date.now() - 60_000, limit: 100 })
    expect(allowed.filter((d) => JSON.stringify(d.input).includes('frozen'))).toEqual([])
    await until(async () => ((await readyz(a)).status === 200 ? true : undefined), 10_000, 'ready again')
  }, 60_000)

  it('names the cause while the database is stopped, and is ready again once it is back', async (ctx) => {
    if (!postgres) return ctx.skip()
    postgres.crash()
    try {
      const bound = SYNC_TIMEOUT_MS * 2 + 3000
      const signed = await timed(() => acs(a, 'ls'))
      expect(signed.ms).toBeLessThan(bound)
      expect(signed.value.result.decision).toBe('deny')
      expect(signed.value.result.reasoning).toMatch(
        /ACS ledger \(session state\) failed: the database \(PostgreSQL\) .+/,
      )
      const plain = await timed(() => aos(b.url, toolCall('ls', {})))
      expect(plain.ms).toBeLessThan(bound)
      expect(plain.value.body.result.decision).toBe('deny')
      expect(plain.value.body.result.message).toMatch(/could not be recorded/)
      const ready = await readyz(a)
      expect(ready.status).toBe(503)
      expect(ready.body).toMatchObject({ status: 'not-ready', checks: { store: 'unreachable' } })
      expect(ready.body.cause).toMatch(/database cannot be reached/)
      expect((await fetch(`${a.url}/healthz`)).status).toBe(200)
    } finally {
      postgres.start()
    }
    await until(async () => ((await readyz(a)).status === 200 ? true : undefined), 15_000, 'ready again')
    const after = await until(
      async () => {
        const { body } = await aos(a.url, toolCall('ls', {}))
        return body.result.decision === 'allow' ? body : undefined
      },
      15_000,
      'an allow after the restart',
    )
    expect(after.result.decision).toBe('allow')
  }, 60_000)
})
