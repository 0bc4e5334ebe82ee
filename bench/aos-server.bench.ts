// POST /aos steps/toolCallRequest through a 7-hook stack of fn and CEL hooks (no processes),
// against a bare Fastify server that parses the same body and answers a fixed allow,
// measured in the same run. Each server runs in its own child process (this same file,
// started with AOS_BENCH_ROLE), and so does the load:
// - maximum throughput: autocannon, 32 connections, each sending as fast as it is answered;
// - p99 at half of bare's maximum: an open-loop generator (role "load") that sends at a
//   steady pace, spread over every millisecond. autocannon's own rate limit lets each
//   connection send its whole per-second quota back to back and then idle, so at "half
//   rate" both servers see bursts at full speed and the p99 measures the bursts.
// Each phase runs interleaved rounds on both servers and keeps each one's best, so noise
// from the machine hits both alike; both servers also report their CPU time per request,
// and a paired phase loads both at once to compare their CPU time per request.
// Goals: throughput >= 0.6x of bare; p99 <= 5 ms at half of bare's maximum rate.

import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import { type BenchResult, quantile } from './lib.js'

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
/**
 * Seconds the paced generator runs at its rate before it counts: its own code is compiled
 * by then. Without it, the first requests wait on the generator's warm-up, and at a few
 * thousand requests per second those alone decide the p99.
 */
const WARMUP_S = 1
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

/** `GET /cpu`: the server process's CPU time so far, in microseconds. */
function cpuRoute(app: FastifyInstance): void {
  app.get('/cpu', async () => {
    const { user, system } = process.cpuUsage()
    return { us: user + system }
  })
}

/** Warden runs the compiled package (dist/), as `warden serve` does; `npm run bench` builds it. */
async function serveWarden(): Promise<string> {
  const { createEngine } = await import('../dist/index.js')
  const { createServer, listen } = await import('../dist/server/index.js')
  const allow = () => ({ decision: 'allow' })
  const fn = (f: () => unknown) => ({ type: 'fn', fn: f })
  const engine = createEngine({
    hooks: [
      { name: 'audit-all', event: 'tool.pre', priority: 1, handler: fn(allow) },
      {
        name: 'sms-or-exec',
        event: 'tool.pre',
        matcher: '^(send_sms|exec)$',
        priority: 2,
        handler: fn(allow),
      },
      { name: 'sms-only', event: 'tool.pre', if: "tool_name == 'send_sms'", priority: 3, handler: fn(allow) },
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
      { name: 'no-opinion', event: 'tool.pre', priority: 7, handler: fn(() => undefined) },
    ],
  })
  const app = await createServer({ engine, plugins: [cpuRoute] })
  return listen(app, { port: 0 })
}

async function serveBare(): Promise<string> {
  const app = Fastify({ logger: false })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  app.post('/aos', async (request, reply) => {
    const parsed = JSON.parse((request.body as Buffer).toString('utf8')) as { id: string }
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .send(
        JSON.stringify({ jsonrpc: '2.0', id: parsed.id, result: { decision: 'allow', message: 'allowed' } }),
      )
  })
  cpuRoute(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

interface Load {
  rps: number
  p50: number
  p99: number
  errors: number
}

/**
 * Open-loop load: every millisecond, sends the requests due by then at `rate` per second,
 * each on an idle keep-alive connection. A request's latency runs from the moment it was
 * due to its complete response, so waiting for a connection counts too.
 */
async function pacedLoad(url: string, rate: number, seconds: number, connections: number): Promise<Load> {
  const target = new URL(url)
  const wire = Buffer.from(
    `POST /aos HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`,
  )
  const latencies: number[] = []
  /** Requests due before this moment warm the generator up and are not counted. */
  let countFrom = Number.POSITIVE_INFINITY
  const due: number[] = []
  let next = 0
  let errors = 0
  let outstanding = 0
  interface Conn {
    socket: Socket
    since: number
    buffer: Buffer
  }
  const idle: Conn[] = []
  const send = (conn: Conn) => {
    conn.since = due[next++] as number
    outstanding++
    conn.socket.write(wire)
  }
  const onData = (conn: Conn, chunk: Buffer) => {
    conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk])
    for (;;) {
      const end = conn.buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = conn.buffer.toString('latin1', 0, end)
      const size = end + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      if (conn.buffer.length < size) return
      if (!head.startsWith('HTTP/1.1 200')) errors++
      else if (conn.since >= countFrom) latencies.push(performance.now() - conn.since)
      conn.buffer = conn.buffer.subarray(size)
      outstanding--
      if (next < due.length) send(conn)
      else idle.push(conn)
    }
  }
  const conns = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<Conn>((resolve, reject) => {
          const socket = connect(Number(target.port), target.hostname, () => resolve(conn))
          const conn: Conn = { socket, since: 0, buffer: Buffer.alloc(0) }
          socket.setNoDelay(true)
          socket.on('error', reject)
          socket.on('data', (chunk: Buffer) => onData(conn, chunk))
        }),
    ),
  )
  idle.push(...conns)
  const start = performance.now()
  countFrom = start + WARMUP_S * 1000
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now()
      if (now - start >= (WARMUP_S + seconds) * 1000) {
        clearInterval(timer)
        resolve()
        return
      }
      const count = Math.floor(((now - start) / 1000) * rate) - due.length
      for (let i = 0; i < count; i++) due.push(now)
      while (next < due.length && idle.length > 0) send(idle.pop() as Conn)
    }, 1)
  })
  const deadline = performance.now() + 5000
  while ((outstanding > 0 || next < due.length) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  errors += outstanding + (due.length - next)
  for (const conn of conns) conn.socket.destroy()
  return {
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    errors,
  }
}

