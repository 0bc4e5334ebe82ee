// ACS `steps/toolCallRequest` with signing on (request HMAC verified over RFC 8785 JSON,
// replay memory, timestamp window, session chain entry, signed response) against an
// unsigned AOS `steps/toolCallRequest` through the same engine and hooks, same run, two ways:
// - over HTTP: one Warden server in a child process (this file, ACS_BENCH_ROLE=server)
//   serving both /aos and /acs, loaded by autocannon from this process with 32 keep-alive
//   connections. Replay protection needs a new request id, nonce and signature per request,
//   so a pool of distinct signed bodies is made before each round (signing is the agent's
//   cost) and fed one per request through autocannon's `setupRequest`; AOS goes through the
//   same callback with its one body, so the generator does the same work for both. Every
//   answer is checked to be an allow decision. The server reports its CPU time, so the
//   figures say whether the server (not the generator) was the bottleneck. The server runs the
//   compiled package (dist/, built by `npm run bench`), as `warden serve` does.
// - in process: each service's answer to a body (from src/), which shows the protocol work alone.
// Rounds are interleaved and each side keeps its best. Goal (HTTP): ACS >= 0.8x of AOS.
// On a database: the same signed load on two servers with a SQLite ledger, one keeping the
// sessions' state (handshakes, Intents, ASKs, deferrals) in the database as a cluster does,
// the other in its memory as a single instance did before; goal: the shared state costs no
// more than 10% (>= 0.9x). Beside it, one server on PostgreSQL (the cluster's store), when
// one can be started (informational).

import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import type { JsonObject } from '../src/core/index.js'
import { createEngine } from '../src/index.js'
import {
  type AcsLedger,
  acsRequest,
  clientHello,
  createAcsService,
  deriveSessionKey,
  settingsWith,
  signMessage,
} from '../src/protocols/acs/index.js'
import { createAosService } from '../src/protocols/aos/index.js'
import { type PostgresServer, startPostgres } from '../test/setup/postgres.js'
import type { BenchResult } from './lib.js'

/** Requests per HTTP round (each ACS one a distinct signed body), rounds, connections. */
const HTTP_REQUESTS = Number(process.env.ACS_BENCH_HTTP_REQUESTS ?? 30_000)
const HTTP_ROUNDS = Number(process.env.ACS_BENCH_HTTP_ROUNDS ?? 4)
const CONNECTIONS = 32
/** Sessions the ACS pool is spread over (each handshaked, each with its own chain). */
const SESSIONS = 4
const REQUESTS = Number(process.env.ACS_BENCH_REQUESTS ?? 4000)
const ROUNDS = Number(process.env.ACS_BENCH_ROUNDS ?? 5)
const IN_FLIGHT = 16
const KEY = { id: 'k1', material: Buffer.from('bench key material of the deployment') }

const HOOKS = [
  {
    name: 'no-rm',
    event: 'tool.pre',
    if: "tool_input.content.contains('rm -rf')",
    handler: { type: 'fn' as const, fn: () => ({ decision: 'deny', reason: 'no' }) },
  },
  {
    name: 'sms-ok',
    event: 'tool.pre',
    matcher: 'send_sms',
    handler: { type: 'fn' as const, fn: () => ({ decision: 'allow' }) },
  },
  {
    name: 'audit-tag',
    event: 'tool.pre',
    handler: { type: 'fn' as const, fn: () => ({ decision: 'allow', additionalContext: ['checked'] }) },
  },
]

const AOS_BODY = Buffer.from(
  JSON.stringify({
    jsonrpc: '2.0',
    id: 'bench-1',
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: {
        executionId: 'exec-1',
        toolId: 'send_sms',
        inputs: [
          { name: 'phone_number', value: '+1-555-0100' },
          { name: 'content', value: 'Urgent security alert: a new sign-in to your account.' },
        ],
      },
      context: {
        agent: { id: 'agent-1', tools: [{ id: 'send_sms', name: 'send_sms' }] },
        session: { id: 'session-1' },
      },
    },
  }),
)

const PAYLOAD: JsonObject = {
  tool: { id: 'send_sms' },
  arguments: {
    phone_number: { value: '+1-555-0100' },
    content: { value: 'Urgent security alert: a new sign-in to your account.' },
  },
}

/** `count` distinct signed bodies spread over the sessions (the key derived once per session). */
function acsBodies(sessionIds: string[], count: number): Buffer[] {
  const keys = sessionIds.map((id) => deriveSessionKey(KEY.material, id))
  return Array.from({ length: count }, (_, i) => {
    const s = i % sessionIds.length
    const message = acsRequest('steps/toolCallRequest', PAYLOAD, {
      sessionId: sessionIds[s] as string,
      nonce: true,
    })
    signMessage(message, 'params', keys[s] as Buffer, KEY.id)
    return Buffer.from(JSON.stringify(message))
  })
}

