// The overview's rollups, on the three audit write paths (SQLite on the calling thread for
// `:memory:`, SQLite on the writer thread for a file, PostgreSQL): after a scripted run of
// mixed decisions the overview's counts equal those computed from the rows themselves, per
// tenant and in total, on minute, hour and day rows; a retried batch adds nothing; a
// decision corrected to deny after it was written counts as denied; the
// writer's thread folds what it wrote (the pending counts of each batch); the migration's
// backfill gives the same figures;
// percentiles come from the histogram.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AuditBatch,
  type DecisionRow,
  type ExecutionRow,
  histogramQuantile,
  type Overview,
  openStore,
  type Store,
} from '../../src/store/index.js'

import { rollupsMigration } from '../../src/store/rollups-migration.js'
import { FOLD_INTERVAL_MS, FOLD_PENDING_LIMIT } from '../../src/store/rollups-roll.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-rollups-'))
let database: TestDatabase | undefined
const NOW = Date.now()
const START = NOW - 50 * 60_000

const OUTCOMES = ['allow', 'allow', 'allow', 'deny', 'modify', 'ask'] as const

/** A deterministic mixed run: two tenants, tools, agents, sessions and four hooks. */
function scriptedRun(): AuditBatch[] {
  const batches: AuditBatch[] = []
  let n = 0
  for (let b = 0; b < 6; b++) {
    const batch: AuditBatch = { decisions: [], executions: [], approvals: [] }
    for (let i = 0; i < 40; i++, n++) {
      const at = START + n * 12_000
      const decision = OUTCOMES[n % OUTCOMES.length] as string
      const row: DecisionRow = {
        id: `d-${n}`,
        tenant: n % 3 === 0 ? 'beta' : 'acme',
        agentId: `agent-${n % 4}`,
        sessionId: `s-${n % 7}`,
        tool: ['Bash', 'Read', 'Write'][n % 3] as string,
        event: 'tool.pre',
        decision,
        reason: '',
        reasonCode: [],
        decidingHooks: [],
        policies: [],
        durationMs: 1,
        blocking: true,
        input: {},
        output: {},
        createdAt: at,
      }
      batch.decisions.push(row)
      const exec = (position: number, over: Partial<ExecutionRow>): ExecutionRow => ({
        dedupKey: `${row.id}:${position}`,
        decisionId: row.id,
        tenant: row.tenant,
        hookRef: 'guard',
        hookName: 'guard',
        hookVersion: 1,
        handler: 'script',
        decision,
        durationMs: 3,
        position,
        createdAt: at,
        ...over,
      })
      batch.executions.push(exec(0, { durationMs: n % 10 === 0 ? 700 : 3 }))
      batch.executions.push(
        exec(1, { hookRef: 'spy', hookName: 'spy', mode: 'shadow', decision: n % 2 ? 'deny' : 'allow' }),
      )
      if (n % 5 === 0)
        batch.executions.push(
          exec(2, {
            hookRef: 'slow',
            hookName: 'slow',
            errorKind: 'timeout',
            error: 'timed out',
            decision: 'deny',
          }),
        )
      if (n % 4 === 0)
        batch.executions.push(
          exec(3, { hookRef: 'skip', hookName: 'skip', decision: 'skipped', skipped: 'matcher' }),
        )
    }
    batches.push(batch)
  }
  return batches
}

const RUN = scriptedRun()
const EXECUTIONS = RUN.flatMap((b) => b.executions)
/** The first decision (allowed) is corrected to deny after it was written. */
const CORRECTION: AuditBatch = {
  decisions: [],
  executions: [],
  approvals: [],
  corrections: [{ id: 'd-0', decision: 'deny', reason: 'its record timed out', reasonCode: [] }],
}
const DECISIONS = RUN.flatMap((b) => b.decisions).map((d) =>
  d.id === 'd-0' ? { ...d, decision: 'deny' } : d,
)

