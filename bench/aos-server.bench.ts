// POST /aos steps/toolCallRequest through a 7-hook stack of fn and CEL hooks (no processes),
// with the front door, the in-flight limits, the audit trail (SQLite, as `warden serve`
// opens it) and tenancy on (the load names a tenant; two hooks are that tenant's, one is
// another tenant's and must not run), against a bare `node:http` server (the stack the
// data plane runs on) that reads the same body, parses it and answers with a body of the
// same size and shape (Warden's own answer, read once, stringified per request), measured
// in the same run. Each server runs in its own child process (this same file, started with
// AOS_BENCH_ROLE), and so does the load:
// - maximum throughput: autocannon, 32 connections, each sending as fast as it is answered;
// - CPU time per request with both servers loaded at once, so the machine's noise hits both;
// - p99 at half of Warden's own maximum rate, against bare's p99 at the same rate: an
//   open-loop generator (bench/paced-load.ts) that sends at a steady pace. Both servers
//   report their event-loop delay (perf_hooks' histogram) over each paced round.
// Each phase runs interleaved rounds on both servers and keeps each one's best.
// Goals: throughput >= 0.85x of bare; CPU per request <= 1.2x of bare; p99 <= 1.5x of bare's.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { type BenchResult, quantile } from './lib.js'
import { type Load, pacedLoad } from './paced-load.js'

const SELF = fileURLToPath(import.meta.url)

/** The part of autocannon's result this benchmark reads (the package ships no types). */
interface AutocannonResult {
  requests: { average: number }
  latency: { p50: number; p99: number }
  errors: number
  non2xx: number
}
/** autocannon, loaded only where it runs (not in the server and load children). */
const autocannon = () =>
  createRequire(import.meta.url)('autocannon') as (
    options: Record<string, unknown>,
  ) => Promise<AutocannonResult>
const DURATION_S = Number(process.env.AOS_BENCH_SECONDS ?? 8)
const CONNECTIONS = 32
/** Connections of the paced generator: enough that a request never waits for one. */
const PACED_CONNECTIONS = 16
/** Rounds per server of the p99 phase, interleaved so that noise hits both; the best of each counts. */
const ROUNDS = 3
/**
 * Rounds and seconds of the maximum-throughput phase: short rounds, so that each server's
 * best round is likelier to fall in a quiet moment of the machine.
 */
const MAX_ROUNDS = 6
const MAX_SECONDS = 4
/** Rounds and seconds of the paired CPU measurement. */
const PAIRED_ROUNDS = 4
const PAIRED_SECONDS = 4

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 'bench-1',
  method: 'steps/toolCallRequest',
  params: {
    toolCallRequest: {
      executionId: 'exec-1',
      toolId: 'tool-sms',
      inputs: [
        { name: 'phone_number', value: '+1-555-0100' },
        { name: 'content', value: 'Urgent security alert: a new sign-in to your account.' },
      ],
    },
    reasoning: 'Notify the user of the security alert.',
    context: {
      agent: {
        id: 'agent-1',
        name: 'Personal assistant',
        instructions: 'You manage my mailbox.',
        version: '1',
        provider: { name: 'Acme', url: 'https://acme.example' },
        tools: [{ id: 'tool-sms', name: 'send_sms', type: 'function', arguments: null, outputs: null }],
      },
      session: { id: 'session-1' },
      turnId: 'turn-1',
      stepId: 'step-1',
      timestamp: '2025-01-24T15:32:45.123Z',
      user: { id: 'user-1', organization: { id: 'acme' } },
    },
  },
})

/** The audit trail: on (SQLite) unless AOS_BENCH_AUDIT=off. */
const AUDIT = process.env.AOS_BENCH_AUDIT !== 'off'

/** The tenant the load names (`X-Warden-Tenant`). */
const TENANT = 'acme'

/**
 * The `GET /stats` answer: the server process's CPU time so far (us) and its event-loop
 * delay since the last call (ms: p50, p99, max), read from perf_hooks' histogram at 1 ms
 * resolution.
 */
function statsReader(): () => string {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  return () => {
    const { user, system } = process.cpuUsage()
    const ms = (ns: number) => Math.round(ns / 1e4) / 100
    const loop = { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) }
    delay.reset()
    return JSON.stringify({ us: user + system, mainUs: mainThreadUs(), loop })
  }
}

