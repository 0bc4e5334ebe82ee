// Decisions per second with two `warden serve` instances against one with the same
// PostgreSQL: both instances run from the compiled package (async audit, one hook on
// tool.pre) and are measured in alternating slices (one alone, both at once, then both, one),
// so a change in the machine's other load falls on both figures; the medians are reported.
// The database's share of the CPU used while both served is read from /proc/<pid>/stat of
// the PostgreSQL server and its backends, against the Warden processes'. On a 2-core machine
// the load generator, two Wardens and the database share two cores, which bounds the ratio.
// WARDEN_BENCH_SECONDS sets the slice length (default 3).

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
}) => Promise<{ requests: { average: number; total: number }; non2xx: number }>

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

/** Requests per second against one URL for one slice. */
async function rate(url: string, connections: number): Promise<number> {
  const run = await autocannon({
    url: `${url}/aos`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections,
    duration: SLICE_S,
  })
  return run.requests.average
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
  const [a, b] = await Promise.all(
    dirs.map((dir) =>
      serveCompiledWarden({ dir, db: url, config: CONFIG, env: { WARDEN_DATABASE_URL: '' } }),
    ),
  )
  if (!a || !b) throw new Error('the instances did not start')
  try {
    const one: number[] = []
    const two: number[] = []
    let dbTicks = 0
    let wardenTicks = 0
    const measureBoth = async () => {
      const pg = postgresPids(port)
      const wardens = [a.proc.pid ?? 0, b.proc.pid ?? 0]
      const before = {
        db: pg.reduce((s, p) => s + ticks(p), 0),
        w: wardens.reduce((s, p) => s + ticks(p), 0),
      }
      const rates = await Promise.all([rate(a.url, CONNECTIONS / 2), rate(b.url, CONNECTIONS / 2)])
      // backends that ended during the slice are not counted: the pool keeps its connections
      dbTicks += postgresPids(port).reduce((s, p) => s + ticks(p), 0) - before.db
      wardenTicks += wardens.reduce((s, p) => s + ticks(p), 0) - before.w
      two.push(rates[0] + rates[1])
    }
    await rate(a.url, CONNECTIONS) // warm-up
    for (let round = 0; round < 2; round++) {
      if (round % 2 === 0) {
        one.push(await rate(a.url, CONNECTIONS))
        await measureBoth()
      } else {
        await measureBoth()
        one.push(await rate(a.url, CONNECTIONS))
      }
    }
    const single = median(one)
    const both = median(two)
    const dbShare = dbTicks / Math.max(1, dbTicks + wardenTicks)
    return [
      {
        name: 'decisions/s, two warden serve instances vs one, same PostgreSQL (async audit, one hook)',
        value: Math.round(both),
        baseline: Math.round(single),
        unit: 'req/s',
        goal: 'ratio >= 0.9 (a second instance costs no throughput; 2 cores bound the gain)',
        pass: both / single >= 0.9,
        extra: {
          'database share of the CPU (database + Wardens)': `${Math.round(dbShare * 100)}%`,
          'database CPU s per 1000 decisions': (
            (dbTicks / 100 / (both * SLICE_S * two.length)) *
            1000
          ).toFixed(3),
        },
      },
    ]
  } finally {
    await Promise.all([a.stop(), b.stop()])
    await server?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
}