/** What the overview should say, computed from the rows. */
function expected(tenant?: string) {
  const rows = DECISIONS.filter((d) => tenant === undefined || d.tenant === tenant)
  const execs = EXECUTIONS.filter((e) => tenant === undefined || e.tenant === tenant)
  const count = (kind: string) => rows.filter((d) => d.decision === kind).length
  const by = (key: (d: DecisionRow) => string | undefined, denyOnly: boolean) => {
    const m = new Map<string, number>()
    for (const d of rows)
      if (d.decision === 'deny' || (!denyOnly && d.decision === 'ask'))
        m.set(key(d) as string, (m.get(key(d) as string) ?? 0) + 1)
    return Object.fromEntries(m)
  }
  return {
    totals: {
      total: rows.length,
      allow: count('allow'),
      deny: count('deny'),
      modify: count('modify'),
      ask: count('ask'),
      shadowDeny: execs.filter((e) => e.mode === 'shadow' && e.decision === 'deny').length,
    },
    tools: by((d) => d.tool, false),
    agents: by((d) => d.agentId, true),
    sessions: by((d) => d.sessionId, true),
    guardRuns: execs.filter((e) => e.hookRef === 'guard').length,
    guardDeny: execs.filter((e) => e.hookRef === 'guard' && e.decision === 'deny').length,
    slowTimeouts: execs.filter((e) => e.hookRef === 'slow').length,
  }
}

function check(view: Overview, tenant?: string): void {
  const want = expected(tenant)
  expect(view.totals).toEqual(want.totals)
  expect(view.series.reduce((a, p) => a + p.deny, 0)).toBe(want.totals.deny)
  const map = (items: { name: string; deny: number; ask: number }[], withAsk: boolean) =>
    Object.fromEntries(items.map((i) => [i.name, i.deny + (withAsk ? i.ask : 0)]))
  expect(map(view.tools, true)).toEqual(want.tools)
  expect(map(view.agents, false)).toEqual(want.agents)
  expect(map(view.sessions, false)).toEqual(want.sessions)
  const hook = (name: string) => view.hooks.find((h) => h.hook === name)
  expect(hook('guard')?.runs).toBe(want.guardRuns)
  expect(hook('guard')?.deny).toBe(want.guardDeny)
  expect(hook('slow')?.timeouts).toBe(want.slowTimeouts)
  expect(hook('spy')?.deny).toBe(0)
  expect(hook('spy')?.shadowDeny).toBe(want.totals.shadowDeny)
  expect(hook('skip')).toBeUndefined()
  // 10% of guard's runs took 700 ms, the rest 3 ms: p50 within (2, 5], p99 within (500, 1000].
  expect(hook('guard')?.p50Ms).toBeGreaterThan(2)
  expect(hook('guard')?.p50Ms).toBeLessThanOrEqual(5)
  expect(hook('guard')?.p99Ms).toBeGreaterThan(500)
  expect(hook('guard')?.p99Ms).toBeLessThanOrEqual(1000)
}

async function writeRun(store: Store): Promise<void> {
  for (const batch of RUN) await store.writeAudit(batch)
  // A retried batch (its rows already written) adds nothing.
  await store.writeAudit(RUN[2] as AuditBatch)
  await store.writeAudit(CORRECTION)
}

async function checkStore(store: Store): Promise<void> {
  const hour = await store.overview({ since: NOW - 3_600_000, until: NOW + 60_000 })
  expect(hour.grainMs).toBe(60_000)
  check(hour)
  check(await store.overview({ since: NOW - 3_600_000, until: NOW + 60_000, tenant: 'acme' }), 'acme')
  check(await store.overview({ since: NOW - 3_600_000, until: NOW + 60_000, tenant: 'beta' }), 'beta')
  const week = await store.overview({ since: NOW - 7 * 86_400_000, until: NOW })
  expect(week.grainMs).toBe(3_600_000)
  check(week)
  // Whole days in the window are read from day rows.
  check(await store.overview({ since: NOW - 30 * 86_400_000, until: NOW + 2 * 86_400_000 }))
  const none = await store.overview({ since: NOW - 3_600_000, until: NOW, tenant: 'nobody' })
  expect(none.totals.total).toBe(0)
  expect(none.hooks).toEqual([])
}

beforeAll(async () => {
  database = await postgresForTests()
}, 120_000)
afterAll(async () => {
  await database?.release()
  rmSync(dir, { recursive: true, force: true })
})

