// `decisions.list` filters by agent: the store's `agentId` query (the `agent_id` column)
// and the method's `agent` param, which stays within the token's tenant and is checked.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PlaneContext } from '../../src/server/management/context.js'
import { otherMethods } from '../../src/server/management/methods-other.js'
import { ApiError, parseParams } from '../../src/server/management/protocol.js'
import type { Principal } from '../../src/server/management/tokens.js'
import { type AuditBatch, openStore, type Store } from '../../src/store/index.js'
import { testBox } from '../store/helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-agent-filter-'))
let store: Store

function batch(id: string, tenant: string, agentId: string | undefined, createdAt: number): AuditBatch {
  return {
    decisions: [
      {
        id,
        tenant,
        ...(agentId ? { agentId } : {}),
        event: 'tool.pre',
        decision: 'allow',
        reason: '',
        reasonCode: [],
        decidingHooks: [],
        policies: [],
        durationMs: 1,
        blocking: true,
        input: { event: 'tool.pre', payload: {}, context: { tenantId: tenant } },
        output: { additionalContext: [] },
        createdAt,
      },
    ],
    executions: [],
    approvals: [],
  }
}

beforeAll(async () => {
  store = await openStore(join(dir, 'agents.db'), { secrets: testBox, pollMs: 50 })
  const t0 = Date.now() - 10_000
  await store.writeAudit(batch('a-1', 'acme', 'alice', t0))
  await store.writeAudit(batch('a-2', 'acme', 'bob', t0 + 1))
  await store.writeAudit(batch('a-3', 'acme', 'alice', t0 + 2))
  await store.writeAudit(batch('a-4', 'acme', undefined, t0 + 3))
  await store.writeAudit(batch('g-1', 'globex', 'alice', t0 + 4))
})
afterAll(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Calls `decisions.list` as the management plane does: parse the params, then run. */
async function list(params: unknown, principal: Partial<Principal> = {}) {
  const def = otherMethods({ store } as unknown as PlaneContext, () => ({}))['decisions.list']
  if (!def) throw new Error('no decisions.list')
  const parsed = parseParams(def.params, params, 'decisions.list')
  const connection = { subscribe: () => [], unsubscribe: () => [] }
  return (await def.run(parsed, {
    principal: { tokenId: 't', name: 'me', role: 'viewer', ...principal },
    connection,
  })) as { decisions: { id: string; agentId?: string }[]; next?: number }
}

describe('decisions by agent', () => {
  it('lists only the agent asked for in the store, newest first', async () => {
    expect((await store.listDecisions({ agentId: 'alice' })).map((d) => d.id)).toEqual(['g-1', 'a-3', 'a-1'])
    expect((await store.listDecisions({ tenant: 'acme', agentId: 'alice' })).map((d) => d.id)).toEqual([
      'a-3',
      'a-1',
    ])
    expect(await store.listDecisions({ agentId: 'nobody' })).toEqual([])
  })

  it('takes `agent` in decisions.list, within the token tenant, with pages', async () => {
    const all = await list({ agent: 'alice' })
    expect(all.decisions.map((d) => d.id)).toEqual(['g-1', 'a-3', 'a-1'])
    expect(all.decisions.every((d) => d.agentId === 'alice')).toBe(true)
    expect((await list({ agent: 'alice' }, { tenant: 'acme' })).decisions.map((d) => d.id)).toEqual([
      'a-3',
      'a-1',
    ])
    const first = await list({ agent: 'alice', limit: 1 })
    expect(first.decisions.map((d) => d.id)).toEqual(['g-1'])
    expect(first.next).toBe(1)
    const second = await list({ agent: 'alice', limit: 1, offset: first.next })
    expect(second.decisions.map((d) => d.id)).toEqual(['a-3'])
    expect((await list({ agent: 'bob', tenant: 'acme' })).decisions.map((d) => d.id)).toEqual(['a-2'])
    expect((await list({})).decisions).toHaveLength(5)
  })

  it('rejects an empty or non-string agent', async () => {
    await expect(list({ agent: '' })).rejects.toMatchObject({ code: 'invalid-params', field: 'agent' })
    await expect(list({ agent: 7 })).rejects.toBeInstanceOf(ApiError)
  })
})
