// A caller held for an approval always gets its answer: the server's idle timeout is
// derived from the longest hold (chain budget + approval timeout, plus a margin), so a
// connection that says nothing while a human decides is not closed under it. Shown against
// a real `warden serve` whose base idle timeout is lowered to 2 s (the default is 60 s):
// the ask is held for 5 s, then approved, and the answer arrives on the same connection.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { longestHoldMs, serverTimeouts, TIMEOUT_DEFAULTS } from '../../src/server/index.js'
import type { Store } from '../../src/store/index.js'
import {
  aos,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  toolCall,
  WsClient,
} from '../server/management-helper.js'

describe('server timeouts follow the approval timeout', () => {
  it('raises the idle timeout past the chain budget plus the approval timeout', () => {
    const hold = longestHoldMs({ chainBudgetMs: 10_000, approvalTimeoutMs: 300_000 })
    expect(hold).toBe(310_000)
    const timeouts = serverTimeouts({ holdMs: hold })
    expect(timeouts.connectionTimeout).toBeGreaterThanOrEqual(hold + TIMEOUT_DEFAULTS.marginMs)
    // The former fixed 60 s would have closed the held connection four minutes early.
    expect(timeouts.connectionTimeout).toBeGreaterThan(60_000)
  })

  it('keeps the base idle timeout when it is longer than any hold', () => {
    expect(serverTimeouts({ idleTimeoutMs: 600_000, holdMs: 40_000 }).connectionTimeout).toBe(600_000)
    expect(serverTimeouts({ idleTimeoutMs: 2000, holdMs: 40_000 }).connectionTimeout).toBe(70_000)
  })
})

describe('a held call past the base idle timeout (real warden serve)', () => {
  const dir = tempDir('warden-held-')
  const db = join(dir, 'warden.db')
  let warden: Served
  let store: Store
  let approver: WsClient

  beforeAll(async () => {
    warden = await serve({
      dir,
      name: 'held',
      db,
      yaml: `
server: { idleTimeoutMs: 2000 }
limits: { approvalTimeoutMs: 60000 }
hooks:
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`,
    })
    store = await storeAt(db)
    approver = await WsClient.connect(warden.url, (await token(store, 'approver')).token)
    await approver.ok('subscribe', { events: ['approval.requested'] })
  }, 60_000)

  afterAll(async () => {
    approver?.close()
    await store?.close()
    await warden?.stop()
  })

  it('answers the caller approved after 5 s of silence on a 2 s base idle timeout', async () => {
    const seen = approver.pushes.length
    const started = Date.now()
    const answer = aos(warden.url, toolCall('deploy', { env: 'prod' }))
    const push = await approver.push('approval.requested', () => approver.pushes.length > seen)
    await new Promise((resolve) => setTimeout(resolve, 5000))
    await approver.ok('approvals.resolve', { id: push.id, action: 'approve', comment: 'after a while' })
    const { status, body } = await answer
    expect(Date.now() - started).toBeGreaterThan(5000)
    expect(status).toBe(200)
    expect(body.result.decision).toBe('allow')
    expect(body.result.data.approval).toMatchObject({ outcome: 'approved' })
  }, 60_000)
})
