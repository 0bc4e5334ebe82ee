// Impact preview benchmark: replaying recorded decisions against a changed hook (the
// preview behind `hooks.impact` and `warden replay --hook`) on SQLite and on PostgreSQL.
// Goal: 100,000 recorded decisions in at most 30 s each on the 2-core machine. The default
// run records 20,000 and projects to 100,000 (the replay is linear in rows); set
// WARDEN_BENCH_IMPACT_ROWS=100000 for the full run. The baseline is reading the same rows
// page by page without replaying them, measured in the same run.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { previewImpact, recordedPages } from '../src/audit/index.js'
import { defaultHandlers } from '../src/handlers/index.js'
import { createEngine } from '../src/index.js'
import { openStore, type Store } from '../src/store/index.js'
import { seedHistory } from '../test/helpers/history.js'
import { startPostgres } from '../test/setup/postgres.js'
import type { BenchResult } from './lib.js'

const FULL = 100_000
const ROWS = Number(process.env.WARDEN_BENCH_IMPACT_ROWS ?? 20_000)
const GOAL_S = 30

/** Today's hooks with the changed one: piping curl into a shell is now denied. */
function changedEngine() {
  return createEngine({
    handlers: defaultHandlers(),
    hooks: [
      { name: 'audit-only', event: 'tool.pre', handler: { type: 'allow' } },
      {
        name: 'no-curl-pipe',
        event: 'tool.pre',
        matcher: '^Bash$',
        if: "tool.input.command.matches('curl[^|]*[|] *sh')",
        scope: { tenant: 'acme' },
        handler: { type: 'deny', reason: 'piping curl into a shell is not allowed' },
      },
    ],
  })
}

/** Reads every recorded row of the range page by page, as the preview does, without replaying. */
async function readOnly(store: Store, since: number): Promise<number> {
  const started = performance.now()
  let read = 0
  for await (const rows of recordedPages(store, { since, tenant: 'acme', event: 'tool.pre' }, 2000))
    read += rows.length
  if (read !== ROWS) throw new Error(`read ${read} rows, recorded ${ROWS}`)
  return performance.now() - started
}

async function measure(db: string, store: Store): Promise<BenchResult> {
  const seeded = performance.now()
  const curls = await seedHistory(store, { count: ROWS, tenant: 'acme', curlEvery: 10 })
  const seedS = (performance.now() - seeded) / 1000
  const since = Date.now() - 7 * 86_400_000
  const engine = changedEngine()
  const started = performance.now()
  const report = await previewImpact(store, engine, {
    since,
    tenant: 'acme',
    events: ['tool.pre'],
    limit: FULL,
    timeLimitMs: 10 * 60_000,
  })
  const replayMs = performance.now() - started
  await engine.close()
  if (report.replayed !== ROWS || report.transitions['allow → deny'] !== curls)
    throw new Error(`replayed ${report.replayed} of ${ROWS}, changed ${report.changed} (expected ${curls})`)
  const readMs = await readOnly(store, since)
  const per100k = (replayMs / 1000) * (FULL / ROWS)
  return {
    name: `replay ${FULL.toLocaleString('en')} recorded decisions against a changed hook, ${db}${ROWS < FULL ? ` (projected from ${ROWS.toLocaleString('en')})` : ''}`,
    value: per100k,
    baseline: (readMs / 1000) * (FULL / ROWS),
    unit: 's',
    goal: `s <= ${GOAL_S}`,
    pass: per100k <= GOAL_S,
    extra: {
      rows: ROWS,
      'replay s': (replayMs / 1000).toFixed(1),
      'rows/s': Math.round(ROWS / (replayMs / 1000)),
      'read-only s': (readMs / 1000).toFixed(1),
      'seeding s': seedS.toFixed(1),
    },
  }
}

async function sqlite(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-impact-'))
  const store = await openStore(join(dir, 'warden.db'), { cwd: dir })
  try {
    return await measure('SQLite', store)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgres(): Promise<BenchResult> {
  const server = process.env.WARDEN_BENCH_DATABASE_URL ? undefined : await startPostgres()
  const url = process.env.WARDEN_BENCH_DATABASE_URL ?? (server?.url as string)
  const store = await openStore(url)
  try {
    return await measure('PostgreSQL', store)
  } finally {
    await store.close()
    await server?.stop()
  }
}

export default async function bench(): Promise<BenchResult[]> {
  return [await sqlite(), await postgres()]
}
