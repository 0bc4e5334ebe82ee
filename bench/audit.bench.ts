// Audit benchmarks: rows per second through the batched audit writer against a bare
// multi-row INSERT of the same rows with the same driver (SQLite and PostgreSQL), and
// /aos throughput with the audit trail on against off (interleaved in the same run). The
// writer and the audited server run with `audit.redact` at its default (the built-in
// patterns), as `warden serve` does; the cost of that redaction per decision is measured
// against serialising the decision's input.

import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { createAuditWriter, createRedactor, redactingRecorder, toAuditRows } from '../src/audit/index.js'
import { createEngine, type DecisionRecord } from '../src/index.js'
import { createServer, listen } from '../src/server/index.js'
import { decisionTuple, executionTuple } from '../src/store/audit-write.js'
import { openStore, type Store } from '../src/store/index.js'
import { startPostgres } from '../test/setup/postgres.js'
import type { BenchResult } from './lib.js'

/** autocannon ships no types: the part of its API used here. */
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string
  method: string
  headers: Record<string, string>
  body: string
  connections: number
  duration: number
}) => Promise<{ requests: { average: number; total: number } }>

const ROWS = 20_000
const BATCH = 256

async function records(count: number): Promise<DecisionRecord[]> {
  const out: DecisionRecord[] = []
  const engine = createEngine({
    hooks: [
      {
        name: 'guard',
        event: 'tool.pre',
        policy: { id: 'p', version: '1' },
        handler: { type: 'fn', fn: () => undefined },
      },
    ],
    recorder: { record: (r) => void out.push(r) },
  })
  for (let n = 0; n < count; n++) {
    await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'exec', input: { cmd: `ls /srv/${n}`, flags: ['-l', '-a'] } } },
      context: { tenantId: 'bench', requestId: String(n), agent: { id: 'agent-1' }, session: { id: 's' } },
    })
  }
  return out
}

async function throughWriter(store: Store, input: DecisionRecord[]): Promise<number> {
  const writer = createAuditWriter(store, { batchSize: BATCH, intervalMs: 50 })
  const recorder = redactingRecorder(createRedactor(undefined), writer)
  const start = performance.now()
  for (let i = 0; i < input.length; i++) {
    recorder.record(input[i] as DecisionRecord)
    if (i % BATCH === 0) await new Promise((r) => setImmediate(r))
  }
  await writer.close()
  return input.length / ((performance.now() - start) / 1000)
}

function placeholders(width: number, rows: number, dollar: boolean): string {
  const out: string[] = []
  let p = 1
  for (let r = 0; r < rows; r++) {
    const cells: string[] = []
    for (let c = 0; c < width; c++) cells.push(dollar ? `$${p++}` : '?')
    out.push(`(${cells.join(',')})`)
  }
  return out.join(',')
}

const DECISION_COLS =
  'id,request_id,tenant,agent_id,session_id,event,decision,reason,reason_code,deciding_hooks,policies,duration_ms,blocking,input,output,trace_id,created_at'
const EXECUTION_COLS =
  'dedup_key,decision_id,tenant,hook_id,hook_ref,hook_name,hook_version,handler,decision,reason,duration_ms,error,error_sealed,error_kind,skipped,policy_id,policy_version,position,created_at,metadata'

/** The same rows as bare multi-row INSERTs, one transaction per batch. */
async function bare(
  input: DecisionRecord[],
  run: (sql: string, params: unknown[]) => Promise<void> | void,
  dollar: boolean,
): Promise<number> {
  const start = performance.now()
  for (let i = 0; i < input.length; i += BATCH) {
    const part = input.slice(i, i + BATCH).map((r) => toAuditRows(r))
    const decisions = part.flatMap((p) => decisionTuple(p.decision))
    const executions = part.flatMap((p) => p.executions.flatMap((e) => executionTuple(e, null)))
    await run('begin', [])
    await run(
      `insert into decisions (${DECISION_COLS}) values ${placeholders(17, part.length, dollar)}`,
      decisions,
    )
    await run(
      `insert into hook_executions (${EXECUTION_COLS}) values ${placeholders(20, executions.length / 20, dollar)}`,
      executions,
    )
    await run('commit', [])
  }
  return input.length / ((performance.now() - start) / 1000)
}

async function sqlite(input: DecisionRecord[]): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-audit-'))
  try {
    const best = { writer: 0, bare: 0 }
    for (let round = 0; round < 3; round++) {
      const store = await openStore(join(dir, `w${round}.db`))
      best.writer = Math.max(best.writer, await throughWriter(store, input))
      await store.close()
      const file = join(dir, `b${round}.db`)
      await (await openStore(file)).close()
      const db = new BetterSqlite3(file)
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = NORMAL')
      best.bare = Math.max(
        best.bare,
        await bare(input, (sql, params) => void db.prepare(sql).run(...params), false),
      )
      db.close()
    }
    return result('SQLite', best.writer, best.bare)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgres(input: DecisionRecord[]): Promise<BenchResult> {
  const server = process.env.WARDEN_BENCH_DATABASE_URL ? undefined : await startPostgres()
  const url = process.env.WARDEN_BENCH_DATABASE_URL ?? (server?.url as string)
  try {
    const best = { writer: 0, bare: 0 }
    for (let round = 0; round < 3; round++) {
      const store = await openStore(url)
      await store.close()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      const reset = () => client.query('truncate hook_executions, decisions')
      await reset()
      const writerStore = await openStore(url)
      best.writer = Math.max(best.writer, await throughWriter(writerStore, input))
      await writerStore.close()
      await reset()
      best.bare = Math.max(
        best.bare,
        await bare(input, async (sql, params) => void (await client.query(sql, params)), true),
      )
      await reset()
      await client.end()
    }
    return result('PostgreSQL', best.writer, best.bare)
  } finally {
    await server?.stop()
  }
}

function result(db: string, writer: number, baseline: number): BenchResult {
  return {
    name: `audit rows/s through the batched writer vs a bare multi-row INSERT (${db}, ${ROWS} decisions)`,
    value: writer,
    baseline,
    unit: 'rows/s',
    goal: 'ratio >= 0.8',
    pass: writer / baseline >= 0.8,
  }
}

const AOS_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'steps/toolCallRequest',
  params: {
    toolCallRequest: { executionId: 'e', toolId: 'exec', inputs: [{ name: 'cmd', value: 'ls' }] },
    context: { agent: { id: 'a', name: 'a' }, session: { id: 's' } },
  },
})

