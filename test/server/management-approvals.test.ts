// Approvals that really resolve, against a real `warden serve` on SQLite: an `ask` is held
// until a human approves, rejects or edits it over `/ws` (or from the terminal), expires at
// its deadline, is posted to the notify webhook, is denied with the reason when Warden
// shuts down, and survives a crash as `expired`. Also `/aos` token auth and the rule that a
// non-loopback address needs it.

import { createServer, type IncomingMessage, type Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall, WsClient } from './management-helper.js'

const dir = tempDir('warden-approvals-')
const db = join(dir, 'warden.db')
let warden: Served
let store: Store
let approver: WsClient
let webhook: Server
const notified: unknown[] = []

function yaml(port: number, timeoutMs = 30_000): string {
  return `
limits: { approvalTimeoutMs: ${timeoutMs} }
network: { allow: ["127.0.0.1"] }
approvals:
  notify: { url: "http://127.0.0.1:${port}/approvals", headers: { X-Channel: ops } }
hooks:
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`
}

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = ''
    request.on('data', (d) => {
      body += d
    })
    request.on('end', () => resolve(body))
  })
}

/** Sends a deploy to /aos and returns the pending answer plus the approval's id. */
async function held(input: Record<string, unknown> = { env: 'prod' }, headers: Record<string, string> = {}) {
  const seen = approver.pushes.length
  const answer = aos(warden.url, toolCall('deploy', input), headers)
  const push = await approver.push('approval.requested', () => approver.pushes.length > seen)
  return { answer, id: push.id as string, push }
}

beforeAll(async () => {
  webhook = createServer(async (request, response) => {
    notified.push({ headers: request.headers, body: JSON.parse(await read(request)) })
    response.end('ok')
  })
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve))
  const port = (webhook.address() as { port: number }).port
  warden = await serve({ dir, name: 'approvals', yaml: yaml(port), db })
  store = await storeAt(db)
  approver = await WsClient.connect(warden.url, (await token(store, 'approver')).token)
  await approver.ok('subscribe', { events: ['approval.requested', 'approval.resolved'] })
})

afterAll(async () => {
  approver?.close()
  await store?.close()
  await warden?.stop()
  webhook?.close()
})

