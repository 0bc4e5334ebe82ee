// The overview's rollups across the hours and days they are compacted in: a batch stores
// its counts as one pending row; minute rows are written for the hours not yet over, hour
// rows are summed from them once the hour is over and day rows from hour rows once the day
// is (hours and days already compacted take late rows directly). With the clock moved over
// an hour and a day boundary, every window (minute, hour, hour + day rows) counts exactly
// the decisions recorded in it, a late row and a correction included; pruning keeps every
// minute row not yet compacted. Run on SQLite (`:memory:`, the calling thread) and on
// PostgreSQL (where the raw rows are checked too).

import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type AuditBatch, type DecisionRow, openStore, type Store } from '../../src/store/index.js'
import { FOLD_INTERVAL_MS, FOLD_PENDING_LIMIT } from '../../src/store/rollups-roll.js'
import { decisionRow, executionRow } from '../helpers/audit-rows.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
/** 2026-03-10 22:30 UTC: the run starts half an hour before the hour and day it crosses. */
const DAY0 = Date.UTC(2026, 2, 10)
const START = DAY0 + 22 * HOUR + 30 * MINUTE

let database: TestDatabase | undefined
let seq = 0

function batch(times: number[], tenant = 'acme'): AuditBatch {
  const decisions = times.map((createdAt, i) =>
    decisionRow(`d-${++seq}`, createdAt, {
      tenant,
      agentId: `agent-${i % 2}`,
      sessionId: `s-${i % 3}`,
      tool: i % 2 ? 'Bash' : 'Read',
      decision: i % 4 === 0 ? 'deny' : 'allow',
      input: {},
    }),
  )
  return { decisions, executions: decisions.map((d) => executionRow(d)), approvals: [] }
}

/** Every `step` ms from `from` to `to` (exclusive). */
function times(from: number, to: number, step: number): number[] {
  const out: number[] = []
  for (let t = from; t < to; t += step) out.push(t)
  return out
}

/** The recorded decisions, to count windows from. */
const recorded: { createdAt: number; decision: string }[] = []

async function write(store: Store, b: AuditBatch): Promise<void> {
  await store.writeAudit(b)
  for (const d of b.decisions) recorded.push({ createdAt: d.createdAt, decision: d.decision })
}

function counted(since: number, until: number) {
  const rows = recorded.filter((d) => d.createdAt >= since && d.createdAt < until)
  return { total: rows.length, deny: rows.filter((d) => d.decision === 'deny').length }
}

/** The overview of [since, until) agrees with the decisions recorded in it (windows are whole buckets). */
async function expectWindow(store: Store, since: number, until: number, grain: number): Promise<void> {
  const view = await store.overview({ since, until })
  expect(view.grainMs).toBe(grain)
  expect({ total: view.totals.total, deny: view.totals.deny }).toEqual(counted(since, until))
  expect(view.series.reduce((n, p) => n + p.total, 0)).toBe(counted(since, until).total)
  const guard = view.hooks.find((h) => h.hook === 'guard')
  expect(guard?.runs ?? 0).toBe(counted(since, until).total)
}

