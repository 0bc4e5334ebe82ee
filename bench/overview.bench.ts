// The overview's two goals. (1) Its queries answer within 200 ms with 10 million decisions
// recorded: a SQLite file of 10M decisions over the past year (8 tenants, 60 agents, 40
// tools, 30 hooks, sessions of ~40 decisions) is generated once with prepared statements in
// one transaction and kept in the temporary folder for later runs; the rollups are folded
// from the same rows by the write path's own code (the hook executions are folded, not
// stored, to keep the file small). WARDEN_BENCH_OVERVIEW_ROWS and _DAYS change the history:
// a query reads only the rollup rows of its window, so 2M decisions over 73 days (the same
// decisions per hour) answer as 10M over a year do, and are made in a fifth of the time.
// Each window (1 h, 24 h, 7 d, 30 d), for every tenant and for one, is asked through the
// store; the baseline is the same window counted by outcome straight from the decisions
// table. (2) Writing the rollups costs under 5% of the audit writer's throughput: batches of
// 256 decisions (2 executions each) through the SQLite writer thread and the PostgreSQL
// writer, with and without the rollups, interleaved. WARDEN_BENCH_OVERVIEW_PART=write or
// =query runs one of the two.

import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { sqliteAuditThread } from '../src/store/audit-thread.js'
import { DECISION_FIELDS, decisionTuple, sqliteInsert } from '../src/store/audit-write.js'
import { postgresAuditWriter } from '../src/store/audit-write-postgres.js'
import {
  type AuditBatch,
  type DecisionRow,
  type ExecutionRow,
  openStore,
  rollupFolder,
  SQLITE_ROLLUP_SQL,
} from '../src/store/index.js'
import { postgresFolding } from '../src/store/rollups-roll.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, MINUTE_RETENTION_MS } from '../src/store/rollups-write.js'
import { startPostgres } from '../test/setup/postgres.js'
import { type BenchResult, fmt, quantile } from './lib.js'

const DECISIONS = Number(process.env.WARDEN_BENCH_OVERVIEW_ROWS ?? 10_000_000)
/** The history's length: 10M decisions over a year by default; the same density over fewer days fits a busy machine. */
const HISTORY_DAYS = Number(process.env.WARDEN_BENCH_OVERVIEW_DAYS ?? 365)
const YEAR_MS = HISTORY_DAYS * 86_400_000
const OUTCOMES = [
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'allow',
  'modify',
  'deny',
  'ask',
]

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Decision `n` of the generated history (and its two hook executions), `now` its end. */
function generated(
  n: number,
  total: number,
  now: number,
  next: () => number,
): { decision: DecisionRow; executions: ExecutionRow[] } {
  const at = now - YEAR_MS + Math.floor((n / total) * YEAR_MS)
  const tenant = `tenant-${n % 8}`
  const decision = OUTCOMES[Math.floor(next() * OUTCOMES.length)] as string
  const row: DecisionRow = {
    id: `d${String(n).padStart(9, '0')}`,
    tenant,
    agentId: `agent-${n % 8}-${Math.floor(next() * 8)}`,
    sessionId: `s-${Math.floor(n / 40)}`,
    tool: `tool-${Math.floor(next() * next() * 40)}`,
    event: 'tool.pre',
    decision,
    reason: decision === 'deny' ? 'blocked' : '',
    reasonCode: [],
    decidingHooks: [],
    policies: [],
    durationMs: 1,
    blocking: true,
    input: {},
    output: {},
    createdAt: at,
  }
  const executions = [0, 1].map((position): ExecutionRow => {
    const hook = `hook-${Math.floor(next() * 30)}`
    return {
      dedupKey: `${row.id}:${position}`,
      decisionId: row.id,
      tenant,
      hookRef: hook,
      hookName: hook,
      hookVersion: 1,
      handler: 'script',
      decision: position === 0 ? decision : 'allow',
      durationMs: next() ** 3 * 400,
      position,
      createdAt: at,
      ...(hook === 'hook-29' ? { mode: 'shadow' as const } : {}),
      ...(next() < 0.002 ? { errorKind: 'timeout' } : {}),
    }
  })
  return { decision: row, executions }
}

