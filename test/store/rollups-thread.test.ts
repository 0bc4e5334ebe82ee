// The SQLite writer thread's rollups kept in memory: folding the counts it kept of the rows
// it wrote gives exactly the rollup rows the SQL fold gives from the rows themselves; rows
// written past the thread (another connection), a correction of a row not yet folded and a
// fold that fails all fall back to reading the rows, so the counts stay exact; a failed
// fold is reported and tried again.

import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sqliteAuditThread } from '../../src/store/audit-thread.js'
import { DECISION_FIELDS, decisionTuple, sqliteInsert } from '../../src/store/audit-write.js'
import { type AuditBatch, type DecisionRow, type ExecutionRow, openStore } from '../../src/store/index.js'
import { sqliteFolder } from '../../src/store/rollups-roll.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-rollups-thread-'))
const NOW = Date.now()
const OUTCOMES = ['allow', 'allow', 'deny', 'modify', 'ask', 'allow', 'deny'] as const

/** Batch `b` of a mixed run: two tenants, rows without a tool or agent, every kind of hook run. */
function batch(b: number, size = 30): AuditBatch {
  const out: AuditBatch = { decisions: [], executions: [], approvals: [] }
  for (let i = 0; i < size; i++) {
    const n = b * size + i
    // Spread over three days (hour and day rows differ from minute rows), some past minute retention.
    let at = NOW - ((n * 7_919_003) % (3 * 86_400_000))
    // None near the end of minute retention (48 h), where a fold a minute later keeps other minute rows.
    if (Math.abs(at - (NOW - 48 * 3_600_000)) < 300_000) at -= 600_000
    const decision = OUTCOMES[n % OUTCOMES.length] as string
    const row: DecisionRow = {
      id: `t-${n}`,
      tenant: n % 3 === 0 ? 'beta' : 'acme',
      ...(n % 5 === 0 ? {} : { agentId: `agent-${n % 4}` }),
      ...(n % 6 === 0 ? {} : { tool: ['Bash', 'Read', ''][n % 3] as string }),
      sessionId: `s-${n % 5}`,
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
    out.decisions.push(row)
    const run = (position: number, over: Partial<ExecutionRow>): ExecutionRow => ({
      dedupKey: `${row.id}:${position}`,
      decisionId: row.id,
      tenant: row.tenant,
      hookRef: 'guard',
      hookName: 'guard',
      hookVersion: 1,
      handler: 'script',
      decision,
      durationMs: (n * 37) % 12_000,
      position,
      createdAt: at,
      ...over,
    })
    out.executions.push(run(0, {}))
    out.executions.push(run(1, { hookRef: 'spy', hookName: 'spy', mode: 'shadow', decision: 'deny' }))
    if (n % 4 === 0) out.executions.push(run(2, { errorKind: n % 8 ? 'timeout' : 'crash', decision: 'deny' }))
    if (n % 3 === 0) out.executions.push(run(3, { decision: 'skipped', skipped: 'matcher' }))
  }
  return out
}

/** Every rollup row of a file, in key order. */
function rollups(file: string): { decisions: unknown[]; hooks: unknown[] } {
  const db = new BetterSqlite3(file, { readonly: true })
  try {
    return {
      decisions: db.prepare('select * from rollup_decisions order by span, dim, tenant, bucket, item').all(),
      hooks: db.prepare('select * from rollup_hooks order by span, tenant, bucket, hook').all(),
    }
  } finally {
    db.close()
  }
}

/** The same file's rollups folded again from the rows alone (the SQL fold), for comparison. */
function refolded(file: string): { decisions: unknown[]; hooks: unknown[] } {
  const copy = `${file}.refold.db`
  copyFileSync(file, copy)
  const db = new BetterSqlite3(copy)
  db.exec(
    "delete from rollup_decisions; delete from rollup_hooks; update rollup_state set value = 0 where key in ('decisions', 'executions')",
  )
  sqliteFolder(db)()
  db.close()
  return rollups(copy)
}

async function freshFile(name: string): Promise<string> {
  const file = join(dir, name)
  await (await openStore(file)).close()
  return file
}

beforeAll(() => undefined)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the writer thread's rollups in memory", () => {
  it('fold exactly what the rows say, also with rows written past the thread and a correction', async () => {
    const file = await freshFile('mixed.db')
    const thread = sqliteAuditThread(file)
    // The first batch is folded at once, from the counts in memory.
    await thread.write(batch(0))
    await thread.write(batch(1))
    // A decision written by another connection: the thread's counts no longer cover the new rows.
    const other = new BetterSqlite3(file)
    other
      .prepare(sqliteInsert('decisions', DECISION_FIELDS, 'id'))
      .run(decisionTuple({ ...(batch(9).decisions[0] as DecisionRow), id: 'foreign' }))
    other.close()
    await thread.write(batch(2))
    await thread.close()
    const first = rollups(file)
    expect(first.decisions.length).toBeGreaterThan(0)
    expect(first).toEqual(refolded(file))

    // A correction of a row the fold has not reached moves the generation: the counts kept are not used.
    const store = await openStore(file)
    // The first batch is folded at once; the next waits about a second, and is corrected meanwhile.
    await store.writeAudit(batch(4))
    await store.writeAudit(batch(3))
    await store.writeAudit({
      decisions: [],
      executions: [],
      approvals: [],
      corrections: [{ id: 't-91', decision: 'deny', reason: 'its record timed out', reasonCode: [] }],
    })
    await store.close()
    expect(rollups(file)).toEqual(refolded(file))
  })

  it('report a fold that fails and count its rows with the next one', async () => {
    const file = await freshFile('failing.db')
    const errors: string[] = []
    let reported: () => void = () => undefined
    const failed = new Promise<void>((resolve) => {
      reported = resolve
    })
    const thread = sqliteAuditThread(file, {
      onFoldError: (message) => {
        errors.push(message)
        reported()
      },
    })
    const db = new BetterSqlite3(file)
    db.exec(
      `create trigger refuse before insert on rollup_hooks begin select raise(abort, 'rollups refused'); end`,
    )
    await thread.write(batch(0))
    await failed
    expect(errors[0]).toMatch(/rollups refused/)
    expect(thread.foldFailures()).toBe(1)
    expect(db.prepare("select value from rollup_state where key = 'decisions'").pluck().get()).toBe(0)
    db.exec('drop trigger refuse')
    db.close()
    await thread.write(batch(1))
    await thread.close()
    const after = rollups(file)
    expect(after).toEqual(refolded(file))
    const totals = new BetterSqlite3(file, { readonly: true })
    expect(
      totals
        .prepare("select sum(total) from rollup_decisions where span = 86400000 and dim = ''")
        .pluck()
        .get(),
    ).toBe(60)
    totals.close()
  })
})
