// The management plane's store methods, on SQLite and on a real PostgreSQL: approvals
// (rich rows kept by the audit upsert, one winner among concurrent resolutions, expiry,
// tenant isolation, cursor paging), a hook's execution history, tokens, the change log,
// hook overrides, and the change feed reaching a second instance. Processes racing on one
// SQLite file and the upgrade of an older database: management-upgrade.test.ts.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ApprovalResolution,
  type ApprovalRow,
  type AuditBatch,
  type ChangeKind,
  openStore,
  type Store,
  StoreError,
} from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

let pgDb: TestDatabase | undefined
const dir = mkdtempSync(join(tmpdir(), 'warden-management-'))

beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

/** A decision with `count` executions of hook `hookRef`. */
function decision(id: string, tenant: string, hookRef: string, createdAt: number, count = 1): AuditBatch {
  return {
    decisions: [
      {
        id,
        tenant,
        event: 'tool.pre',
        decision: 'allow',
        reason: '',
        reasonCode: [],
        decidingHooks: [],
        policies: [],
        durationMs: 1,
        blocking: true,
        input: { event: 'tool.pre', payload: {}, context: {} },
        output: {},
        createdAt,
      },
    ],
    executions: Array.from({ length: count }, (_, position) => ({
      dedupKey: `${id}:${position}`,
      decisionId: id,
      tenant,
      hookRef,
      hookName: hookRef.split('/').pop() ?? hookRef,
      hookVersion: 1,
      handler: 'command',
      decision: position % 2 === 0 ? 'allow' : 'deny',
      durationMs: 1,
      position,
      createdAt,
    })),
    approvals: [],
  }
}

function pending(
  id: string,
  tenant: string,
  requestedAt: number,
  extra: Partial<ApprovalRow> = {},
): ApprovalRow {
  return { id, decisionId: id, tenant, status: 'pending', requestedAt, ...extra }
}

async function drain<T>(page: (cursor?: string) => Promise<{ rows: T[]; next?: string }>): Promise<T[][]> {
  const pages: T[][] = []
  let cursor: string | undefined
  for (let i = 0; i < 100; i++) {
    const { rows, next } = await page(cursor)
    pages.push(rows)
    if (next === undefined) return pages
    cursor = next
  }
  throw new Error('paging did not end')
}

const backends: { name: string; location: () => string | undefined }[] = [
  { name: 'sqlite', location: () => join(dir, 'management.db') },
  { name: 'postgres', location: () => pgDb?.url },
]

/** The i-th of several competing resolutions: edits, approvals and rejections. */
function resolution(i: number): ApprovalResolution {
  if (i % 3 === 0) {
    return {
      status: 'approved',
      resolution: 'edit',
      editedPayload: { cmd: `ls ${i}` },
      decidedBy: `u${i}`,
      decidedAt: 5000 + i,
    }
  }
  if (i % 3 === 1)
    return { status: 'approved', resolution: 'approve', decidedBy: `u${i}`, decidedAt: 5000 + i }
  return {
    status: 'rejected',
    resolution: 'reject',
    decidedBy: `u${i}`,
    reason: `no ${i}`,
    decidedAt: 5000 + i,
  }
}