/** The 10M-decision file: made once (in a temporary name, renamed when complete). */
async function historyFile(now: number): Promise<{ file: string; madeMs?: number }> {
  const file = join(tmpdir(), `warden-bench-overview-${DECISIONS}-${HISTORY_DAYS}d-v7.db`)
  if (existsSync(file)) return { file }
  const started = performance.now()
  const building = `${file}.part`
  rmSync(building, { force: true })
  await (await openStore(building)).close()
  const db = new BetterSqlite3(building)
  // A throwaway file written once: no journal, no syncs, a large cache.
  db.pragma('journal_mode = OFF')
  db.pragma('synchronous = OFF')
  db.pragma('cache_size = -1000000')
  const insert = db.prepare(sqliteInsert('decisions', DECISION_FIELDS, 'id'))
  const upsertDecisions = db.prepare(SQLITE_ROLLUP_SQL.decisions)
  const upsertHooks = db.prepare(SQLITE_ROLLUP_SQL.hooks)
  // Folded as the store's fold would: hour and day rows only for the hours and days the new
  // file counts as compacted, minute rows for the recent ones and those not compacted yet.
  const stored = new Map(
    (
      db.prepare("select key, value from rollup_state where key in ('hours', 'days')").all() as {
        key: string
        value: number
      }[]
    ).map((r) => [r.key, Number(r.value)]),
  )
  const marks = { hours: stored.get('hours') ?? now, days: stored.get('days') ?? now }
  const minutesFrom = now - MINUTE_RETENTION_MS
  const fold = rollupFolder([MINUTE_MS, HOUR_MS, DAY_MS], minutesFrom, marks)
  const next = random(42)
  const CHUNK = 10_000
  db.transaction(() => {
    for (let start = 0; start < DECISIONS; start += CHUNK) {
      const batch: Pick<AuditBatch, 'decisions' | 'executions'> = { decisions: [], executions: [] }
      for (let n = start; n < Math.min(DECISIONS, start + CHUNK); n++) {
        const { decision, executions } = generated(n, DECISIONS, now, next)
        insert.run(decisionTuple(decision))
        batch.decisions.push(decision)
        batch.executions.push(...executions)
      }
      const rows = fold(batch)
      for (const row of rows.decisions) upsertDecisions.run(row)
      for (const row of rows.hooks) upsertHooks.run(row)
    }
  })()
  db.close()
  renameSync(building, file)
  rmSync(`${building}-wal`, { force: true })
  rmSync(`${building}-shm`, { force: true })
  return { file, madeMs: performance.now() - started }
}

const WINDOWS: [string, number][] = [
  ['1 h', 3_600_000],
  ['24 h', 86_400_000],
  ['7 d', 7 * 86_400_000],
  ['30 d', 30 * 86_400_000],
]

async function queryTimes(): Promise<BenchResult[]> {
  const now = Date.now()
  const { file, madeMs } = await historyFile(now)
  const store = await openStore(file)
  const raw = new BetterSqlite3(file, { readonly: true })
  const direct = raw.prepare(
    'select decision, count(*) as n from decisions where created_at >= ? and created_at < ? group by decision',
  )
  const results: BenchResult[] = []
  try {
    const count = Number(raw.prepare('select count(*) from decisions').pluck().get())
    for (const [label, span] of WINDOWS) {
      for (const tenant of [undefined, 'tenant-3']) {
        const samples: number[] = []
        for (let i = 0; i < 7; i++) {
          const t = performance.now()
          await store.overview({ since: now - span, until: now, ...(tenant ? { tenant } : {}) })
          samples.push(performance.now() - t)
        }
        const t = performance.now()
        direct.all(now - span, now)
        const baseline = performance.now() - t
        const p50 = quantile(samples, 0.5)
        results.push({
          name: `overview.get from the rollups, ${label}, ${tenant ? 'one tenant' : 'every tenant'}, ${fmt(count / 1e6)}M decisions over ${HISTORY_DAYS} days, vs counting the window's decisions by outcome`,
          value: p50,
          baseline,
          unit: 'ms',
          goal: 'ms <= 200',
          pass: p50 <= 200,
          extra: {
            p95: fmt(quantile(samples, 0.95)),
            ...(madeMs ? { 'history made in s': fmt(madeMs / 1000) } : {}),
          },
        })
      }
    }
  } finally {
    raw.close()
    await store.close()
  }
  return results
}

/** Batches of the write-cost measure: recent decisions, 2 executions each. */
function writeBatches(prefix: string, count: number, size: number): AuditBatch[] {
  const next = random(7)
  const now = Date.now()
  const out: AuditBatch[] = []
  for (let b = 0; b < count; b++) {
    const batch: AuditBatch = { decisions: [], executions: [], approvals: [] }
    for (let i = 0; i < size; i++) {
      const { decision, executions } = generated(b * size + i, count * size, now, next)
      const id = `${prefix}-${decision.id}`
      decision.id = id
      decision.createdAt = now - Math.floor((count * size - (b * size + i)) * SPACING_MS)
      decision.input = {
        tool: { name: decision.tool, input: { command: `ls /srv/${i}`, flags: ['-l', '-a'] } },
      }
      batch.decisions.push(decision)
      for (const e of executions)
        batch.executions.push({
          ...e,
          decisionId: id,
          dedupKey: `${id}:${e.position}`,
          createdAt: decision.createdAt,
        })
    }
    out.push(batch)
  }
  return out
}

/**
 * The write measure runs a few seconds per round (about 60 000 decisions on SQLite, 25 000
 * on PostgreSQL), with and without the rollups in turn; each round's last fold (at close)
 * is counted, and the medians of the rounds are compared.
 */
