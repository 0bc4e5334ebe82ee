// Decisions per second with two `warden serve` instances against one with the same
// PostgreSQL: both instances run from the compiled package (async audit, one hook on
// tool.pre) and are measured in alternating slices (one alone, both at once, then both, one),
// so a change in the machine's other load falls on both figures; the medians are reported.
// The database's share of the CPU used while both served is read from /proc/<pid>/stat of
// the PostgreSQL server and its backends, against the Warden processes'. On a 2-core machine
// the load generator, two Wardens and the database share two cores, which bounds the ratio.
// Each Warden's own CPU per decision (from /proc) is shown for both sides, and after the
// run every answered decision must be a row in the database (0 rows lost), else the goal
// is missed. WARDEN_BENCH_SECONDS sets the slice length (default 3); WARDEN_BENCH_CPU_PROF
// names a folder where both instances write a `node --cpu-prof` profile.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPostgres } from '../test/setup/postgres.js'
import { type BenchResult, serveCompiledWarden } from './lib.js'

/** autocannon ships no types: the part of its API used here. */
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string
  method: string
  headers: Record<string, string>
  body: string
  connections: number
  duration: number
}) => Promise<{ requests: { average: number; total: number; sent: number }; '2xx': number }>

const CONFIG = `
hooks:
  - name: guard
    event: tool.pre
    matcher: "^exec$"
    handler: { type: allow }
`

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'steps/toolCallRequest',
  params: {
    toolCallRequest: { executionId: 'e', toolId: 'exec', inputs: [{ name: 'cmd', value: 'ls' }] },
    context: { agent: { id: 'a', name: 'a' }, session: { id: 's' } },
  },
})

const SLICE_S = Number(process.env.WARDEN_BENCH_SECONDS ?? 3)
const CONNECTIONS = 16
/** Rounds of one slice alone and one slice of both, in ABBA order. */
const ROUNDS = 4

/**
 * Decisions answered (2xx) over the whole run, each of which must be a row in the database,
 * and requests sent (those still in flight when a slice ends are answered unseen).
 */
let answered = 0
let sent = 0

/** Requests per second against one URL for one slice. */
async function rate(url: string, connections: number): Promise<{ rps: number; total: number }> {
  const run = await autocannon({
    url: `${url}/aos`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections,
    duration: SLICE_S,
  })
  answered += run['2xx']
  sent += run.requests.sent
  return { rps: run.requests.average, total: run.requests.total }
}

