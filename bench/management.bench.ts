// The management plane of `warden serve` (the compiled package, `node bin/warden.js serve`,
// one process on a temporary SQLite file, audit on), measured in two ways:
// - POST /aos maximum throughput with 20 real `/ws` clients subscribed to `decision` against
//   the same server with none, in alternating rounds (ABBA order) of autocannon with the
//   same body, connections and duration, keeping each side's best round. The subscribers
//   run in their own child process (bench/ws-subscribers.ts) so that
//   the load generator's event loop does not also read their pushes; each counts the
//   `decision` pushes it receives, and a round where a subscriber got none fails the run.
//   The server's CPU time per request (from /proc) is shown beside it for both sides: it is
//   the server's own cost, whatever else the machine's cores are doing.
// - The time from sending `approvals.resolve` (approve) over `/ws` to the arrival of the
//   `/aos` answer the approval held, against a plain `/ws` round trip (`server.info`) on the
//   same connection, the two alternating request by request.
// Goals: throughput with 20 subscribers >= 0.9x of none; approval release p50 <= 5 ms.
// Only this one: `npm run bench -- management`. MGMT_BENCH_SECONDS sets the seconds of a
// throughput round (default 3), MGMT_BENCH_APPROVALS the approvals measured (default 200).

import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BenchResult, quantile, type ServedWarden, serveCompiledWarden } from './lib.js'
import { WsClient, within } from './ws-client.js'
import { SUBSCRIBERS, type Subscribers, startSubscribers } from './ws-subscribers.js'

/** The part of autocannon's result this benchmark reads (the package ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number }
  errors: number
  non2xx: number
}
/** autocannon, loaded only where it runs (not in the subscribers' child). */
const autocannon = () =>
  createRequire(import.meta.url)('autocannon') as (
    options: Record<string, unknown>,
  ) => Promise<AutocannonResult>

/** Seconds of each throughput round. */
const ROUND_SECONDS = Number(process.env.MGMT_BENCH_SECONDS ?? 3)
/** Rounds per side, alternating; the best of each side counts. */
const ROUNDS = 4
const WARMUP_SECONDS = 2
const CONNECTIONS = 32
/** Approvals measured (after a tenth as many not counted, to warm up). */
const APPROVALS = Number(process.env.MGMT_BENCH_APPROVALS ?? 200)

/** A cheap stack: a static deny skipped by its matcher, CEL-gated deny and allow, an ask for transfers. */
const CONFIG = `
limits: { approvalTimeoutMs: 600000 }
# One approver connection sends a resolve and a server.info per approval, faster than the
# default 50 requests per second.
management: { requestsPerSecond: 100000 }
hooks:
  - name: no-rm
    event: tool.pre
    matcher: "^exec$"
    priority: 1
    handler: { type: deny, reason: "no shell from agents" }
  - name: sms-size
    event: tool.pre
    if: "tool_name == 'send_sms' && size(tool_input.content) > 1000"
    priority: 2
    handler: { type: deny, reason: "the message is too long" }
  - name: sms-ok
    event: tool.pre
    if: "tool_name == 'send_sms' && (tenant == null || tenant != 'blocked')"
    priority: 3
    handler: { type: allow, reason: "messages are fine" }
  - name: transfers-ask
    event: tool.pre
    matcher: "^wire_transfer$"
    priority: 4
    handler: { type: ask, reason: "a human approves every transfer" }
`

function aosBody(toolId: string, name: string, inputs: Record<string, string>): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 'bench-1',
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: {
        executionId: 'exec-1',
        toolId,
        inputs: Object.entries(inputs).map(([k, value]) => ({ name: k, value })),
      },
      reasoning: 'Part of the task.',
      context: {
        agent: {
          id: 'agent-1',
          name: 'Personal assistant',
          instructions: 'You manage my mailbox.',
          version: '1',
          provider: { name: 'Acme', url: 'https://acme.example' },
          tools: [{ id: toolId, name, type: 'function', arguments: null, outputs: null }],
        },
        session: { id: 'session-1' },
        turnId: 'turn-1',
        stepId: 'step-1',
        timestamp: '2025-01-24T15:32:45.123Z',
        user: { id: 'user-1', organization: { id: 'acme' } },
      },
    },
  })
}

/** The throughput body: allowed by `sms-ok` after the CEL of `sms-size` ran. */
const BODY = aosBody('tool-sms', 'send_sms', {
  phone_number: '+1-555-0100',
  content: 'Urgent security alert: a new sign-in to your account.',
})
/** The body `transfers-ask` holds for approval. */
const ASK_BODY = aosBody('tool-wire', 'wire_transfer', { iban: 'DE89370400440532013000', amount: '120' })