/**
 * The CPU time of the main thread alone (us), where /proc tells it (10 ms ticks); NaN
 * elsewhere. The rest of the process is the audit writer's thread and V8's helpers.
 */
function mainThreadUs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return Number.NaN
  }
}

/** `GET /stats` on Warden's app. */
function statsRoute(app: FastifyInstance): void {
  const read = statsReader()
  app.get('/stats', async (_request, reply) => reply.type('application/json').send(read()))
}

/** Warden runs the compiled package (dist/), as `warden serve` does; `npm run bench` builds it. */
async function serveWarden(): Promise<string> {
  const { createEngine } = await import('../dist/index.js')
  const { createServer, listen } = await import('../dist/server/index.js')
  const { openPersistence, redactingRecorder } = await import('../dist/audit/index.js')
  const { InFlightLimiter } = await import('../dist/inflight/index.js')
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-aos-'))
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  process.once('SIGTERM', () => process.exit(0))
  // The audit trail as `warden serve` opens it: SQLite, its writer thread, the default redaction.
  const persistence = AUDIT ? await openPersistence({ db: join(dir, 'audit.db'), env: {} }) : undefined
  const inFlight = new InFlightLimiter()
  if (persistence) inFlight.holdAlso('audit records not yet written', () => persistence.writer.heldBytes())
  const allow = () => ({ decision: 'allow' })
  const fn = (f: () => unknown) => ({ type: 'fn', fn: f })
  const engine = createEngine({
    ...(persistence ? { recorder: redactingRecorder(persistence.redactor, persistence.recorder) } : {}),
    hooks: [
      { name: 'audit-all', event: 'tool.pre', priority: 1, handler: fn(allow) },
      {
        name: 'sms-or-exec',
        event: 'tool.pre',
        matcher: '^(send_sms|exec)$',
        priority: 2,
        handler: fn(allow),
      },
      {
        name: 'sms-only',
        event: 'tool.pre',
        if: "tool_name == 'send_sms'",
        priority: 3,
        scope: { tenant: TENANT },
        handler: fn(allow),
      },
      {
        name: 'content-size',
        event: 'tool.pre',
        if: 'has(tool_input.content) && size(tool_input.content) < 1000',
        priority: 4,
        handler: fn(allow),
      },
      // A regex searched in the name (a bare `a|b` list would match whole names only).
      { name: 'messaging', event: 'tool.pre', matcher: '_(sms|mail)$', priority: 5, handler: fn(allow) },
      {
        name: 'tenant-check',
        event: 'tool.pre',
        if: "tenant == null || tenant != 'blocked'",
        priority: 6,
        handler: fn(allow),
      },
      {
        name: 'no-opinion',
        event: 'tool.pre',
        priority: 7,
        scope: { tenant: TENANT },
        handler: fn(() => undefined),
      },
      // Another tenant's hook: it must not run for the load's tenant.
      {
        name: 'globex-deny',
        event: 'tool.pre',
        priority: 8,
        scope: { tenant: 'globex' },
        handler: fn(() => ({ decision: 'deny' })),
      },
    ],
  })
  const app = await createServer({ engine, inFlight, plugins: [statsRoute] })
  return listen(app, { port: 0 })
}

/**
 * Bare `node:http`: reads the body, parses it, answers Warden's own answer (same size) with
 * the caller's id.
 */
async function serveBare(answer: string): Promise<string> {
  const template = JSON.parse(answer) as { id: unknown }
  const stats = statsReader()
  const reply = (res: ServerResponse, text: string) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    res.end(text)
  }
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return reply(res, stats())
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }
      reply(res, JSON.stringify({ ...template, id: parsed.id }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

const role = process.env.AOS_BENCH_ROLE
if (role === 'warden' || role === 'bare') {
  const url = await (role === 'warden' ? serveWarden() : serveBare(String(process.env.AOS_BENCH_ANSWER)))
  process.stdout.write(`ready ${url}\n`)
} else if (role === 'load') {
  const env = (name: string) => Number(process.env[name])
  const result = await pacedLoad(
    String(process.env.AOS_BENCH_URL),
    BODY,
    env('AOS_BENCH_RATE'),
    env('AOS_BENCH_RUN_SECONDS'),
    env('AOS_BENCH_CONNECTIONS'),
    1,
    { 'x-warden-tenant': TENANT },
  )
  process.stdout.write(`result ${JSON.stringify(result)}\n`)
}

/** Starts this file in a child process with a role; resolves with what it prints. */
function child(env: Record<string, string>, pattern: RegExp): Promise<{ line: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', SELF], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    proc.stdout?.on('data', (d) => {
      out += d
      const match = pattern.exec(out)
      if (match?.[1]) resolve({ line: match[1], proc })
    })
    proc.on('exit', (code) => reject(new Error(`${env.AOS_BENCH_ROLE} exited with ${code}`)))
  })
}

