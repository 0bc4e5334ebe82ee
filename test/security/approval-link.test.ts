// A link to one approval (`#/approvals?id=…`, what notifications send) reads it through
// `approvals.list {id}`. The id does not reach across tenants: another tenant's token gets
// nothing for it, and naming the other tenant is refused; the id is bounded like every id.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callTool } from '../helpers/neighbours.js'
import { type Served, serve, storeAt, tempDir, token, WsClient } from '../server/management-helper.js'

const CONFIG = `
server: { auth: token }
limits: { approvalTimeoutMs: 20000 }
hooks:
  - name: deploys-need-a-human
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`

describe('approvals.list by id across tenants', () => {
  const dir = tempDir('warden-approval-link-')
  let warden: Served
  let acme: WsClient
  let globex: WsClient
  let held: Promise<{ decision: string }>
  let id: string

  beforeAll(async () => {
    const db = join(dir, 'warden.db')
    warden = await serve({ dir, name: 'link', db, yaml: CONFIG })
    const store = await storeAt(db)
    const agent = (await token(store, 'agent', 'acme', 'acme-agent')).token
    acme = await WsClient.connect(warden.url, (await token(store, 'approver', 'acme')).token)
    globex = await WsClient.connect(warden.url, (await token(store, 'approver', 'globex')).token)
    held = callTool(warden.url, agent, 'deploy', { env: 'prod' })
    for (let i = 0; i < 200 && !id; i++) {
      id = (await store.listApprovals({ status: 'pending' }))[0]?.id ?? ''
      if (!id) await new Promise((resolve) => setTimeout(resolve, 25))
    }
    await store.close()
  }, 60_000)

  afterAll(async () => {
    acme?.close()
    globex?.close()
    await warden?.stop()
  })

  it('gives the approval to its own tenant and nothing to another', async () => {
    expect(id).not.toBe('')
    expect((await acme.ok('approvals.list', { id })).approvals.map((a: { id: string }) => a.id)).toEqual([id])
    expect((await globex.ok('approvals.list', { id })).approvals).toEqual([])
    expect((await globex.call('approvals.list', { id, tenant: 'acme' })).error?.code).toBe('forbidden')
  })

  it('refuses an id that is empty or too long, naming the field', async () => {
    for (const bad of ['', 'x'.repeat(201)]) {
      const answer = await acme.call('approvals.list', { id: bad })
      expect(answer.error?.code).toBe('invalid-params')
      expect(answer.error?.field).toBe('id')
    }
  })

  it('the held request is still answered by its own tenant', async () => {
    await acme.ok('approvals.resolve', { id, action: 'reject', comment: 'not now' })
    expect((await held).decision).toBe('deny')
  })
})