/** CPU time of a process in ms (user + system), where /proc tells it; NaN elsewhere. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

type Served = ServedWarden

/**
 * Starts `warden serve` from the compiled package (`npm run bench` builds it) on a free port;
 * with WARDEN_BENCH_CPU_PROF set to a folder, it writes a `node --cpu-prof` profile there.
 */
function serveWarden(dir: string, db: string, secretKey: string): Promise<Served> {
  const profile = process.env.WARDEN_BENCH_CPU_PROF
  return serveCompiledWarden({
    dir,
    db,
    config: CONFIG,
    env: { WARDEN_SECRET_KEY: secretKey },
    nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  })
}

interface Round {
  rps: number
  requests: number
  errors: number
  /** Server CPU time per request, in microseconds. */
  cpuUs: number
  /** The subscribers' process CPU, in % of one core over the round. */
  subscriberCpu: number
  /** `decision` pushes each subscriber received (empty without subscribers). */
  pushes: number[]
  dropped: number
}

async function saturate(url: string, seconds: number): Promise<AutocannonResult> {
  return autocannon()({
    url: `${url}/aos`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections: CONNECTIONS,
    duration: seconds,
  })
}

/** One autocannon round, with or without the subscribers connected. */
async function round(server: Served, subscribers: Subscribers | undefined, seconds: number): Promise<Round> {
  await subscribers?.open()
  const serverBefore = cpuMs(server.proc.pid)
  const subscribersBefore = cpuMs(subscribers?.proc.pid)
  const started = performance.now()
  const result = await saturate(server.url, seconds)
  const elapsed = performance.now() - started
  const serverCpu = cpuMs(server.proc.pid) - serverBefore
  const subscriberCpu = subscribers ? ((cpuMs(subscribers.proc.pid) - subscribersBefore) / elapsed) * 100 : 0
  const counts = subscribers ? await subscribers.close() : { pushes: [], dropped: [] }
  if (subscribers && counts.pushes.some((n) => n === 0)) {
    throw new Error(`a subscriber received no decision push: ${counts.pushes.join(', ')}`)
  }
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    errors: result.errors + result.non2xx,
    cpuUs: (serverCpu * 1000) / Math.max(1, result.requests.total),
    subscriberCpu,
    pushes: counts.pushes,
    dropped: counts.dropped.reduce((a, b) => a + b, 0),
  }
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 })

/** POSTs a body to `/aos` on a kept-alive connection; resolves with the whole answer. */
function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const target = new URL(`${url}/aos`)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: keepAlive,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** The /ws admin token, made in the store the server will open. */
async function makeToken(db: string): Promise<string> {
  const { openStore } = await import('../dist/store/index.js')
  const { createAccessToken } = await import('../dist/server/index.js')
  const store = await openStore(db)
  try {
    return (await createAccessToken(store, { name: 'bench', role: 'admin' })).token
  } finally {
    await store.close()
  }
}