/** Interleaved measuring slices per server, and their length in seconds. */
const AOS_ROUNDS = 6
const AOS_SLICE_S = 2

interface AosServer {
  url: string
  close(): Promise<void>
}

/** A server with one hook, recording into `store` through the default (async) writer when given. */
async function aosServer(store: Store | undefined): Promise<AosServer> {
  const writer = store ? createAuditWriter(store) : undefined
  const engine = createEngine({
    hooks: [{ name: 'guard', event: 'tool.pre', handler: { type: 'fn', fn: () => undefined } }],
    ...(writer ? { recorder: redactingRecorder(createRedactor(undefined), writer) } : {}),
  })
  const app = await createServer({ engine })
  const url = await listen(app, { port: 0, host: '127.0.0.1' })
  return {
    url,
    async close() {
      await app.close()
      await engine.close()
      await writer?.close()
      await store?.close()
    },
  }
}

/** One measuring slice: requests per second, and the requests answered. */
async function aosRate(server: AosServer, seconds: number): Promise<{ rate: number; total: number }> {
  const run = await autocannon({
    url: `${server.url}/aos`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: AOS_BODY,
    connections: 16,
    duration: seconds,
  })
  return { rate: run.requests.average, total: run.requests.total }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * Both servers run side by side for the whole benchmark and are measured in alternating
 * slices (off, on, then on, off, ...), so a change in the machine's other load falls on both;
 * the figures are the medians of the slices. The CPU time of this process (the load
 * generator, the server and the audit thread) per request is printed too: it shows what
 * the audit trail costs when the machine's other load makes the rates unsteady.
 */
async function aos(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-aos-'))
  const off = await aosServer(undefined)
  const on = await aosServer(await openStore(join(dir, 'aos.db')))
  try {
    await aosRate(off, 1)
    await aosRate(on, 1)
    const rates = { on: [] as number[], off: [] as number[] }
    const cpu = { on: { us: 0, requests: 0 }, off: { us: 0, requests: 0 } }
    for (let round = 0; round < AOS_ROUNDS; round++) {
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)
      for (const which of order) {
        const before = process.cpuUsage()
        const slice = await aosRate(which === 'on' ? on : off, AOS_SLICE_S)
        const used = process.cpuUsage(before)
        rates[which].push(slice.rate)
        cpu[which].us += used.user + used.system
        cpu[which].requests += slice.total
      }
    }
    const value = median(rates.on)
    const baseline = median(rates.off)
    return {
      name: '/aos requests/s with the audit trail on (SQLite, async) vs off',
      value,
      baseline,
      unit: 'req/s',
      goal: 'ratio >= 0.85',
      pass: value / baseline >= 0.85,
      extra: {
        slices: `${AOS_ROUNDS}x${AOS_SLICE_S}s`,
        'CPU us/req on': cpu.on.us / Math.max(1, cpu.on.requests),
        'CPU us/req off': cpu.off.us / Math.max(1, cpu.off.requests),
        'load avg': loadavg()[0] as number,
      },
    }
  } finally {
    await off.close()
    await on.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Microseconds per decision of `fn` over the records (best of 5 passes). */
function perRecord(input: DecisionRecord[], fn: (record: DecisionRecord) => unknown): number {
  let best = Number.POSITIVE_INFINITY
  for (let pass = 0; pass < 5; pass++) {
    const start = performance.now()
    for (const record of input) fn(record)
    best = Math.min(best, ((performance.now() - start) * 1000) / input.length)
  }
  return best
}

/**
 * What `audit.redact` (the defaults) costs per decision, against serialising the
 * decision's input, which the writer does for every row anyway.
 */
function redaction(input: DecisionRecord[]): BenchResult {
  const redactor = createRedactor(undefined)
  if (!redactor) throw new Error('the default redactor is missing')
  const value = perRecord(input, (r) => redactor.redact(r))
  const baseline = perRecord(input, (r) => JSON.stringify(r.event))
  const withKey = input.slice(0, 2000).map((r) => ({
    ...r,
    event: {
      ...r.event,
      payload: { tool: { name: 'exec', input: { cmd: 'aws s3 ls AKIAIOSFODNN7EXAMPLE' } } },
    },
  }))
  return {
    name: 'audit.redact (defaults) per clean decision vs JSON.stringify of its input',
    value,
    baseline,
    unit: 'us',
    goal: 'us <= 5',
    pass: value <= 5,
    extra: { 'us with an AWS key in the input': perRecord(withKey, (r) => redactor.redact(r)) },
  }
}

/** Runs the audit benchmarks. */
export default async function run(): Promise<BenchResult[]> {
  const input = await records(ROWS)
  return [redaction(input), await sqlite(input), await postgres(input), await aos()]
}