describe.each(backends)('management store on $name', ({ name, location }) => {
  let a: Store
  let b: Store
  let skip = false
  beforeAll(async () => {
    const where = location()
    if (!where) {
      skip = true
      return
    }
    a = await openStore(where, { pollMs: 50 })
    b = await openStore(where, { pollMs: 50 })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  it('creates, lists and revokes tokens (no tenant = every tenant)', async (ctx) => {
    if (skip) ctx.skip()
    await a.createToken({ id: 'tk-2', name: 'ci', tenant: 'acme', role: 'editor', hash: 'h2', createdAt: 20 })
    await a.createToken({ id: 'tk-1', name: 'root', role: 'admin', hash: 'h1', createdAt: 10 })
    expect(await b.getToken('tk-1')).toEqual({
      id: 'tk-1',
      name: 'root',
      role: 'admin',
      hash: 'h1',
      createdAt: 10,
    })
    expect((await a.listTokens()).map((t) => t.id)).toEqual(['tk-1', 'tk-2'])
    expect(await a.revokeToken('tk-2', 30)).toBe(true)
    expect(await a.revokeToken('tk-2', 40)).toBe(false)
    expect(await a.revokeToken('tk-none', 40)).toBe(false)
    expect(await a.getToken('tk-2')).toEqual({
      id: 'tk-2',
      name: 'ci',
      tenant: 'acme',
      role: 'editor',
      hash: 'h2',
      createdAt: 20,
      revokedAt: 30,
    })
    expect(await a.getToken('tk-none')).toBeUndefined()
  })

  it('records changes and pages through them newest first without gaps or duplicates', async (ctx) => {
    if (skip) ctx.skip()
    const ats = [100, 200, 200, 200, 300, 400, 400, 500]
    for (const [i, at] of ats.entries()) {
      await a.recordChange({
        id: `ch-${i}`,
        at,
        actor: 'tk-1',
        actorName: 'root',
        tenant: i % 2 === 0 ? 'acme' : '',
        action: 'hooks.update',
        target: i < 3 ? 'guard' : 'other',
        ...(i === 0 ? {} : { before: { enabled: true, n: i } }),
        ...(i === 7 ? {} : { after: { enabled: false } }),
      })
    }
    const all = await a.listChanges()
    expect(all.map((c) => c.id)).toEqual(['ch-7', 'ch-6', 'ch-5', 'ch-4', 'ch-3', 'ch-2', 'ch-1', 'ch-0'])
    expect(all[0]).toEqual({
      id: 'ch-7',
      at: 500,
      actor: 'tk-1',
      actorName: 'root',
      tenant: '',
      action: 'hooks.update',
      target: 'other',
      before: { enabled: true, n: 7 },
    })
    expect(all[7]?.before).toBeUndefined()
    const pages = await drain(async (cursor) => {
      const rows = await a.listChanges({ limit: 3, ...(cursor ? { cursor } : {}) })
      return { rows, ...(rows.length === 3 ? { next: rows[2]?.id } : {}) }
    })
    expect(pages.map((p) => p.length)).toEqual([3, 3, 2])
    expect(pages.flat().map((c) => c.id)).toEqual(all.map((c) => c.id))
    expect((await a.listChanges({ tenant: 'acme' })).map((c) => c.id)).toEqual([
      'ch-6',
      'ch-4',
      'ch-2',
      'ch-0',
    ])
    expect((await a.listChanges({ target: 'guard' })).map((c) => c.id)).toEqual(['ch-2', 'ch-1', 'ch-0'])
    expect((await a.listChanges({ tenant: 'acme', cursor: 'ch-4' })).map((c) => c.id)).toEqual([
      'ch-2',
      'ch-0',
    ])
    await expect(a.listChanges({ tenant: 'acme', cursor: 'ch-5' })).rejects.toMatchObject({
      code: 'invalid-query',
    })
  })

  it('sets and removes hook overrides', async (ctx) => {
    if (skip) ctx.skip()
    await a.setHookOverride('from-file', false)
    await a.setHookOverride('from-config', true)
    await a.setHookOverride('from-file', true)
    expect(await b.listHookOverrides()).toEqual(
      new Map([
        ['from-file', true],
        ['from-config', true],
      ]),
    )
    await a.setHookOverride('from-config', undefined)
    await a.setHookOverride('never-set', undefined)
    expect(await a.listHookOverrides()).toEqual(new Map([['from-file', true]]))
  })

  it('keeps the held request when the audit trail upserts the final state', async (ctx) => {
    if (skip) ctx.skip()
    const rich = pending('ap-rich', 'acme', 1000, {
      event: 'tool.pre',
      input: { event: 'tool.pre', payload: { tool: { name: 'exec' } }, context: { tenantId: 'acme' } },
      asks: [{ hook: 'confirm', reason: 'dangerous' }],
      deadline: 61_000,
      instance: 'inst-1',
    })
    await a.putApproval(rich)
    expect(await b.getApproval('ap-rich')).toEqual(rich)
    await a.writeAudit({
      decisions: [],
      executions: [],
      approvals: [
        {
          id: 'ap-rich',
          decisionId: 'ap-rich',
          tenant: 'acme',
          status: 'approved',
          decidedBy: 'alice',
          reason: 'fine',
          requestedAt: 1000,
          decidedAt: 2000,
        },
      ],
    })
    expect(await a.getApproval('ap-rich')).toEqual({
      ...rich,
      status: 'approved',
      decidedBy: 'alice',
      reason: 'fine',
      decidedAt: 2000,
    })
    // A resolution once made is final: a later write of the same approval leaves it.
    await a.putApproval({ ...rich, status: 'rejected', deadline: 99_000, decidedAt: 3000 })
    const after = await a.getApproval('ap-rich')
    expect(after).toMatchObject({ status: 'approved', decidedAt: 2000, decidedBy: 'alice', asks: rich.asks })
    expect(after?.deadline).toBe(rich.deadline)
  })

  it('resolves an approval once: of concurrent resolutions exactly one wins', async (ctx) => {
    if (skip) ctx.skip()
    await a.putApproval(pending('ap-race', 'acme', 2000, { deadline: 10_000, instance: 'inst-1' }))
    // SQLite: one instance (its calls share one connection); a second instance in this
    // process would block on the file lock inside the event loop, so processes are raced
    // in the test below. PostgreSQL: two instances, each with its own pool.
    const racers = name === 'sqlite' ? [a] : [a, b]
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (racers[i % racers.length] as Store).resolveApproval(
          'ap-race',
          resolution(i),
          i % 4 === 0 ? 'acme' : undefined,
        ),
      ),
    )
    const winners = results.filter((r) => r?.resolved)
    expect(winners).toHaveLength(1)
    const winner = winners[0]!.row
    expect(winner.status).not.toBe('pending')
    expect(winner).toMatchObject({ deadline: 10_000, instance: 'inst-1' })
    for (const r of results) expect(r?.row).toEqual(winner)
    expect(await b.getApproval('ap-race')).toEqual(winner)
    const again = await a.resolveApproval('ap-race', { status: 'approved', decidedAt: 9999 })
    expect(again).toEqual({ row: winner, resolved: false })
    expect(await a.resolveApproval('ap-none', { status: 'approved', decidedAt: 1 })).toBeUndefined()
  })

  it('never lets a tenant see or resolve another tenant’s approval', async (ctx) => {
    if (skip) ctx.skip()
    await a.putApproval(pending('ap-globex', 'globex', 3000, { input: { secret: 'x' } }))
    expect(await a.getApproval('ap-globex', 'acme')).toBeUndefined()
    expect(await a.resolveApproval('ap-globex', { status: 'approved', decidedAt: 1 }, 'acme')).toBeUndefined()
    expect((await a.getApproval('ap-globex'))?.status).toBe('pending')
    expect((await a.listApprovals({ tenant: 'acme' })).some((r) => r.id === 'ap-globex')).toBe(false)
    await expect(a.listApprovals({ tenant: 'acme', cursor: 'ap-globex' })).rejects.toBeInstanceOf(StoreError)
    const mine = await a.resolveApproval(
      'ap-globex',
      { status: 'approved', resolution: 'approve', decidedBy: 'bob', decidedAt: 4000 },
      'globex',
    )
    expect(mine?.resolved).toBe(true)
    expect(mine?.row).toMatchObject({
      status: 'approved',
      resolution: 'approve',
      decidedBy: 'bob',
      decidedAt: 4000,
    })
  })

  it('expires pending approvals by deadline and by instance, returning them', async (ctx) => {
    if (skip) ctx.skip()
    await a.putApproval(pending('ex-1', 'exp', 10, { deadline: 100, instance: 'i1' }))
    await a.putApproval(pending('ex-2', 'exp', 20, { deadline: 200, instance: 'i2' }))
    await a.putApproval(pending('ex-3', 'exp', 30, { deadline: 300, instance: 'i1' }))
    await a.putApproval(pending('ex-4', 'exp', 40, { deadline: 400, instance: 'i2' }))
    await a.putApproval({
      ...pending('ex-5', 'exp', 50, { deadline: 50 }),
      status: 'approved',
      decidedAt: 55,
    })
    await expect(a.expireApprovals({ reason: 'x' })).rejects.toMatchObject({ code: 'invalid-query' })
    const before = Date.now()
    const overdue = await a.expireApprovals({ deadlineBefore: 250, reason: 'timed out' })
    expect(overdue.map((r) => r.id)).toEqual(['ex-2', 'ex-1'])
    expect(overdue[0]).toMatchObject({ status: 'expired', reason: 'timed out', instance: 'i2' })
    expect(overdue[0]?.decidedAt).toBeGreaterThanOrEqual(before)
    expect(await a.expireApprovals({ deadlineBefore: 1000, instance: 'i1', reason: 'gone' })).toMatchObject([
      { id: 'ex-3', status: 'expired', reason: 'gone' },
    ])
    expect((await a.expireApprovals({ instance: 'i2', reason: 'stopped' })).map((r) => r.id)).toEqual([
      'ex-4',
    ])
    expect(await a.expireApprovals({ instance: 'i2', reason: 'stopped' })).toEqual([])
    expect((await a.getApproval('ex-5'))?.status).toBe('approved')
    expect(await a.listApprovals({ tenant: 'exp', status: 'pending' })).toEqual([])
  })

  it('pages approvals newest first by cursor without gaps or duplicates', async (ctx) => {
    if (skip) ctx.skip()
    const times = [5, 7, 7, 7, 9, 9, 11, 13, 13, 15, 17]
    for (const [i, t] of times.entries()) {
      await a.putApproval(pending(`pg-${String(i).padStart(2, '0')}`, 'paged', t))
    }
    const all = await a.listApprovals({ tenant: 'paged' })
    expect(all).toHaveLength(times.length)
    const order = all.map((r) => [r.requestedAt, r.id] as const)
    const sorted = [...order].sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? 1 : -1))
    expect(order).toEqual(sorted)
    const pages = await drain(async (cursor) => {
      const rows = await a.listApprovals({ tenant: 'paged', limit: 4, ...(cursor ? { cursor } : {}) })
      return { rows, ...(rows.length === 4 ? { next: rows[3]?.id } : {}) }
    })
    expect(pages.map((p) => p.length)).toEqual([4, 4, 3])
    expect(pages.flat().map((r) => r.id)).toEqual(all.map((r) => r.id))
    expect(await a.listApprovals({ tenant: 'paged', limit: 0 })).toHaveLength(1)
    await expect(a.listApprovals({ cursor: 'pg-none' })).rejects.toMatchObject({ code: 'invalid-query' })
  })

  it('pages a hook’s executions newest first, filtered, with a checked cursor', async (ctx) => {
    if (skip) ctx.skip()
    for (let i = 0; i < 6; i++) {
      await a.writeAudit(decision(`ex-d${i}`, 'hist', 'hist/guard', 1000 + i * 100, 2))
    }
    await a.writeAudit(decision('ex-other-tenant', 'else', 'hist/guard', 1050, 1))
    await a.writeAudit(decision('ex-other-hook', 'hist', 'hist/other', 1050, 3))
    const full = await a.listExecutions({ hookRef: 'hist/guard', limit: 1000 })
    expect(full.next).toBeUndefined()
    expect(full.rows).toHaveLength(13)
    expect(full.rows[0]).toMatchObject({ decisionId: 'ex-other-tenant', tenant: 'else' })
    expect(full.rows[1]).toMatchObject({
      decisionId: 'ex-d5',
      position: 1,
      hookRef: 'hist/guard',
      decision: 'deny',
    })
    const pages = await drain((cursor) =>
      a.listExecutions({ hookRef: 'hist/guard', tenant: 'hist', limit: 5, ...(cursor ? { cursor } : {}) }),
    )
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2])
    const keys = pages.flat().map((r) => r.dedupKey)
    expect(new Set(keys).size).toBe(12)
    expect(keys).toEqual(full.rows.filter((r) => r.tenant === 'hist').map((r) => r.dedupKey))
    const exact = await drain((cursor) =>
      a.listExecutions({ hookRef: 'hist/guard', tenant: 'hist', limit: 6, ...(cursor ? { cursor } : {}) }),
    )
    expect(exact.map((p) => p.length)).toEqual([6, 6, 0])
    const denied = await a.listExecutions({ hookRef: 'hist/guard', tenant: 'hist', decision: 'deny' })
    expect(denied.rows.map((r) => r.decisionId)).toEqual([
      'ex-d5',
      'ex-d4',
      'ex-d3',
      'ex-d2',
      'ex-d1',
      'ex-d0',
    ])
    const window = await a.listExecutions({ hookRef: 'hist/guard', tenant: 'hist', since: 1200, until: 1400 })
    expect(new Set(window.rows.map((r) => r.decisionId))).toEqual(new Set(['ex-d2', 'ex-d3']))
    expect((await a.listExecutions({ hookRef: 'hist/none' })).rows).toEqual([])
    for (const cursor of ['abc', '0', '-1', '1.5', '', '99999999999999999999']) {
      const error = await a.listExecutions({ hookRef: 'hist/guard', cursor }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StoreError)
      expect(error).toMatchObject({ code: 'invalid-query', message: expect.stringContaining(`"${cursor}"`) })
    }
  })

  it('announces tokens, approvals and hook overrides to a second instance', async (ctx) => {
    if (skip) ctx.skip()
    const seen: ChangeKind[] = []
    const stop = b.watch((kind) => seen.push(kind))
    await new Promise((r) => setTimeout(r, 200))
    await a.createToken({ id: 'tk-feed', name: 'feed', role: 'viewer', hash: 'h', createdAt: 1 })
    await expect.poll(() => seen.includes('tokens'), { timeout: 5000, interval: 20 }).toBe(true)
    seen.length = 0
    await a.putApproval(pending('ap-feed', 'feed', 1))
    await expect.poll(() => seen.includes('approvals'), { timeout: 5000, interval: 20 }).toBe(true)
    seen.length = 0
    await a.resolveApproval('ap-feed', { status: 'approved', decidedAt: 2 })
    await expect.poll(() => seen.includes('approvals'), { timeout: 5000, interval: 20 }).toBe(true)
    seen.length = 0
    await a.revokeToken('tk-feed', 3)
    await expect.poll(() => seen.includes('tokens'), { timeout: 5000, interval: 20 }).toBe(true)
    seen.length = 0
    await a.setHookOverride('feed-hook', false)
    await expect.poll(() => seen.includes('hooks'), { timeout: 5000, interval: 20 }).toBe(true)
    stop()
  })
})