const SELF = fileURLToPath(import.meta.url)

/** `GET /stats`: the server process's CPU time so far, in µs. */
async function statsRoute(app: FastifyInstance): Promise<void> {
  app.get('/stats', async () => {
    const { user, system } = process.cpuUsage()
    return { us: user + system }
  })
}

/**
 * Replay memory for every id of the run: each ACS request leaves its request id and nonce for
 * twice the skew window (10 minutes), so the default 200 000 ids fill during the fourth
 * default round (5 000 + 3 x 30 000 requests = 190 000 ids) and the rest of it is refused
 * -32603, as the ledger must rather than forget an id still in the window.
 */
const REPLAY_IDS = 4 * (HTTP_ROUNDS + 1) * HTTP_REQUESTS

/**
 * The server's ledger: in memory, or on the database ACS_BENCH_DB names (a SQLite file or a
 * postgres:// URL, migrated here) with the sessions' state there too, or (ACS_BENCH_STATE=memory)
 * in this process's memory as a single instance kept it.
 */
async function benchLedger(server: ServerModules): Promise<AcsLedger> {
  const location = process.env.ACS_BENCH_DB
  if (!location) return server.acs.createMemoryLedger({ maxKeys: Math.max(200_000, REPLAY_IDS) })
  await (await server.store.openStore(location, { cwd: process.cwd() })).close()
  const ledger = server.server.openAcsLedger(location)
  if (process.env.ACS_BENCH_STATE !== 'memory') return ledger
  const { sessions: _kept, ...withoutSessions } = ledger
  return withoutSessions
}

/**
 * The server runs the compiled package (dist/), as `warden serve` does (`npm run bench`
 * builds it); ACS_BENCH_SOURCE=1 runs it from src/ through tsx instead.
 */
interface ServerModules {
  engine: typeof import('../src/index.js')
  acs: typeof import('../src/protocols/acs/index.js')
  server: typeof import('../src/server/index.js')
  store: typeof import('../src/store/index.js')
}

async function serverModules(): Promise<ServerModules> {
  const root = new URL(process.env.ACS_BENCH_SOURCE === '1' ? '../src/' : '../dist/', import.meta.url).href
  const load = (path: string) => import(`${root}${path}`)
  return {
    engine: await load('index.js'),
    acs: await load('protocols/acs/index.js'),
    server: await load('server/index.js'),
    store: await load('store/index.js'),
  }
}

async function serve(): Promise<void> {
  const modules = await serverModules()
  const engine = modules.engine.createEngine({ hooks: HOOKS })
  const app = await modules.server.createServer({
    engine,
    acs: { settings: modules.acs.settingsWith({ keys: [{ ...KEY }] }), ledger: await benchLedger(modules) },
    plugins: [statsRoute],
  })
  process.stdout.write(`${await modules.server.listen(app, { port: 0, host: '127.0.0.1' })}\n`)
}

if (process.env.ACS_BENCH_ROLE === 'server') await serve()

/** Starts the server child (`env` picks its ledger); resolves with its URL and a stop function. */
function startServer(env: Record<string, string> = {}): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF], {
    env: { ...process.env, ...env, ACS_BENCH_ROLE: 'server' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve({ url: d.toString().trim(), stop: () => child.kill() }))
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)))
  })
}

/** The part of autocannon's result read here (the package ships no types). */
interface AutocannonResult {
  requests: { total: number }
  errors: number
  non2xx: number
}
const autocannon = () =>
  createRequire(import.meta.url)('autocannon') as (
    options: Record<string, unknown>,
  ) => Promise<AutocannonResult>

/** One HTTP round's figures: throughput and the server's CPU per request. */
interface Round {
  rps: number
  cpuUs: number
}

