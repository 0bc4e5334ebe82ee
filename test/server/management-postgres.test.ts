// Two `warden serve` instances on one real PostgreSQL: an approval resolved on one releases
// the request held on the other within a second, a hook created through one takes effect
// on the other within a second, and a command hook stored while the API may not make
// them is refused when it runs.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall, WsClient } from './management-helper.js'

const dir = tempDir('warden-pg-mgmt-')
let database: TestDatabase | undefined
let a: Served
let b: Served
let store: Store
const clients: WsClient[] = []

const YAML = `
limits: { approvalTimeoutMs: 20000 }
hooks:
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`

beforeAll(async () => {
  database = await postgresForTests()
  if (!database) return
  a = await serve({ dir, name: 'a', yaml: YAML, db: database.url })
  b = await serve({ dir, name: 'b', yaml: YAML, db: database.url })
  store = await storeAt(database.url)
}, 120_000)

afterAll(async () => {
  for (const c of clients) c.close()
  await store?.close()
  await a?.stop()
  await b?.stop()
  await database?.release()
})

describe('two instances on PostgreSQL', () => {
  it('releases a request held on one instance when the approval is resolved on the other', async (ctx) => {
    if (!database) return ctx.skip()
    const admin = (await token(store, 'admin')).token
    const onA = await WsClient.connect(a.url, admin)
    const onB = await WsClient.connect(b.url, admin)
    clients.push(onA, onB)
    await onA.ok('subscribe', { events: ['approval.requested'] })
    for (let round = 0; round < 3; round++) {
      const seen = onA.pushes.length
      const answer = aos(a.url, toolCall('deploy', { round }))
      const push = await onA.push('approval.requested', () => onA.pushes.length > seen)
      const pending = await onB.ok('approvals.list', { status: 'pending' })
      expect(pending.approvals.map((x: { id: string }) => x.id)).toContain(push.id)
      const started = Date.now()
      await onB.ok('approvals.resolve', {
        id: push.id,
        action: round === 1 ? 'reject' : 'approve',
        comment: `round ${round}`,
      })
      const { body } = await answer
      expect(Date.now() - started).toBeLessThan(1000)
      expect(body.result.decision).toBe(round === 1 ? 'deny' : 'allow')
    }
  })

  it('makes a hook created through one instance take effect on the other within a second', async (ctx) => {
    if (!database) return ctx.skip()
    const onB = await WsClient.connect(b.url, (await token(store, 'editor')).token)
    clients.push(onB)
    expect((await aos(a.url, toolCall('rm', {}))).body.result.decision).toBe('allow')
    await onB.ok('hooks.create', {
      name: 'no-rm',
      event: 'tool.pre',
      matcher: '^rm$',
      handler: { type: 'deny', reason: 'no rm' },
    })
    const started = Date.now()
    let decision = 'allow'
    while (decision !== 'deny' && Date.now() - started < 2000) {
      decision = (await aos(a.url, toolCall('rm', {}))).body.result.decision
      if (decision !== 'deny') await new Promise((r) => setTimeout(r, 25))
    }
    expect(decision).toBe('deny')
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('refuses, when it runs, a command hook stored while the API may not make them', async (ctx) => {
    if (!database) return ctx.skip()
    const onA = await WsClient.connect(a.url, (await token(store, 'admin', undefined, 'gate')).token)
    clients.push(onA)
    const refused = await onA.call('hooks.create', {
      name: 'run-it',
      event: 'tool.pre',
      handler: { type: 'command', command: 'true' },
    })
    expect(refused.error).toMatchObject({ code: 'forbidden', field: 'handler.type' })
    expect(refused.error?.message).toContain('management.allowCommandHooks')
    await store.putHook({
      name: 'smuggled',
      event: 'tool.pre',
      matcher: '^smuggle$',
      handler: { type: 'command', command: 'true' },
    })
    const started = Date.now()
    let result = (await aos(a.url, toolCall('smuggle', {}))).body.result
    while (!String(result.message).includes('allowCommandHooks') && Date.now() - started < 3000) {
      await new Promise((r) => setTimeout(r, 50))
      result = (await aos(a.url, toolCall('smuggle', {}))).body.result
    }
    expect(result.decision).toBe('deny')
    expect(result.message).toContain('management.allowCommandHooks')
  })
})