async function throughput(server: Served, token: string): Promise<BenchResult> {
  const check = JSON.parse((await post(server.url, BODY)).text) as {
    result?: { decision?: string; data?: { trace?: { hook: string; outcome: string; skipped?: string }[] } }
  }
  const ran = (check.result?.data?.trace ?? []).map((t) => `${t.hook}:${t.skipped ?? t.outcome}`).join(' ')
  if (
    check.result?.decision !== 'allow' ||
    ran !== 'no-rm:matcher sms-size:if sms-ok:allow transfers-ask:matcher'
  ) {
    throw new Error(
      `the throughput body did not run the hooks as meant: ${JSON.stringify(check).slice(0, 400)}`,
    )
  }
  const subscribers = startSubscribers(server.url, token)
  try {
    await round(server, undefined, WARMUP_SECONDS)
    await round(server, subscribers, WARMUP_SECONDS)
    const none: Round[] = []
    const twenty: Round[] = []
    for (let r = 0; r < ROUNDS; r++) {
      // ABBA: neither side always runs first.
      if (r % 2 === 0) {
        none.push(await round(server, undefined, ROUND_SECONDS))
        twenty.push(await round(server, subscribers, ROUND_SECONDS))
      } else {
        twenty.push(await round(server, subscribers, ROUND_SECONDS))
        none.push(await round(server, undefined, ROUND_SECONDS))
      }
    }
    const fastest = (rounds: Round[]) => rounds.reduce((a, b) => (b.rps > a.rps ? b : a))
    const best = fastest(twenty)
    const base = fastest(none)
    const ratio = best.rps / base.rps
    const rates = (rounds: Round[]) => rounds.map((x) => Math.round(x.rps)).join('/')
    const minShare = Math.min(...twenty.flatMap((x) => x.pushes.map((n) => n / Math.max(1, x.requests))))
    const dropped = twenty.reduce((sum, x) => sum + x.dropped, 0)
    const errors = [...none, ...twenty].reduce((sum, x) => sum + x.errors, 0)
    const median = (values: number[]) => quantile(values, 0.5)
    if (ratio < 0.9 || errors > 0 || dropped > 0) {
      process.stdout.write(
        `MISS: /aos with ${SUBSCRIBERS} /ws subscribers reached ${ratio.toFixed(2)}x of none (goal >= 0.9x; ${errors} errors, ${dropped} pushes dropped)\n`,
      )
    }
    return {
      name: `POST /aos, 4 static/CEL hooks, SQLite audit: max throughput with ${SUBSCRIBERS} /ws subscribers to decision vs none (autocannon, ${CONNECTIONS} connections, best of ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s)`,
      value: best.rps,
      baseline: base.rps,
      unit: 'req/s',
      goal: 'ratio >= 0.9',
      pass: ratio >= 0.9 && errors === 0 && dropped === 0,
      extra: {
        'req/s per round': rates(twenty),
        'none req/s per round': rates(none),
        'server CPU us/req (median)': median(twenty.map((x) => x.cpuUs)),
        'none server CPU us/req (median)': median(none.map((x) => x.cpuUs)),
        'subscriber process CPU % of a core (median)': median(twenty.map((x) => x.subscriberCpu)),
        'pushes per subscriber in the best round (min)': Math.min(...best.pushes),
        'requests in that round': best.requests,
        'pushes/requests, worst subscriber of any round': minShare.toFixed(3),
        'pushes dropped': dropped,
        errors,
      },
    }
  } finally {
    subscribers.proc.kill('SIGTERM')
  }
}

async function approvals(server: Served, token: string): Promise<BenchResult> {
  const client = await WsClient.connect(server.url, token)
  try {
    await client.call('subscribe', { events: ['approval.requested'] })
    const release: number[] = []
    const answered: number[] = []
    const roundTrip: number[] = []
    let failures = 0
    const warm = Math.max(1, Math.floor(APPROVALS / 10))
    for (let i = 0; i < warm + APPROVALS; i++) {
      const requested = client.nextPush('approval.requested')
      const held = post(server.url, ASK_BODY)
      const id = (await requested).payload?.id
      const t0 = performance.now()
      const resolved = client
        .call('approvals.resolve', { id, action: 'approve' })
        .then(() => performance.now())
      const answer = await within(held, 'answer to the held POST /aos')
      const t1 = performance.now()
      const t2 = await resolved
      const decision = (JSON.parse(answer.text) as { result?: { decision?: string } }).result?.decision
      if (answer.status !== 200 || decision !== 'allow') failures++
      const s0 = performance.now()
      await client.call('server.info')
      const s1 = performance.now()
      if (i < warm) continue
      release.push(t1 - t0)
      answered.push(t2 - t0)
      roundTrip.push(s1 - s0)
    }
    const p50 = quantile(release, 0.5)
    return {
      name: `approvals.resolve (approve) over /ws until the held POST /aos answer arrives, vs a server.info round trip (${APPROVALS} approvals, one at a time, one instance)`,
      value: p50,
      baseline: quantile(roundTrip, 0.5),
      unit: 'ms',
      goal: 'p50 <= 5 ms',
      pass: p50 <= 5 && failures === 0,
      extra: {
        'p95 ms': quantile(release, 0.95),
        'p99 ms': quantile(release, 0.99),
        'resolve answer p50 ms': quantile(answered, 0.5),
        'server.info p95 ms': quantile(roundTrip, 0.95),
        'server.info p99 ms': quantile(roundTrip, 0.99),
        'not allowed': failures,
      },
    }
  } finally {
    client.close()
  }
}

/** The benchmark: throughput with and without subscribers, then approval release latency. */
export default async function managementBench(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-mgmt-'))
  const db = join(dir, 'warden.db')
  const token = await makeToken(db)
  const server = await serveWarden(dir, db, randomBytes(32).toString('hex'))
  try {
    const results = [await throughput(server, token)]
    results.push(await approvals(server, token))
    return results
  } finally {
    await server.stop()
    keepAlive.destroy()
    const problems = server
      .stderr()
      .split('\n')
      .filter((line) => line !== '' && !/SIGTERM: finishing requests/.test(line))
    if (problems.length > 0) process.stderr.write(`warden serve wrote:\n${problems.join('\n')}\n`)
    rmSync(dir, { recursive: true, force: true })
  }
}