/** Sends every body once (in order, over the connections); fails on any answer but allow. */
async function load(url: string, path: string, bodies: (i: number) => Buffer, count: number): Promise<Round> {
  const cpu = async () => ((await (await fetch(`${url}/stats`)).json()) as { us: number }).us
  let next = 0
  let refused = 0
  let firstRefused: string | undefined
  // autocannon's own duration ends on a one-second tick; time the first send to the last answer.
  let first = 0
  let last = 0
  const before = await cpu()
  const result = await autocannon()({
    url: `${url}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    amount: count,
    // A loaded machine can hold an answer for seconds; an unanswered request still fails the round.
    timeout: 60,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => {
          if (next === 0) first = performance.now()
          return { ...request, body: bodies(next++) }
        },
        onResponse: (status: number, body: string) => {
          last = performance.now()
          if (status !== 200 || !body.includes('"decision":"allow"')) {
            refused++
            firstRefused ??= `HTTP ${status} ${body.slice(0, 400)}`
          }
        },
      },
    ],
  })
  const cpuUs = ((await cpu()) - before) / result.requests.total
  if (refused > 0 || result.errors > 0 || result.non2xx > 0 || result.requests.total < count) {
    throw new Error(
      `${path}: ${refused} answers were not allow, ${result.errors} errors, ${result.requests.total}/${count} answered${firstRefused ? `; the first refused: ${firstRefused}` : ''}`,
    )
  }
  return { rps: result.requests.total / ((last - first) / 1000), cpuUs }
}

/** Handshakes a session on the server at `url`; fails unless it is negotiated. */
async function hello(url: string, sessionId: string): Promise<void> {
  const answer = await fetch(`${url}/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(clientHello(sessionId, {}, { key: KEY })),
  })
  const text = await answer.text()
  if (!text.includes('"negotiated_version"')) throw new Error(`handshake/hello failed: ${text.slice(0, 300)}`)
}

/** One round of `count` distinct signed requests over new sessions on the server at `url`. */
async function acsRound(url: string, count: number): Promise<Round> {
  const sessionIds = Array.from({ length: SESSIONS }, () => randomUUID())
  for (const id of sessionIds) await hello(url, id)
  const signed = acsBodies(sessionIds, count)
  return load(url, '/acs', (i) => signed[i] as Buffer, count)
}

/** Requests per round and rounds on the database servers (each a SQLite or PostgreSQL write path). */
const SQL_REQUESTS = Number(process.env.ACS_BENCH_SQL_REQUESTS ?? 6000)
const SQL_ROUNDS = Number(process.env.ACS_BENCH_SQL_ROUNDS ?? 3)

/**
 * The signed load on a SQLite ledger with the sessions' state in the database and in memory,
 * rounds interleaved, and on PostgreSQL when a server can be started.
 */