interface Server {
  url: string
  proc: ChildProcess
}

async function start(which: 'warden' | 'bare', answer = ''): Promise<Server> {
  const { line, proc } = await child({ AOS_BENCH_ROLE: which, AOS_BENCH_ANSWER: answer }, /ready (\S+)\n/)
  return { url: line, proc }
}

async function paced(url: string, rate: number): Promise<Load> {
  const { line } = await child(
    {
      AOS_BENCH_ROLE: 'load',
      AOS_BENCH_URL: url,
      AOS_BENCH_RATE: String(Math.floor(rate)),
      AOS_BENCH_RUN_SECONDS: String(DURATION_S),
      AOS_BENCH_CONNECTIONS: String(PACED_CONNECTIONS),
    },
    /result (\{.*\})\n/,
  )
  return JSON.parse(line) as Load
}

async function saturate(url: string, seconds: number, connections = CONNECTIONS): Promise<Load> {
  const result = await autocannon()({
    url: `${url}/aos`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-warden-tenant': TENANT },
    body: BODY,
    connections,
    duration: seconds,
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

interface Stats {
  us: number
  mainUs: number
  loop: { p50: number; p99: number; max: number }
}

async function stats(server: Server): Promise<Stats> {
  return (await (await fetch(`${server.url}/stats`)).json()) as Stats
}

/** Runs `load` against a server; returns its figures and the server's CPU us per request. */
async function measured(
  server: Server,
  load: () => Promise<Load>,
  seconds: number,
): Promise<Load & { cpu: number; mainCpu: number; loop: Stats['loop'] }> {
  const before = await stats(server)
  const result = await load()
  const after = await stats(server)
  const requests = Math.max(1, result.rps * seconds)
  return {
    ...result,
    cpu: (after.us - before.us) / requests,
    mainCpu: (after.mainUs - before.mainUs) / requests,
    loop: after.loop,
  }
}

/**
 * Warden's CPU time per request over bare's, with both servers loaded at once (each by its
 * own autocannon): whatever else the machine does then hits both in the same seconds, so
 * this ratio moves far less from run to run than the throughputs measured one after the
 * other. The median of the rounds.
 */
async function pairedCpuRatio(warden: Server, bare: Server): Promise<number> {
  const ratios: number[] = []
  const loaded = (server: Server) =>
    measured(server, () => saturate(server.url, PAIRED_SECONDS, CONNECTIONS / 2), PAIRED_SECONDS)
  for (let round = 0; round < PAIRED_ROUNDS; round++) {
    const [ofWarden, ofBare] = await Promise.all([loaded(warden), loaded(bare)])
    ratios.push(ofWarden.cpu / ofBare.cpu)
  }
  return quantile(ratios, 0.5)
}

/** The benchmark: max throughput, paired CPU, then p99 at half of Warden's own maximum. */
export default async function aosServerBench(): Promise<BenchResult[]> {
  const warden = await start('warden')
  let bare: Server | undefined
  try {
    const check = await fetch(`${warden.url}/aos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-warden-tenant': TENANT },
      body: BODY,
    })
    const text = await check.text()
    const answer = JSON.parse(text) as {
      result?: { decision?: string; data?: { trace?: { hook: string; outcome: string }[] } }
    }
    const trace = answer.result?.data?.trace ?? []
    if (
      answer.result?.decision !== 'allow' ||
      trace.length !== 7 ||
      trace.some((t) => t.outcome === 'skipped' || t.hook === 'globex-deny')
    ) {
      throw new Error(`the Warden under test did not run its 7 hooks (and only them): ${text.slice(0, 300)}`)
    }
    bare = await start('bare', text)
    const bareServer = bare
    await saturate(bareServer.url, 2)
    await saturate(warden.url, 2)
    const bareMaxRounds: (Load & { cpu: number; mainCpu: number })[] = []
    const wardenMaxRounds: (Load & { cpu: number; mainCpu: number })[] = []
    for (let round = 0; round < MAX_ROUNDS; round++) {
      bareMaxRounds.push(await measured(bareServer, () => saturate(bareServer.url, MAX_SECONDS), MAX_SECONDS))
      wardenMaxRounds.push(await measured(warden, () => saturate(warden.url, MAX_SECONDS), MAX_SECONDS))
    }
    const fastest = <T extends Load>(rounds: T[]) => rounds.reduce((a, b) => (b.rps > a.rps ? b : a))
    const cpuRatio = await pairedCpuRatio(warden, bareServer)
    const bareMax = fastest(bareMaxRounds)
    const wardenMax = fastest(wardenMaxRounds)
    const rate = wardenMax.rps / 2
    type Paced = Load & { loop: Stats['loop'] }
    const pacedRound = (server: Server) => measured(server, () => paced(server.url, rate), DURATION_S)
    const bareRounds: Paced[] = []
    const wardenRounds: Paced[] = []
    for (let round = 0; round < ROUNDS; round++) {
      bareRounds.push(await pacedRound(bareServer))
      wardenRounds.push(await pacedRound(warden))
    }
    const best = (rounds: Paced[]) => rounds.reduce((a, b) => (b.p99 < a.p99 ? b : a))
    const bareAtHalf = best(bareRounds)
    const wardenAtHalf = best(wardenRounds)
    const ratio = wardenMax.rps / bareMax.rps
    const tail = wardenAtHalf.p99 / Math.max(bareAtHalf.p99, 0.001)
    const range = (rounds: Load[]) => rounds.map((r) => r.p99.toFixed(2)).join('/')
    const rates = (rounds: Load[]) => rounds.map((r) => Math.round(r.rps)).join('/')
    const loop = (l: Stats['loop']) => `p50 ${l.p50} / p99 ${l.p99} / max ${l.max}`
    return [
      {
        name: `POST /aos toolCallRequest, 7 fn/CEL hooks, front door, in-flight limits, ${AUDIT ? 'SQLite audit' : 'audit off'}, a tenant: max throughput vs bare node:http answering the same ${text.length} bytes (autocannon, best of ${MAX_ROUNDS} rounds of ${MAX_SECONDS} s)`,
        value: wardenMax.rps,
        baseline: bareMax.rps,
        unit: 'req/s',
        goal: 'ratio >= 0.85',
        pass: ratio >= 0.85 && wardenMax.errors === 0,
        extra: {
          connections: CONNECTIONS,
          'req/s per round': rates(wardenMaxRounds),
          'bare req/s per round': rates(bareMaxRounds),
          'p99 ms': wardenMax.p99,
          'bare p99 ms': bareMax.p99,
          errors: wardenMax.errors,
        },
      },
      {
        name: `the same, CPU time per request with both servers loaded at once (median of ${PAIRED_ROUNDS} rounds)`,
        value: cpuRatio,
        baseline: 1,
        unit: 'x of bare',
        goal: 'ratio <= 1.2',
        pass: cpuRatio <= 1.2,
        extra: {
          'server CPU us/req (alone)': wardenMax.cpu,
          'of it, main thread': wardenMax.mainCpu,
          'bare CPU us/req (alone)': bareMax.cpu,
          audit: AUDIT ? 'SQLite (its writer thread counts in the server CPU)' : 'off',
        },
      },
      {
        name: `p99 latency at half of Warden's max rate (${Math.round(rate)} req/s, paced, ${PACED_CONNECTIONS} connections, best of ${ROUNDS}) vs bare's p99 at the same rate`,
        value: wardenAtHalf.p99,
        baseline: bareAtHalf.p99,
        unit: 'ms',
        goal: 'ratio <= 1.5',
        pass: tail <= 1.5 && wardenAtHalf.errors === 0,
        extra: {
          'achieved req/s': wardenAtHalf.rps,
          'p50 ms': wardenAtHalf.p50,
          'bare p50 ms': bareAtHalf.p50,
          'p99 per round': range(wardenRounds),
          'bare p99 per round': range(bareRounds),
          'event-loop delay ms': loop(wardenAtHalf.loop),
          'bare event-loop delay ms': loop(bareAtHalf.loop),
          errors: wardenAtHalf.errors,
        },
      },
    ]
  } finally {
    bare?.proc.kill('SIGTERM')
    warden.proc.kill('SIGTERM')
  }
}
