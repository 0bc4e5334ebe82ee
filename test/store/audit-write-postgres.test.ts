// The PostgreSQL audit writer and the rollup fold it runs per batch: columns written as
// array literals by JSON.stringify read back exactly (quotes, backslashes, JSON text); a
// column JSON would escape otherwise goes through the driver; a NUL (which PostgreSQL
// refuses in text) no longer fails the whole batch (it used to be retried, and fail,
// forever): it is stored as U+FFFD, and the row counted once even when the batch is retried. The fold counts a row at
// the minute and sums hours and days from the minutes: across an hour and a day boundary it
// gives the counts a fold per grain gives.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrayLiteral } from '../../src/store/audit-write-postgres.js'
import { type AuditBatch, openStore, rollupFolder, type Store } from '../../src/store/index.js'
import { decisionRow as decision, executionRow as execution } from '../helpers/audit-rows.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

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
    const byTenantAndDay = days
      .map((r) => [r[2], r[3], r[5]])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    expect(byTenantAndDay).toEqual([
      ['acme', midnight - DAY, 6],
      ['acme', midnight, 7],
      ['beta', midnight - DAY, 3],
      ['beta', midnight, 2],
    ])
  })
})

describe('the array literals', () => {
  it('are JSON where PostgreSQL reads JSON the same, and the values otherwise', () => {
    expect(arrayLiteral(['a"b', 'c\\"d', '{"json":"text \\"q\\""}', null, '', 'NULL'])).toBe(
      '{"a\\"b","c\\\\\\"d","{\\"json\\":\\"text \\\\\\"q\\\\\\"\\"}",null,"","NULL"}',
    )
    expect(arrayLiteral([1.5, 2, null])).toBe('{1.5,2,null}')
    // \n, a NUL, a lone surrogate (even after escaped backslashes), NaN: the driver's way.
    expect(arrayLiteral(['line\nbreak'])).toEqual(['line\nbreak'])
    expect(arrayLiteral(['a\u0000b'])).toEqual(['a\ufffdb'])
    expect(arrayLiteral(['\\\\\ud800'])).toEqual(['\\\\\ud800'])
    expect(arrayLiteral([Number.NaN])).toEqual([Number.NaN])
    // A backslash before a letter is no escape of JSON's: still a literal.
    expect(arrayLiteral(['\\n'])).toBe('{"\\\\n"}')
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
      input: { cmd: 'ls\u0000', kept: 'pair \ud83d\ude00, \\u0000 typed, "quoted" \\ and \n' },
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
    // The input is JSON text: its NUL travels escaped and comes back as it was.
    expect(stored?.input).toEqual(hostile.input)
    expect(stored?.executions.map((e) => e.reason)).toEqual(['x\ufffd'])
    expect((await store.getDecision('plain'))?.durationMs).toBeNaN()
    // Written as array literals: quotes, backslashes, braces and the word NULL come back as they were.
    const quoted = decision('quoted', now, { tool: 'C:\\dir "x" {a,b}', agentId: 'NULL', reason: '' })
    await store.writeAudit({ decisions: [quoted], executions: [execution(quoted)], approvals: [] })
    const back = await store.getDecision('quoted')
    expect([back?.tool, back?.agentId, back?.reason]).toEqual(['C:\\dir "x" {a,b}', 'NULL', ''])
    expect(await store.countDecisions()).toBe(3)
    const view = await store.overview({ since: now - HOUR, until: now + MINUTE })
    expect(view.totals.total).toBe(3)
    expect(view.hooks.find((h) => h.hook === 'guard')?.runs).toBe(3)
  })
})