async function onDatabases(): Promise<{ shared: Round[]; local: Round[]; postgres: Round[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-acs-bench-'))
  const servers: { stop: () => void }[] = []
  let postgres: PostgresServer | undefined
  try {
    const shared = await startServer({ ACS_BENCH_DB: join(dir, 'shared.db') })
    const local = await startServer({ ACS_BENCH_DB: join(dir, 'local.db'), ACS_BENCH_STATE: 'memory' })
    servers.push(shared, local)
    postgres = await startPostgres().catch(() => undefined)
    const onPostgres = postgres ? await startServer({ ACS_BENCH_DB: postgres.url }) : undefined
    if (onPostgres) servers.push(onPostgres)
    const rounds = { shared: [] as Round[], local: [] as Round[], postgres: [] as Round[] }
    for (let round = -1; round < SQL_ROUNDS; round++) {
      const count = round < 0 ? Math.min(1000, SQL_REQUESTS) : SQL_REQUESTS
      const measured = {
        local: await acsRound(local.url, count),
        shared: await acsRound(shared.url, count),
        postgres: onPostgres ? await acsRound(onPostgres.url, count) : undefined,
      }
      if (round < 0) continue
      rounds.local.push(measured.local)
      rounds.shared.push(measured.shared)
      if (measured.postgres) rounds.postgres.push(measured.postgres)
    }
    return rounds
  } finally {
    for (const server of servers) server.stop()
    await postgres?.stop().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}

async function overHttp(): Promise<{ aos: Round[]; acs: Round[] }> {
  const server = await startServer()
  try {
    const rounds = { aos: [] as Round[], acs: [] as Round[] }
    for (let round = -1; round < HTTP_ROUNDS; round++) {
      const count = round < 0 ? Math.min(5000, HTTP_REQUESTS) : HTTP_REQUESTS
      const aos = await load(server.url, '/aos', () => AOS_BODY, count)
      const acs = await acsRound(server.url, count)
      // Round -1 warms both paths up and is not counted.
      if (round >= 0) {
        rounds.aos.push(aos)
        rounds.acs.push(acs)
      }
    }
    return rounds
  } finally {
    server.stop()
  }
}

/** Requests per second answering `bodies` with `IN_FLIGHT` outstanding; fails on any non-decision. */
async function throughput(bodies: Buffer[], answer: (body: Buffer) => Promise<unknown>): Promise<number> {
  let next = 0
  const start = process.hrtime.bigint()
  async function worker(): Promise<void> {
    while (next < bodies.length) {
      const reply = (await answer(bodies[next++] as Buffer)) as { result?: { decision?: string } }
      if (reply?.result?.decision !== 'allow')
        throw new Error(`unexpected answer: ${JSON.stringify(reply).slice(0, 300)}`)
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return bodies.length / (Number(process.hrtime.bigint() - start) / 1e9)
}

async function inProcess(): Promise<{ aos: number; acs: number }> {
  const engine = createEngine({ hooks: HOOKS })
  const aos = createAosService({ engine })
  const acs = createAcsService({ engine, settings: settingsWith({ keys: [{ ...KEY }] }) })
  let best = { aos: 0, acs: 0 }
  for (let round = 0; round < ROUNDS; round++) {
    const sessionId = randomUUID()
    await acs.handle(clientHello(sessionId, {}, { key: KEY }))
    const signed = acsBodies([sessionId], REQUESTS)
    const aosBodies = Array.from({ length: REQUESTS }, () => AOS_BODY)
    const aosRate = await throughput(aosBodies, (b) => aos.handleBody(b, {}))
    const acsRate = await throughput(signed, async (b) => acs.answerBody(b))
    best = { aos: Math.max(best.aos, aosRate), acs: Math.max(best.acs, acsRate) }
  }
  await engine.close()
  return best
}

export default async function bench(): Promise<BenchResult[]> {
  const http = await overHttp()
  const local = await inProcess()
  const databases = await onDatabases()
  const best = (rounds: Round[]) => rounds.reduce((a, b) => (b.rps > a.rps ? b : a))
  const aos = best(http.aos)
  const acs = best(http.acs)
  const httpRatio = acs.rps / aos.rps
  const rates = (rounds: Round[]) => rounds.map((r) => Math.round(r.rps)).join('/')
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
  const cpu = (rounds: Round[]) => median(rounds.map((r) => r.cpuUs))
  const ratio = local.acs / local.aos
  const sqlite = { shared: best(databases.shared), local: best(databases.local) }
  const sqliteRatio = sqlite.shared.rps / sqlite.local.rps
  if (sqliteRatio < 0.9) {
    process.stdout.write(
      `MISS: on SQLite, ACS with the sessions' state in the database reached ${sqliteRatio.toFixed(2)}x of it in memory; the goal is >= 0.9x\n`,
    )
  }
  if (httpRatio < 0.8) {
    process.stdout.write(
      `MISS: ACS over HTTP reached ${httpRatio.toFixed(2)}x of AOS throughput; the goal is >= 0.8x\n`,
    )
  }
  return [
    {
      name: `HTTP: ACS toolCallRequest signed+verified+chained vs unsigned AOS, same hooks (autocannon, ${CONNECTIONS} connections, best of ${HTTP_ROUNDS} rounds of ${HTTP_REQUESTS} distinct requests)`,
      value: Math.round(acs.rps),
      baseline: Math.round(aos.rps),
      unit: 'req/s',
      goal: 'ratio >= 0.8',
      pass: httpRatio >= 0.8,
      extra: {
        ratio: Math.round(httpRatio * 100) / 100,
        'ACS req/s per round': rates(http.acs),
        'AOS req/s per round': rates(http.aos),
        'server CPU us/req ACS': cpu(http.acs),
        'server CPU us/req AOS': cpu(http.aos),
      },
    },
    {
      name: `SQLite ledger: ACS with the sessions' state in the database (shared, as a cluster keeps it) vs in memory (one instance), best of ${SQL_ROUNDS} rounds of ${SQL_REQUESTS}; PostgreSQL beside it`,
      value: Math.round(sqlite.shared.rps),
      baseline: Math.round(sqlite.local.rps),
      unit: 'req/s',
      goal: 'ratio >= 0.9',
      pass: sqliteRatio >= 0.9,
      extra: {
        ratio: Math.round(sqliteRatio * 100) / 100,
        'shared req/s per round': rates(databases.shared),
        'in-memory req/s per round': rates(databases.local),
        'server CPU us/req shared': cpu(databases.shared),
        'server CPU us/req in memory': cpu(databases.local),
        'PostgreSQL (cluster store) req/s':
          databases.postgres.length > 0 ? Math.round(best(databases.postgres).rps) : 'no PostgreSQL server',
      },
    },
    {
      name: 'in process (protocol work alone, informational): ACS vs AOS, each service answering a body (req/s)',
      value: Math.round(local.acs),
      baseline: Math.round(local.aos),
      unit: 'req/s',
      goal: 'none (informational)',
      pass: true,
      extra: { ratio: Math.round(ratio * 100) / 100 },
    },
  ]
}