const SQLITE_BATCHES = Number(process.env.WARDEN_BENCH_OVERVIEW_BATCHES ?? 240)
const POSTGRES_BATCHES = Math.ceil(SQLITE_BATCHES / 2.4)
const SPACING_MS = 5
const WRITE_ROUNDS = 8

async function rate(
  write: (batch: AuditBatch) => Promise<void>,
  batches: AuditBatch[],
  finish?: () => Promise<void>,
  cpu?: number[],
): Promise<number> {
  const start = performance.now()
  const used = process.cpuUsage()
  for (const batch of batches) await write(batch)
  await finish?.()
  const decisions = batches.length * (batches[0]?.decisions.length ?? 0)
  const spent = process.cpuUsage(used)
  cpu?.push((spent.user + spent.system) / decisions)
  return decisions / ((performance.now() - start) / 1000)
}

/** The rates of each round, with and without the rollups. */
interface Rounds {
  on: number[]
  off: number[]
  /** CPU of this process (every thread) per decision, µs, when measured. */
  cpuOn?: number[]
  cpuOff?: number[]
}

/** Rounds alternate which variant goes first, so neither always meets a warmer (or fuller) database. */
function roundOrder(round: number): boolean[] {
  return round % 2 === 0 ? [false, true] : [true, false]
}

/** The medians of the rounds, with the range of the rounds' own ratios. */
function costResult(db: string, rounds: Rounds): BenchResult {
  const on = quantile(rounds.on, 0.5)
  const off = quantile(rounds.off, 0.5)
  const paired = rounds.on.map((rate, i) => rate / (rounds.off[i] as number)).sort((a, b) => a - b)
  return {
    name: `audit writer decisions/s with the overview's rollups vs without (${db}, batches of 256, 2 executions each; medians of ${rounds.on.length} rounds)`,
    value: on,
    baseline: off,
    unit: 'rows/s',
    goal: 'ratio >= 0.95',
    pass: on / off >= 0.95,
    extra: {
      'rounds ratio': `${fmt(paired[0] ?? 0)}–${fmt(paired[paired.length - 1] ?? 0)}`,
      ...(rounds.cpuOn && rounds.cpuOff
        ? {
            'CPU us per decision (all threads), with vs without': `${fmt(quantile(rounds.cpuOn, 0.5))} vs ${fmt(quantile(rounds.cpuOff, 0.5))}`,
          }
        : {}),
    },
  }
}

async function sqliteWriteCost(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-rollup-write-'))
  try {
    const rounds: Rounds = { on: [], off: [], cpuOn: [], cpuOff: [] }
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      for (const rollups of roundOrder(round)) {
        const file = join(dir, `r${round}-${rollups}.db`)
        await (await openStore(file)).close()
        const thread = sqliteAuditThread(file, { rollups })
        const batches = writeBatches(`r${round}`, SQLITE_BATCHES, 256)
        await thread.write(batches[0] as AuditBatch)
        // Until the thread is closed: its last fold is part of the cost.
        const measured = await rate(
          thread.write,
          batches.slice(1),
          thread.close,
          rollups ? rounds.cpuOn : rounds.cpuOff,
        )
        rounds[rollups ? 'on' : 'off'].push(measured)
      }
    }
    return costResult('SQLite writer thread', rounds)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgresWriteCost(): Promise<BenchResult> {
  const server = process.env.WARDEN_BENCH_DATABASE_URL ? undefined : await startPostgres()
  const url = process.env.WARDEN_BENCH_DATABASE_URL ?? (server?.url as string)
  const db = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
  })
  try {
    await (await openStore(url)).close()
    const rounds: Rounds = { on: [], off: [] }
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      for (const rollups of roundOrder(round)) {
        // With the rollups, the writer's folds (every five seconds or 64 batches, and the
        // last one at close) are part of the cost.
        const folding = rollups ? postgresFolding(db as never) : undefined
        const write = postgresAuditWriter(db as never, { rollups, ...(folding ? { folding } : {}) })
        const batches = writeBatches(`p${round}-${rollups}`, POSTGRES_BATCHES, 256)
        await write(batches[0] as AuditBatch)
        await folding?.now()
        const measured = await rate(write, batches.slice(1), folding?.close)
        rounds[rollups ? 'on' : 'off'].push(measured)
      }
    }
    return costResult('PostgreSQL', rounds)
  } finally {
    await db.destroy()
    await server?.stop()
  }
}

export default async function overviewBench(): Promise<BenchResult[]> {
  // WARDEN_BENCH_OVERVIEW_PART=write (or =query) runs one half only.
  const part = process.env.WARDEN_BENCH_OVERVIEW_PART
  const queries = part === 'write' ? [] : await queryTimes()
  if (part === 'query') return queries
  return [await sqliteWriteCost(), await postgresWriteCost(), ...queries]
}
