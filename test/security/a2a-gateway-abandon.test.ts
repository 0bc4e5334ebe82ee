// Issue 34 item 13, against a real `warden a2a` in front of the official SDK agent, with asks
// held as approvals in a real store: a client that disconnects while its send waits for an
// approval abandons it at once (as /aos and /acs do), and approving it afterwards resolves
// nothing, records no allow and sends nothing upstream.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ask, type HookCall, type JsonObject } from '../../src/core/index.js'
import { ApprovalBroker, PushHub } from '../../src/server/index.js'
import type { Store } from '../../src/store/index.js'
import { storeAt, tempDir } from '../server/management-helper.js'
import { message, rpc, startTenantGateway, type TenantGateway } from './a2a-gateway-helper.js'

/** Polls `read` (every 20 ms, at most 10 s) until it answers something. */
async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('gave up waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('warden a2a: a held ask whose caller is gone', () => {
  let store: Store
  let broker: ApprovalBroker
  let setup: TenantGateway

  beforeAll(async () => {
    store = await storeAt(join(tempDir('warden-a2a-abandon-'), 'warden.db'))
    broker = new ApprovalBroker({ store, hub: new PushHub() })
    await broker.start()
    setup = await startTenantGateway({
      approver: broker.approver,
      hooks: [
        {
          name: 'wire-transfers-need-a-human',
          event: 'a2a.send',
          handler: {
            type: 'fn',
            fn: (call: HookCall) =>
              JSON.stringify(call.event.payload).includes('wire')
                ? ask('a wire transfer needs a human')
                : undefined,
          },
        },
      ],
    })
  }, 30_000)

  afterAll(async () => {
    await setup?.close()
    await broker?.close()
    await store?.close()
  })

  it('is marked abandoned, and approving it later sends and allows nothing', async () => {
    const before = setup.peer.calls()
    const client = new AbortController()
    const call = rpc(
      setup.gateway,
      'token-a',
      'SendMessage',
      { message: message('wire 1000 EUR') },
      client.signal,
    )
    call.catch(() => undefined)
    const pending = await until(async () => (await store.listApprovals({ status: 'pending' }))[0])
    client.abort()
    const row = await until(async () => {
      const current = await store.getApproval(pending.id)
      return current?.status === 'pending' ? undefined : current
    })
    expect(row.status).toBe('abandoned')
    const id = pending.id
    const late = await broker.resolve(id, { action: 'approve', by: 'alice' }, undefined)
    expect(late?.resolved).toBe(false)
    const send = setup.records.find((r) => r.event.event === 'a2a.send')
    expect(send?.decision.decision).toBe('deny')
    expect(String(send?.decision.reason)).toContain('abandoned')
    expect(setup.records.some((r) => r.event.event === 'a2a.response')).toBe(false)
    expect(setup.peer.calls()).toBe(before)
    expect((send?.event.payload.a2a as JsonObject | undefined)?.method).toBe('SendMessage')
  })
})
