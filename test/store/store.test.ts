// The shared Store suite: the same behaviour on SQLite and on a real PostgreSQL server —
// hooks (versions, secrets, scope), audit rows (idempotent), budgets, breakers, the change
// feed, and tenant isolation in every query.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuditBatch, type ChangeKind, openStore, type Store, StoreError } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'
import { testBox } from './helpers.js'

let pgDb: TestDatabase | undefined
const dir = mkdtempSync(join(tmpdir(), 'warden-store-'))

beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

function batch(id: string, tenant: string, createdAt = Date.now()): AuditBatch {
  return {
    decisions: [
      {
        id,
        tenant,
        event: 'tool.pre',
        decision: 'deny',
        reason: `denied ${id}`,
        reasonCode: ['guard'],
        decidingHooks: [{ hook: 'guard', version: 1 }],
        policies: [{ id: 'p', version: '3' }],
        durationMs: 1.25,
        blocking: true,
        input: {
          event: 'tool.pre',
          payload: { tool: { name: 'exec', input: { cmd: 'rm' } } },
          context: { tenantId: tenant },
        },
        output: { additionalContext: [] },
        requestId: `req-${id}`,
        createdAt,
      },
    ],
    executions: [
      {
        dedupKey: `${id}:0`,
        decisionId: id,
        tenant,
        hookRef: tenant ? `${tenant}/guard` : 'guard',
        hookName: 'guard',
        hookVersion: 1,
        handler: 'command',
        decision: 'deny',
        reason: 'no',
        durationMs: 1,
        error: 'boom',
        errorKind: 'error',
        position: 0,
        createdAt,
      },
    ],
    approvals: [],
  }
}

const backends: { name: string; open: () => Promise<Store | undefined> }[] = [
  {
    name: 'sqlite',
    open: () =>
      openStore(join(dir, `${Math.random().toString(36).slice(2)}.db`), { secrets: testBox, pollMs: 50 }),
  },
  {
    name: 'postgres',
    open: async () => (pgDb ? openStore(pgDb.url, { secrets: testBox, pollMs: 200 }) : undefined),
  },
]