const role = process.env.AOS_BENCH_ROLE
if (role === 'warden' || role === 'bare') {
  const url = await (role === 'warden' ? serveWarden() : serveBare())
  process.stdout.write(`ready ${url}\n`)
} else if (role === 'load') {
  const env = (name: string) => Number(process.env[name])
  const result = await pacedLoad(
    String(process.env.AOS_BENCH_URL),
    env('AOS_BENCH_RATE'),
    env('AOS_BENCH_RUN_SECONDS'),
    env('AOS_BENCH_CONNECTIONS'),
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

async function start(which: 'warden' | 'bare'): Promise<Server> {
  const { line, proc } = await child({ AOS_BENCH_ROLE: which }, /ready (\S+)\n/)
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
    headers: { 'content-type': 'application/json' },
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

async function cpuUs(server: Server): Promise<number> {
  return ((await (await fetch(`${server.url}/cpu`)).json()) as { us: number }).us
}

/** Runs `load` against a server; returns its figures and the server's CPU us per request. */
async function measured(
  server: Server,
  load: () => Promise<Load>,
  seconds: number,
): Promise<Load & { cpu: number }> {
  const before = await cpuUs(server)
  const result = await load()
  const cpu = (await cpuUs(server)) - before
  return { ...result, cpu: cpu / Math.max(1, result.rps * seconds) }
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

/** The benchmark: max throughput of both servers, then p99 at half of bare's maximum. */
export default async function aosServerBench(): Promise<BenchResult[]> {
  const bare = await start('bare')
  const warden = await start('warden')
  try {
    const check = await fetch(`${warden.url}/aos`, { method: 'POST', body: BODY })
    const answer = (await check.json()) as {
      result?: { decision?: string; data?: { trace?: { outcome: string }[] } }
    }
    const trace = answer.result?.data?.trace ?? []
    if (
      answer.result?.decision !== 'allow' ||
      trace.length !== 7 ||
      trace.some((t) => t.outcome === 'skipped')
    ) {
      throw new Error(
        `the Warden under test did not run its 7 hooks: ${JSON.stringify(answer).slice(0, 300)}`,
      )
    }
    await saturate(bare.url, 2)
    await saturate(warden.url, 2)
    const bareMaxRounds: (Load & { cpu: number })[] = []
    const wardenMaxRounds: (Load & { cpu: number })[] = []
    for (let round = 0; round < MAX_ROUNDS; round++) {
      bareMaxRounds.push(await measured(bare, () => saturate(bare.url, MAX_SECONDS), MAX_SECONDS))
      wardenMaxRounds.push(await measured(warden, () => saturate(warden.url, MAX_SECONDS), MAX_SECONDS))
    }
    const fastest = <T extends Load>(rounds: T[]) => rounds.reduce((a, b) => (b.rps > a.rps ? b : a))
    const cpuRatio = await pairedCpuRatio(warden, bare)
    const bareMax = fastest(bareMaxRounds)
    const wardenMax = fastest(wardenMaxRounds)
    const rate = bareMax.rps / 2
    const bareRounds: Load[] = []
    const wardenRounds: Load[] = []
    for (let round = 0; round < ROUNDS; round++) {
      bareRounds.push(await paced(bare.url, rate))
      wardenRounds.push(await paced(warden.url, rate))
    }
    const best = (rounds: Load[]) => rounds.reduce((a, b) => (b.p99 < a.p99 ? b : a))
    const bareAtHalf = best(bareRounds)
    const wardenAtHalf = best(wardenRounds)
    const ratio = wardenMax.rps / bareMax.rps
    const range = (rounds: Load[]) => rounds.map((r) => r.p99.toFixed(2)).join('/')
    const rates = (rounds: Load[]) => rounds.map((r) => Math.round(r.rps)).join('/')
    return [
      {
        name: `POST /aos toolCallRequest, 7 fn/CEL hooks: max throughput vs bare Fastify (autocannon, best of ${MAX_ROUNDS} rounds of ${MAX_SECONDS} s)`,
        value: wardenMax.rps,
        baseline: bareMax.rps,
        unit: 'req/s',
        goal: 'ratio >= 0.6',
        pass: ratio >= 0.6 && wardenMax.errors === 0,
        extra: {
          connections: CONNECTIONS,
          'req/s per round': rates(wardenMaxRounds),
          'bare req/s per round': rates(bareMaxRounds),
          'CPU per request vs bare, both loaded at once (median)': cpuRatio.toFixed(2),
          'server CPU us/req': wardenMax.cpu,
          'bare CPU us/req': bareMax.cpu,
          'p99 ms': wardenMax.p99,
          'bare p99 ms': bareMax.p99,
          errors: wardenMax.errors,
        },
      },
      {
        name: `p99 latency at half of bare's max rate (${Math.round(rate)} req/s, paced, ${PACED_CONNECTIONS} connections, best of ${ROUNDS})`,
        value: wardenAtHalf.p99,
        baseline: bareAtHalf.p99,
        unit: 'ms',
        goal: 'p99 <= 5 ms',
        pass: wardenAtHalf.p99 <= 5 && wardenAtHalf.errors === 0,
        extra: {
          'achieved req/s': wardenAtHalf.rps,
          'p50 ms': wardenAtHalf.p50,
          'bare p50 ms': bareAtHalf.p50,
          'p99 per round': range(wardenRounds),
          'bare p99 per round': range(bareRounds),
          errors: wardenAtHalf.errors,
        },
      },
    ]
  } finally {
    bare.proc.kill('SIGTERM')
    warden.proc.kill('SIGTERM')
  }
}