describe('overview rollups', () => {
  it('count a mixed run on SQLite in memory (the calling thread)', async () => {
    const store = await openStore(':memory:')
    await writeRun(store)
    await checkStore(store)
    await expect(store.overview({ since: 10, until: 5 })).rejects.toThrow(/since < until/)
    await store.close()
  })

  it('count a mixed run on a SQLite file (the writer thread), and the backfill agrees', async () => {
    const file = join(dir, 'rollups.db')
    const store = await openStore(file)
    await writeRun(store)
    // Closing the writer's thread folds what it wrote (no overview asked yet).
    await store.close()
    const sqlite = new BetterSqlite3(file)
    // Every batch's pending counts were folded and taken away.
    expect(sqlite.prepare('select count(*) from rollup_pending').pluck().get()).toBe(0)
    const folded = sqlite
      .prepare("select sum(total) from rollup_decisions where span = 60000 and dim = ''")
      .pluck()
    expect(folded.get()).toBe(DECISIONS.length)
    const first = await openStore(file)
    await checkStore(first)
    await first.close()
    sqlite.exec('drop table rollup_decisions; drop table rollup_hooks; drop table rollup_state')
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) })
    await rollupsMigration('sqlite').up(db)
    await db.destroy()
    const reopened = await openStore(file)
    await checkStore(reopened)
    await reopened.close()
  })

  it('fold on the writer thread once FOLD_PENDING_LIMIT batches are pending, without waiting', async () => {
    const file = join(dir, 'limit.db')
    const store = await openStore(file)
    const one = RUN[0] as AuditBatch
    for (let b = 0; b < FOLD_PENDING_LIMIT; b++) {
      await store.writeAudit({
        ...one,
        decisions: one.decisions.slice(0, 2).map((d) => ({ ...d, id: `${d.id}-b${b}` })),
        executions: [],
      })
    }
    const sqlite = new BetterSqlite3(file, { readonly: true })
    try {
      const pending = sqlite.prepare('select count(*) from rollup_pending').pluck()
      const counted = sqlite
        .prepare("select coalesce(sum(total), 0) from rollup_decisions where span = 60000 and dim = ''")
        .pluck()
      // The fold follows the last reply: well before the fold interval, the limit folded them.
      const started = Date.now()
      while (pending.get() !== 0 && Date.now() - started < FOLD_INTERVAL_MS / 2) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(pending.get()).toBe(0)
      expect(counted.get()).toBe(2 * FOLD_PENDING_LIMIT)
    } finally {
      sqlite.close()
      await store.close()
    }
  })

  it('an upgrade to pending counts folds what a store of 0015 left past its marks', async () => {
    const file = join(dir, 'upgrade.db')
    const store = await openStore(file)
    await writeRun(store)
    await store.close()
    // As a store at migration 0015 leaves them: rows past the fold's marks, not yet counted.
    const sqlite = new BetterSqlite3(file)
    sqlite.exec(`delete from rollup_decisions; delete from rollup_hooks; drop table rollup_pending;
      delete from rollup_state; insert into rollup_state (key, value) values ('decisions', 0), ('executions', 0);
      delete from warden_migrations where name = '0016_rollup_pending'`)
    sqlite.close()
    const upgraded = await openStore(file)
    await checkStore(upgraded)
    await upgraded.close()
  })

  it('count a mixed run on PostgreSQL', async (ctx) => {
    if (!database) return ctx.skip()
    const store = await openStore(database.url)
    await writeRun(store)
    await checkStore(store)
    await store.close()
  })
})

describe('histogram percentiles', () => {
  it('interpolate within the bucket that holds the rank', () => {
    expect(histogramQuantile([], 0.5)).toBe(0)
    // 10 runs in (0, 1], 10 in (1, 2]: the median is at the top of the first bucket.
    expect(histogramQuantile([10, 10], 0.5)).toBe(1)
    expect(histogramQuantile([0, 0, 0, 4], 0.5)).toBe(7.5)
    const open = new Array(14).fill(0)
    open[13] = 3
    expect(histogramQuantile(open, 0.99)).toBe(10_000)
  })
})