describe.each(backends)('Store on $name', ({ open }) => {
  let store: Store
  let skip = false
  beforeAll(async () => {
    const opened = await open()
    if (!opened) skip = true
    else store = opened
  })
  afterAll(async () => {
    await store?.close()
  })

  it('creates a hook at version 1 and bumps the version on every update', async (ctx) => {
    if (skip) ctx.skip()
    const first = await store.putHook({
      name: 'v',
      event: 'PreToolUse',
      handler: { type: 'command', command: 'a' },
    })
    expect(first).toMatchObject({ id: 'v', version: 1, event: 'tool.pre', scope: 'global', source: 'user' })
    const second = await store.putHook({
      name: 'v',
      event: 'tool.pre',
      handler: { type: 'command', command: 'b' },
    })
    expect(second.version).toBe(2)
    expect(second.handler).toEqual({ type: 'command', command: 'b' })
    expect(second.createdAt).toBe(first.createdAt)
    const disabled = await store.setHookEnabled('v', false)
    expect(disabled).toMatchObject({ enabled: false, version: 3 })
  })

  it('refuses an invalid hook with a message naming the field', async (ctx) => {
    if (skip) ctx.skip()
    await expect(
      store.putHook({ name: 'bad', event: 'tool.prr', handler: { type: 'command' } }),
    ).rejects.toThrow(/event "tool.prr" is not known; did you mean "tool.pre"/)
    await expect(
      store.putHook({
        name: 'bad',
        event: 'tool.pre',
        handler: { type: 'command' },
        source: 'nope' as 'user',
      }),
    ).rejects.toBeInstanceOf(StoreError)
  })

  it('stores secret handler values sealed and opens them on read', async (ctx) => {
    if (skip) ctx.skip()
    const hook = await store.putHook({
      name: 'remote',
      tenant: 'sealed-t',
      event: 'tool.pre',
      handler: {
        type: 'http',
        url: 'http://127.0.0.1:1/x',
        headers: { Authorization: 'Bearer s3cret', 'X-Trace': 'plain-value' },
        secretHeaders: { 'X-Hook-Signature': 'sig-123', 'X-Other': ['sig-456'] },
        maxTokens: 5,
      },
    })
    expect(hook.handler).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:1/x',
      headers: { Authorization: 'Bearer s3cret', 'X-Trace': 'plain-value' },
      secretHeaders: { 'X-Hook-Signature': 'sig-123', 'X-Other': ['sig-456'] },
      maxTokens: 5,
    })
    const raw = await rawConfig(store, 'sealed-t/remote')
    expect(raw).not.toContain('s3cret')
    expect(raw).not.toContain('sig-123')
    expect(raw).not.toContain('sig-456')
    expect(raw).toContain('plain-value')
    expect(raw).toContain('$sealed')
  })

  it('writes decisions idempotently: a retried batch never doubles a row', async (ctx) => {
    if (skip) ctx.skip()
    const b = batch('idem-1', 'idem')
    await store.writeAudit(b)
    await store.writeAudit(b)
    expect(await store.countDecisions('idem')).toBe(1)
    const detail = await store.getDecision('idem-1')
    expect(detail?.executions).toHaveLength(1)
    expect(detail).toMatchObject({
      requestId: 'req-idem-1',
      decision: 'deny',
      policies: [{ id: 'p', version: '3' }],
      decidingHooks: [{ hook: 'guard', version: 1 }],
      input: { payload: { tool: { name: 'exec' } } },
    })
  })

  it('links executions to stored hooks and keeps them when the hook is deleted (ON DELETE SET NULL)', async (ctx) => {
    if (skip) ctx.skip()
    await store.putHook({
      name: 'guard',
      tenant: 'link',
      event: 'tool.pre',
      handler: { type: 'command', command: 'x' },
    })
    await store.writeAudit(batch('link-1', 'link'))
    expect((await store.getDecision('link-1'))?.executions[0]?.hookId).toBe('link/guard')
    expect(await store.deleteHook('link/guard')).toBe(true)
    const after = await store.getDecision('link-1')
    expect(after?.executions).toHaveLength(1)
    expect(after?.executions[0]?.hookId).toBeUndefined()
    expect(after?.executions[0]?.hookRef).toBe('link/guard')
  })

  it('filters decisions by tenant, time and decision, newest first', async (ctx) => {
    if (skip) ctx.skip()
    const t0 = Date.now() - 10_000
    await store.writeAudit(batch('f-1', 'filter', t0))
    await store.writeAudit(batch('f-2', 'filter', t0 + 1000))
    const allow = batch('f-3', 'filter', t0 + 2000)
    allow.decisions[0]!.decision = 'allow'
    await store.writeAudit(allow)
    expect((await store.listDecisions({ tenant: 'filter' })).map((d) => d.id)).toEqual(['f-3', 'f-2', 'f-1'])
    expect((await store.listDecisions({ tenant: 'filter', decision: 'deny' })).map((d) => d.id)).toEqual([
      'f-2',
      'f-1',
    ])
    expect((await store.listDecisions({ tenant: 'filter', since: t0 + 500 })).map((d) => d.id)).toEqual([
      'f-3',
      'f-2',
    ])
    expect(await store.listDecisions({ tenant: 'filter', limit: 1 })).toHaveLength(1)
    expect((await store.listDecisions({ tenant: 'filter', limit: 2, offset: 1 })).map((d) => d.id)).toEqual([
      'f-2',
      'f-1',
    ])
  })

  it('isolates tenants in every query', async (ctx) => {
    if (skip) ctx.skip()
    await store.putHook({
      name: 'mine',
      tenant: 'iso-a',
      event: 'tool.pre',
      handler: { type: 'command', command: 'a' },
    })
    await store.putHook({
      name: 'theirs',
      tenant: 'iso-b',
      event: 'tool.pre',
      handler: { type: 'command', command: 'b' },
    })
    await store.putHook({ name: 'iso-global', event: 'tool.pre', handler: { type: 'command', command: 'g' } })
    await store.writeAudit(batch('iso-a-1', 'iso-a'))
    await store.writeAudit(batch('iso-b-1', 'iso-b'))

    const seenByA = (await store.listHooks('iso-a')).map((h) => h.id)
    expect(seenByA).toContain('iso-a/mine')
    expect(seenByA).toContain('iso-global')
    expect(seenByA.some((id) => id.startsWith('iso-b/') || id.startsWith('sealed-t/'))).toBe(false)
    expect(await store.getHook('iso-b/theirs', 'iso-a')).toBeUndefined()
    expect(await store.getHook('iso-b/theirs', 'iso-b')).toBeDefined()
    expect(await store.deleteHook('iso-b/theirs', 'iso-a')).toBe(false)
    expect(await store.deleteHook('iso-global', 'iso-a')).toBe(false)
    expect(await store.setHookEnabled('iso-b/theirs', false, 'iso-a')).toBeUndefined()
    expect((await store.getHook('iso-b/theirs'))?.enabled).toBe(true)

    expect((await store.listDecisions({ tenant: 'iso-a' })).map((d) => d.id)).toEqual(['iso-a-1'])
    expect(await store.getDecision('iso-b-1', 'iso-a')).toBeUndefined()
    expect(await store.getDecision('iso-b-1', 'iso-b')).toBeDefined()
    expect(await store.countDecisions('iso-a')).toBe(1)

    await store.putApproval({
      id: 'ap-b',
      decisionId: 'iso-b-1',
      tenant: 'iso-b',
      status: 'pending',
      requestedAt: 1,
    })
    expect(await store.listApprovals({ tenant: 'iso-a' })).toEqual([])
    expect((await store.listApprovals({ tenant: 'iso-b' })).map((a) => a.id)).toEqual(['ap-b'])
  })

  it('updates an approval through its states', async (ctx) => {
    if (skip) ctx.skip()
    await store.putApproval({ id: 'ap-1', decisionId: 'd', tenant: 'ap', status: 'pending', requestedAt: 10 })
    await store.putApproval({
      id: 'ap-1',
      decisionId: 'd',
      tenant: 'ap',
      status: 'approved',
      decidedBy: 'alice',
      requestedAt: 10,
      decidedAt: 20,
    })
    expect(await store.listApprovals({ tenant: 'ap' })).toEqual([
      {
        id: 'ap-1',
        decisionId: 'd',
        tenant: 'ap',
        status: 'approved',
        decidedBy: 'alice',
        requestedAt: 10,
        decidedAt: 20,
      },
    ])
    expect(await store.listApprovals({ tenant: 'ap', status: 'pending' })).toEqual([])
  })

  it('adds to budgets atomically under concurrent writers', async (ctx) => {
    if (skip) ctx.skip()
    await Promise.all(Array.from({ length: 20 }, () => store.addBudget('bud', 'tokens', '2026-05', 5)))
    expect(await store.getBudget('bud', 'tokens', '2026-05')).toEqual({
      tenant: 'bud',
      kind: 'tokens',
      period: '2026-05',
      used: 100,
    })
    await store.setBudgetLimit('bud', 'tokens', '2026-05', 1000)
    expect((await store.getBudget('bud', 'tokens', '2026-05'))?.limit).toBe(1000)
    expect(await store.getBudget('bud', 'tokens', '2026-06')).toBeUndefined()
  })

  it('saves, loads and deletes breaker state', async (ctx) => {
    if (skip) ctx.skip()
    await store.saveBreaker({ hookId: 'brk', openedAt: 1234, failures: 5, lastError: 'x'.repeat(5000) })
    const rows = await store.loadBreakers()
    const row = rows.find((r) => r.hookId === 'brk')
    expect(row).toMatchObject({ openedAt: 1234, failures: 5 })
    expect(row?.lastError.length).toBe(1024)
    await store.deleteBreaker('brk')
    expect((await store.loadBreakers()).find((r) => r.hookId === 'brk')).toBeUndefined()
  })

  it('announces hook changes on the change feed', async (ctx) => {
    if (skip) ctx.skip()
    const seen: ChangeKind[] = []
    const stop = store.watch((kind) => seen.push(kind))
    await new Promise((r) => setTimeout(r, 300))
    await store.putHook({ name: 'feed', event: 'tool.pre', handler: { type: 'command', command: 'f' } })
    await expect.poll(() => seen.includes('hooks'), { timeout: 10_000 }).toBe(true)
    stop()
  })
})

async function rawConfig(store: Store, id: string): Promise<string> {
  const access = store as unknown as {
    db: import('kysely').Kysely<{ hooks: { id: string; config: string } }>
  }
  const row = await access.db
    .selectFrom('hooks')
    .select('config')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return row.config
}