describe('approvals', () => {
  it('holds the request until it is approved, then allows it', async () => {
    const { answer, id, push } = await held()
    expect(push).toMatchObject({
      status: 'pending',
      event: 'tool.pre',
      asks: [{ hook: 'ask-deploy', reason: 'deploys need a human' }],
    })
    expect(push.input.payload.tool).toMatchObject({ name: 'deploy', input: { env: 'prod' } })
    const pending = await approver.ok('approvals.list', { status: 'pending' })
    expect(pending.approvals.map((a: { id: string }) => a.id)).toContain(id)
    const resolved = await approver.ok('approvals.resolve', { id, action: 'approve', comment: 'go ahead' })
    expect(resolved).toMatchObject({ status: 'approved', resolution: 'approve', comment: 'go ahead' })
    const { body } = await answer
    expect(body.result.decision).toBe('allow')
    expect(body.result.data.approval).toMatchObject({ outcome: 'approved', by: 'approver-all' })
    expect((await approver.push('approval.resolved', (p) => p.id === id)).status).toBe('approved')
    const again = await approver.call('approvals.resolve', { id, action: 'reject' })
    expect(again.error).toMatchObject({ code: 'conflict' })
    await new Promise((r) => setTimeout(r, 300))
    expect((await store.getApproval(id))?.status).toBe('approved')
  })

  it('denies with the approver’s comment on reject', async () => {
    const { answer, id } = await held()
    await approver.ok('approvals.resolve', { id, action: 'reject', comment: 'not on a Friday' })
    const { body } = await answer
    expect(body.result.decision).toBe('deny')
    expect(body.result.message).toContain('not on a Friday')
  })

  it('modifies with the edited input on edit', async () => {
    const { answer, id } = await held({ env: 'prod', force: true })
    await approver.ok('approvals.resolve', { id, action: 'edit', input: { env: 'staging' } })
    const { body } = await answer
    expect(body.result.decision).toBe('modify')
    const inputs = body.result.modifiedRequest.params.toolCallRequest.inputs
    expect(inputs).toEqual([{ name: 'env', value: 'staging' }])
  })

  it('takes a resolution made from the terminal', async () => {
    const { answer, id } = await held()
    const cli = await runCli([
      'approvals',
      'approve',
      id,
      '--db',
      db,
      '--comment',
      'from the shell',
      '--by',
      'ops',
    ])
    expect(cli.stderr).toBe('')
    expect(cli.code).toBe(0)
    const { body } = await answer
    expect(body.result.decision).toBe('allow')
    expect(body.result.data.approval.by).toBe('ops')
    const listed = await runCli(['approvals', 'list', '--db', db, '--json'])
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rows.find((r: { id: string }) => r.id === id)).toMatchObject({
      status: 'approved',
      decidedBy: 'ops',
    })
    const twice = await runCli(['approvals', 'reject', id, '--db', db])
    expect(twice.code).toBe(1)
    expect(twice.stderr).toContain('already approved')
  })

  it('lets one of two concurrent approvers win', async () => {
    const second = await WsClient.connect(
      warden.url,
      (await token(store, 'admin', undefined, 'second')).token,
    )
    const { answer, id } = await held()
    const [a, b] = await Promise.all([
      approver.call('approvals.resolve', { id, action: 'approve' }),
      second.call('approvals.resolve', { id, action: 'reject' }),
    ])
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1)
    expect([a, b].find((r) => !r.ok)?.error?.code).toBe('conflict')
    const { body } = await answer
    expect(body.result.decision).toBe(a.ok ? 'allow' : 'deny')
    second.close()
  })

  it('expires at the deadline with a deny that says so', async () => {
    const local = join(dir, 'expiry.db')
    const short = await serve({ dir, name: 'expiry', yaml: yaml(9, 1500), db: local })
    const own = await storeAt(local)
    try {
      const watcher = await WsClient.connect(short.url, (await token(own, 'admin')).token)
      await watcher.ok('subscribe', { events: ['approval.requested'] })
      const started = Date.now()
      const answer = aos(short.url, toolCall('deploy', {}))
      const { id } = await watcher.push('approval.requested')
      const { body } = await answer
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
      expect(body.result.decision).toBe('deny')
      expect(body.result.message).toContain('no approval within 1500 ms')
      await new Promise((r) => setTimeout(r, 300))
      expect((await own.getApproval(id))?.status).toBe('expired')
      expect((await watcher.call('approvals.resolve', { id, action: 'approve' })).error?.code).toBe(
        'conflict',
      )
      watcher.close()
    } finally {
      await own.close()
      await short.stop()
    }
  }, 60_000)

  it('posts each new approval to the notify webhook', async () => {
    const { answer, id } = await held()
    await approver.ok('approvals.resolve', { id, action: 'approve' })
    await answer
    const deadline = Date.now() + 3000
    while (
      Date.now() < deadline &&
      !notified.some((n) => (n as { body: { approval: { id: string } } }).body.approval.id === id)
    ) {
      await new Promise((r) => setTimeout(r, 20))
    }
    const post = notified.find(
      (n) => (n as { body: { approval: { id: string } } }).body.approval.id === id,
    ) as { headers: Record<string, string>; body: { type: string } } | undefined
    expect(post?.body.type).toBe('approval.requested')
    expect(post?.headers['x-channel']).toBe('ops')
  })

  it('keeps a tenant’s approvals from other tenants', async () => {
    const acme = await WsClient.connect(warden.url, (await token(store, 'approver', 'acme')).token)
    const globex = await WsClient.connect(warden.url, (await token(store, 'approver', 'globex')).token)
    await acme.ok('subscribe', { events: ['approval.requested'] })
    await globex.ok('subscribe', { events: ['approval.requested'] })
    const { answer, id } = await held({ env: 'prod' }, { 'x-warden-tenant': 'acme' })
    expect((await acme.push('approval.requested', (p) => p.id === id)).tenant).toBe('acme')
    expect(globex.pushes.some((p) => p.payload.id === id)).toBe(false)
    expect((await globex.ok('approvals.list')).approvals.some((a: { id: string }) => a.id === id)).toBe(false)
    // Asked by its id (a notification's link), another tenant's approval is still not there.
    expect((await globex.ok('approvals.list', { id })).approvals).toEqual([])
    expect((await globex.call('approvals.list', { id, tenant: 'acme' })).error?.code).toBe('forbidden')
    expect((await acme.ok('approvals.list', { id })).approvals.map((a: { id: string }) => a.id)).toEqual([id])
    expect((await globex.call('approvals.resolve', { id, action: 'approve' })).error?.code).toBe('not-found')
    await acme.ok('approvals.resolve', { id, action: 'approve' })
    expect((await answer).body.result.decision).toBe('allow')
    acme.close()
    globex.close()
  })
})