/** Decision rows in the database. */
async function rowCount(url: string): Promise<number> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const result = await client.query<{ n: string }>('select count(*) as n from decisions')
    return Number(result.rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

/** CPU ticks (user + system) of a process, 0 when it is gone. */
function ticks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** The PostgreSQL processes: the postmaster (by its port) and its children. */
function postgresPids(port: string): number[] {
  const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p))
  let postmaster: number | undefined
  const parents = new Map<number, number>()
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      parents.set(Number(pid), Number(after[1]))
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      if (/postgres/.test(cmd) && cmd.includes(`-p\u0000${port}`)) postmaster = Number(pid)
      if (/postgres/.test(cmd) && cmd.includes(`-p ${port}`)) postmaster = Number(pid)
    } catch {
      // the process ended meanwhile
    }
  }
  if (postmaster === undefined) return []
  return [postmaster, ...[...parents].filter(([, parent]) => parent === postmaster).map(([pid]) => pid)]
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export default async function bench(): Promise<BenchResult[]> {
  const server = process.env.WARDEN_BENCH_DATABASE_URL ? undefined : await startPostgres()
  const url = process.env.WARDEN_BENCH_DATABASE_URL ?? (server?.url as string)
  const port = new URL(url).port
  const dirs = [
    mkdtempSync(join(tmpdir(), 'warden-cluster-a-')),
    mkdtempSync(join(tmpdir(), 'warden-cluster-b-')),
  ]
  const profile = process.env.WARDEN_BENCH_CPU_PROF
  const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []
  const env = { WARDEN_DATABASE_URL: '' }
  const [a, b] = await Promise.all(
    dirs.map((dir) => serveCompiledWarden({ dir, db: url, config: CONFIG, env, nodeArgs })),
  )
  if (!a || !b) throw new Error('the instances did not start')
  const rowsBefore = await rowCount(url)
  answered = 0
  sent = 0
  let stopped = false
  try {
    const one: number[] = []
    const two: number[] = []
    let dbTicks = 0
    let wardenTicks = 0
    /** Each Warden's CPU microseconds per decision it answered, per slice. */
    const cpuOne: number[] = []
    const cpuTwo: number[] = []
    const measureOne = async () => {
      const before = ticks(a.proc.pid ?? 0)
      const { rps, total } = await rate(a.url, CONNECTIONS)
      cpuOne.push(((ticks(a.proc.pid ?? 0) - before) * 10_000) / Math.max(1, total))
      one.push(rps)
    }
    const measureBoth = async () => {
      const pg = postgresPids(port)
      const wardens = [a.proc.pid ?? 0, b.proc.pid ?? 0]
      const each = wardens.map(ticks)
      const before = { db: pg.reduce((s, p) => s + ticks(p), 0), w: each[0]! + each[1]! }
      const rates = await Promise.all([rate(a.url, CONNECTIONS / 2), rate(b.url, CONNECTIONS / 2)])
      // backends that ended during the slice are not counted: the pool keeps its connections
      dbTicks += postgresPids(port).reduce((s, p) => s + ticks(p), 0) - before.db
      const after = wardens.map(ticks)
      wardenTicks += after[0]! + after[1]! - before.w
      rates.forEach((r, i) => {
        cpuTwo.push(((after[i]! - each[i]!) * 10_000) / Math.max(1, r.total))
      })
      two.push(rates[0].rps + rates[1].rps)
    }
    await rate(a.url, CONNECTIONS) // warm-up
    await Promise.all([rate(a.url, CONNECTIONS / 2), rate(b.url, CONNECTIONS / 2)])
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: neither side always runs first.
      if (round % 2 === 0) {
        await measureOne()
        await measureBoth()
      } else {
        await measureBoth()
        await measureOne()
      }
    }
    // Stopping writes what is still queued: then every answered decision must be a row.
    await Promise.all([a.stop(), b.stop()])
    stopped = true
    const rows = (await rowCount(url)) - rowsBefore
    // Between the decisions answered and the requests sent: fewer is a row lost, more a row doubled.
    const lost = Math.max(0, answered - rows) + Math.max(0, rows - sent)
    const single = median(one)
    const both = median(two)
    const ratio = both / single
    const dbShare = dbTicks / Math.max(1, dbTicks + wardenTicks)
    const rounded = (values: number[]) => values.map((v) => Math.round(v)).join('/')
    if (ratio < 0.9 || lost !== 0) {
      process.stdout.write(
        `MISS: two warden serve instances reached ${ratio.toFixed(2)}x of one (goal >= 0.9x), ${lost} row(s) lost or doubled (goal 0)\n`,
      )
    }
    return [
      {
        name: `decisions/s, two warden serve instances vs one, same PostgreSQL (async audit, one hook; median of ${ROUNDS} alternating ${SLICE_S} s slices)`,
        value: Math.round(both),
        baseline: Math.round(single),
        unit: 'req/s',
        goal: 'ratio >= 0.9 and 0 rows lost (a second instance costs no throughput; 2 cores bound the gain)',
        pass: ratio >= 0.9 && lost === 0,
        extra: {
          'req/s per slice, two': rounded(two),
          'req/s per slice, one': rounded(one),
          'Warden CPU us per decision (median), two': Math.round(median(cpuTwo)),
          'Warden CPU us per decision (median), one': Math.round(median(cpuOne)),
          'database share of the CPU (database + Wardens)': `${Math.round(dbShare * 100)}%`,
          'database CPU s per 1000 decisions': (
            (dbTicks / 100 / (both * SLICE_S * two.length)) *
            1000
          ).toFixed(3),
          'decisions answered': answered,
          'requests sent': sent,
          'decision rows written': rows,
          'rows lost or doubled': lost,
        },
      },
    ]
  } finally {
    if (!stopped) await Promise.all([a.stop(), b.stop()])
    await server?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
}