async function run(store: Store, raw?: pg.Client): Promise<void> {
  recorded.length = 0
  vi.setSystemTime(START + 20 * MINUTE)
  // 22:30–22:49, in the hour the store was made in: minute rows only, until it is over.
  await write(store, batch(times(START, START + 20 * MINUTE, 45_000)))
  vi.setSystemTime(DAY0 + 23 * HOUR + 40 * MINUTE)
  // 23:05–23:39: an hour not over yet: minute rows only, read by longer windows as well.
  await write(store, batch(times(DAY0 + 23 * HOUR + 5 * MINUTE, DAY0 + 23 * HOUR + 40 * MINUTE, 50_000)))
  await expectWindow(store, DAY0 + 23 * HOUR, DAY0 + 24 * HOUR, MINUTE)
  await expectWindow(store, DAY0 + 12 * HOUR, DAY0 + 24 * HOUR, HOUR)
  await expectWindow(store, DAY0 - 3 * DAY, DAY0 + 2 * DAY, HOUR)
  if (raw) {
    // 22:00 is over and compacted; 23:00 is not.
    const hourRows = async (hour: number) =>
      (
        await raw.query(
          `select coalesce(sum(total), 0)::int as n from rollup_decisions where span = ${HOUR} and dim = '' and bucket = ${hour}`,
        )
      ).rows[0].n
    expect(await hourRows(DAY0 + 22 * HOUR)).toBe(counted(DAY0 + 22 * HOUR, DAY0 + 23 * HOUR).total)
    expect(await hourRows(DAY0 + 23 * HOUR)).toBe(0)
  }

  // The next day, 01:20: the hours to 01:00 are compacted, and 2026-03-10 as a whole day.
  vi.setSystemTime(DAY0 + DAY + HOUR + 20 * MINUTE)
  await write(store, batch(times(DAY0 + DAY + 10 * MINUTE, DAY0 + DAY + 80 * MINUTE, 70_000), 'beta'))
  await expectWindow(store, DAY0 - 3 * DAY, DAY0 + 2 * DAY, HOUR)
  await expectWindow(store, DAY0 + 23 * HOUR, DAY0 + DAY + 2 * HOUR, MINUTE)
  await expectWindow(store, DAY0 + 12 * HOUR, DAY0 + DAY + 2 * HOUR, HOUR)
  if (raw) {
    const day = await raw.query(
      `select sum(total)::int as n from rollup_decisions where span = ${DAY} and dim = '' and bucket = ${DAY0}`,
    )
    expect(day.rows[0].n).toBe(counted(DAY0, DAY0 + DAY).total)
    const hour = await raw.query(
      `select sum(total)::int as n from rollup_decisions where span = ${HOUR} and dim = '' and bucket = ${DAY0 + 23 * HOUR}`,
    )
    expect(hour.rows[0].n).toBe(counted(DAY0 + 23 * HOUR, DAY0 + 24 * HOUR).total)
    const marks = await raw.query(
      `select key, value::text from rollup_state where key in ('hours', 'days') order by key`,
    )
    expect(marks.rows).toEqual([
      { key: 'days', value: String(DAY0 + DAY) },
      { key: 'hours', value: String(DAY0 + DAY + HOUR) },
    ])
  }

  // A late row in a compacted hour of a compacted day goes to its minute, hour and day rows.
  const late = batch([DAY0 + 22 * HOUR + 15 * MINUTE, DAY0 + 23 * HOUR + 50 * MINUTE])
  await write(store, late)
  await expectWindow(store, DAY0 - 3 * DAY, DAY0 + 2 * DAY, HOUR)
  await expectWindow(store, DAY0 + 22 * HOUR, DAY0 + 24 * HOUR, MINUTE)
  // A correction in a compacted day moves its count in every grain.
  const corrected = late.decisions[1] as DecisionRow
  expect(corrected.decision).toBe('allow')
  await store.writeAudit({
    decisions: [],
    executions: [],
    approvals: [],
    corrections: [{ id: corrected.id, decision: 'deny', reason: 'its record timed out', reasonCode: [] }],
  })
  const entry = recorded.find((d) => d.createdAt === corrected.createdAt && d.decision === 'allow')
  if (entry) entry.decision = 'deny'
  await expectWindow(store, DAY0 - 3 * DAY, DAY0 + 2 * DAY, HOUR)
  await expectWindow(store, DAY0 + 23 * HOUR, DAY0 + 24 * HOUR, MINUTE)

  // Three days on: minute rows past their retention are pruned once compacted; the days
  // and hours still count everything.
  vi.setSystemTime(DAY0 + 4 * DAY + 10 * MINUTE)
  await write(store, batch([DAY0 + 4 * DAY + 5 * MINUTE]))
  await expectWindow(store, DAY0 - 3 * DAY, DAY0 + 5 * DAY, HOUR)
  await expectWindow(store, DAY0 + 20 * HOUR, DAY0 + 30 * HOUR, HOUR)
  if (raw) {
    const old = await raw.query(
      `select count(*)::int as n from rollup_decisions where span = ${MINUTE} and bucket < ${DAY0 + 2 * DAY}`,
    )
    expect(old.rows[0].n).toBe(0)
    const pending = await raw.query('select count(*)::int as n from rollup_pending')
    expect(pending.rows[0].n).toBe(0)
  }
}

beforeAll(async () => {
  database = await postgresForTests()
}, 120_000)
afterAll(async () => {
  await database?.release()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('rollup compaction', () => {
  it('counts every window across an hour and a day boundary on SQLite', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(START)
    const store = await openStore(':memory:')
    try {
      await run(store)
    } finally {
      await store.close()
    }
  })

  it('counts every window across an hour and a day boundary on PostgreSQL', async (ctx) => {
    if (!database) return ctx.skip()
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(START)
    const store = await openStore(database.url)
    const raw = new pg.Client({ connectionString: database.url })
    await raw.connect()
    try {
      await run(store, raw)
    } finally {
      await raw.end()
      await store.close()
    }
  })

  it('folds on PostgreSQL once FOLD_PENDING_LIMIT batches are pending, before the fold interval', async (ctx) => {
    if (!database) return ctx.skip()
    const store = await openStore(database.url)
    const raw = new pg.Client({ connectionString: database.url })
    await raw.connect()
    try {
      const now = Date.now()
      for (let b = 0; b < FOLD_PENDING_LIMIT; b++) await store.writeAudit(batch([now - b]))
      const pending = async () =>
        (await raw.query('select count(*)::int as n from rollup_pending')).rows[0].n as number
      const started = Date.now()
      while ((await pending()) !== 0 && Date.now() - started < FOLD_INTERVAL_MS / 2) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(await pending()).toBe(0)
    } finally {
      await raw.end()
      await store.close()
    }
  })
})