describe('restarts', () => {
  it('denies held requests with the reason at shutdown, and a crash leaves them expired', async () => {
    const local = join(dir, 'restart.db')
    const first = await serve({ dir, name: 'restart', yaml: yaml(9, 60_000), db: local })
    const own = await storeAt(local)
    const admin = (await token(own, 'admin')).token
    const watcher = await WsClient.connect(first.url, admin)
    await watcher.ok('subscribe', { events: ['approval.requested'] })
    const answer = aos(first.url, toolCall('deploy', {}))
    const pending = await watcher.push('approval.requested')
    await first.stop('SIGTERM')
    const { body } = await answer
    expect(body.result.decision).toBe('deny')
    expect(body.result.message).toContain('shut down while it was pending')
    expect((await own.getApproval(pending.id))?.status).toBe('expired')

    const second = await serve({ dir, name: 'restart', yaml: yaml(9, 60_000), db: local })
    const watcher2 = await WsClient.connect(second.url, admin)
    await watcher2.ok('subscribe', { events: ['approval.requested'] })
    void aos(second.url, toolCall('deploy', {})).catch(() => undefined)
    const crashed = await watcher2.push('approval.requested')
    await second.stop('SIGKILL')
    expect((await own.getApproval(crashed.id))?.status).toBe('pending')
    const third = await serve({ dir, name: 'restart', yaml: yaml(9, 60_000), db: local })
    const row = await own.getApproval(crashed.id)
    expect(row?.status).toBe('expired')
    expect(row?.reason).toContain('restarted')
    await third.stop()
    await own.close()
  }, 120_000)
})

describe('the notify webhook', () => {
  it('refuses a metadata-service URL through the SSRF policy, and the approval still works', async () => {
    const local = join(dir, 'ssrf.db')
    const guarded = await serve({
      dir,
      name: 'ssrf',
      db: local,
      yaml: `
approvals:
  notify: { url: "http://169.254.169.254/latest/meta-data" }
hooks:
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`,
    })
    const own = await storeAt(local)
    try {
      const watcher = await WsClient.connect(guarded.url, (await token(own, 'admin')).token)
      await watcher.ok('subscribe', { events: ['approval.requested'] })
      const answer = aos(guarded.url, toolCall('deploy', {}))
      const { id } = await watcher.push('approval.requested')
      await watcher.ok('approvals.resolve', { id, action: 'approve' })
      expect((await answer).body.result.decision).toBe('allow')
      await expect.poll(() => guarded.stderr(), { timeout: 5000 }).toContain('approvals.notify failed')
      expect(guarded.stderr()).toMatch(/169\.254\.169\.254|link-local|metadata|blocked|not allowed/i)
      watcher.close()
    } finally {
      await own.close()
      await guarded.stop()
    }
  }, 60_000)
})

describe('/aos access', () => {
  it('requires a token with server.auth: token and pins an agent token’s tenant', async () => {
    const local = join(dir, 'auth.db')
    const secured = await serve({
      dir,
      name: 'auth',
      db: local,
      yaml: `
server: { auth: token }
hooks:
  - name: acme-deny
    event: tool.pre
    scope: { tenant: acme }
    handler: { type: deny, reason: "acme blocks everything" }
`,
    })
    const own = await storeAt(local)
    try {
      const missing = await aos(secured.url, toolCall('x', {}))
      expect(missing.status).toBe(401)
      expect(missing.body.error.data.reason).toContain('token')
      const bad = await aos(secured.url, toolCall('x', {}), { authorization: 'Bearer wdn_nope' })
      expect(bad.status).toBe(401)
      const agent = await token(own, 'agent', 'acme')
      const pinned = await aos(secured.url, toolCall('x', {}), { authorization: `Bearer ${agent.token}` })
      expect(pinned.body.result.decision).toBe('deny')
      const override = await aos(secured.url, toolCall('x', {}), {
        authorization: `Bearer ${agent.token}`,
        'x-warden-tenant': 'globex',
      })
      expect(override.status).toBe(403)
      const master = await token(own, 'agent')
      const global = await aos(secured.url, toolCall('x', {}), { authorization: `Bearer ${master.token}` })
      expect(global.body.result.decision).toBe('allow')
      await own.revokeToken(agent.id, Date.now())
      await new Promise((r) => setTimeout(r, 1000))
      expect(
        (await aos(secured.url, toolCall('x', {}), { authorization: `Bearer ${agent.token}` })).status,
      ).toBe(401)
    } finally {
      await own.close()
      await secured.stop()
    }
  })

  it('refuses a non-loopback address without auth unless told it is safe', async () => {
    const refused = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', join(dir, 'open.db')])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('server.auth: token')
    expect(refused.stderr).toContain('--insecure-no-auth')
  })
})
