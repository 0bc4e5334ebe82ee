// The PostgreSQL audit writer and the rollup fold it runs per batch: a value PostgreSQL
// refuses in text (NUL) or a lone UTF-16 surrogate no longer fails the whole batch (it used
// to be retried, and fail, forever); it is stored as U+FFFD, the rest of the text exactly as
// sent, counted once in the rollups even when the batch is retried. The fold counts a row at
// the minute and sums hours and days from the minutes: across an hour and a day boundary it
// gives the counts a fold per grain gives.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storableJson } from '../../src/store/audit-write-postgres.js'
import {
  type AuditBatch,
  type DecisionRow,
  type ExecutionRow,
  openStore,
  rollupFolder,
  type Store,
} from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

function decision(id: string, createdAt: number, over: Partial<DecisionRow> = {}): DecisionRow {
  return {
    id,
    tenant: 'acme',
    agentId: 'agent',
    sessionId: 's',
    tool: 'Bash',
    event: 'tool.pre',
    decision: 'allow',
    reason: '',
    reasonCode: [],
    decidingHooks: [],
    policies: [],
    durationMs: 1,
    blocking: true,
    input: { cmd: 'ls' },
    output: {},
    createdAt,
    ...over,
  }
}

function execution(row: DecisionRow, over: Partial<ExecutionRow> = {}): ExecutionRow {
  return {
    dedupKey: `${row.id}:0`,
    decisionId: row.id,
    tenant: row.tenant,
    hookRef: 'guard',
    hookName: 'guard',
    hookVersion: 1,
    handler: 'script',
    decision: row.decision,
    durationMs: 3,
    position: 0,
    createdAt: row.createdAt,
    ...over,
  }
}

describe('the rollup fold', () => {
  it('sums hours and days from minutes as a fold per grain does, across hour and day boundaries', () => {
    const midnight = Math.floor(Date.now() / DAY) * DAY
    // 3 minutes before midnight to 3 minutes after, every 20 s; some denied, some from another tenant.
    const decisions = Array.from({ length: 18 }, (_, n) =>
      decision(`d${n}`, midnight - 3 * MINUTE + n * 20_000, {
        decision: n % 3 === 0 ? 'deny' : 'allow',
        tenant: n % 4 === 0 ? 'beta' : 'acme',
        sessionId: `s${n % 2}`,
      }),
    )
    const executions = decisions.map((d, n) => execution(d, { durationMs: n % 5 === 0 ? 700 : 3 }))
    const minuteFirst = rollupFolder()({ decisions, executions })
    const byGrain = (span: number) => rollupFolder([span])({ decisions, executions })
    const perGrain = [MINUTE, HOUR, DAY].map(byGrain)
    const sortRows = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort()
    expect(sortRows(minuteFirst.decisions)).toEqual(sortRows(perGrain.flatMap((g) => g.decisions)))
    expect(sortRows(minuteFirst.hooks)).toEqual(sortRows(perGrain.flatMap((g) => g.hooks)))
    // Two days, each with acme's and beta's totals: 9 decisions before midnight, 9 after.
    const days = minuteFirst.decisions.filter((r) => r[0] === DAY && r[1] === '')
    expect(days.map((r) => [r[2], r[3], r[5]])).toEqual([
      ['acme', midnight - DAY, 6],
      ['acme', midnight, 7],
      ['beta', midnight - DAY, 3],
      ['beta', midnight, 2],
    ])
  })
})

describe('the batch JSON', () => {
  it('replaces NUL and lone surrogates only, leaving escaped backslashes and pairs as they are', () => {
    const value = ['a\u0000b', 'x\ud800y', 'z\udc00', '\\u0000 typed', '\\\u0000', 'pair \ud83d\ude00']
    const text = storableJson(value)
    expect(JSON.parse(text)).toEqual([
      'a\ufffdb',
      'x\ufffdy',
      'z\ufffd',
      '\\u0000 typed',
      '\\\ufffd',
      'pair 😀',
    ])
    expect(storableJson({ plain: 'text' })).toBe('{"plain":"text"}')
  })
})

describe('the PostgreSQL writer', () => {
  let database: TestDatabase | undefined
  let store: Store | undefined
  beforeAll(async () => {
    database = await postgresForTests()
    if (database) store = await openStore(database.url)
  }, 120_000)
  afterAll(async () => {
    await store?.close()
    await database?.release()
  })

  it('stores a NUL or a lone surrogate as U+FFFD instead of failing the batch, and counts it once', async () => {
    if (!store) return
    const now = Date.now()
    const hostile = decision('hostile', now, {
      tool: 'rm\u0000-rf',
      agentId: 'agent\ud800',
      reason: 'said \u0000',
      input: { cmd: 'ls\u0000', note: 'lone \udfff', kept: 'pair \ud83d\ude00 and \\u0000 typed' },
    })
    const plain = decision('plain', now, { durationMs: Number.NaN })
    const batch: AuditBatch = {
      decisions: [hostile, plain],
      executions: [execution(hostile, { reason: 'x\u0000' }), execution(plain)],
      approvals: [],
    }
    await store.writeAudit(batch)
    await store.writeAudit(batch) // retried: nothing doubles
    const stored = await store.getDecision('hostile')
    expect(stored?.tool).toBe('rm\ufffd-rf')
    expect(stored?.agentId).toBe('agent\ufffd')
    expect(stored?.reason).toBe('said \ufffd')
    expect(stored?.input).toEqual({
      cmd: 'ls\ufffd',
      note: 'lone \ufffd',
      kept: 'pair \ud83d\ude00 and \\u0000 typed',
    })
    expect(stored?.executions.map((e) => e.reason)).toEqual(['x\ufffd'])
    expect((await store.getDecision('plain'))?.durationMs).toBe(0)
    expect(await store.countDecisions()).toBe(2)
    const view = await store.overview({ since: now - HOUR, until: now + MINUTE })
    expect(view.totals.total).toBe(2)
    expect(view.hooks.find((h) => h.hook === 'guard')?.runs).toBe(2)
  })
})
