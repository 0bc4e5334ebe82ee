// ACS `steps/toolCallRequest` with signing on (request HMAC verified over RFC 8785 JSON,
// replay memory, timestamp window, session chain entry, signed response) against an
// unsigned AOS `steps/toolCallRequest` through the same engine and hooks, same run, two ways:
// - over HTTP: one Warden server in a child process (this file, ACS_BENCH_ROLE=server)
//   serving both /aos and /acs, loaded with 16 keep-alive requests in flight;
// - in process: each service's `handleBody`, which shows the protocol work alone.
// ACS bodies are signed before timing (signing is the agent's cost). Rounds are interleaved
// and each side keeps its best. Goal (HTTP): ACS throughput >= 0.8x of AOS.

import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { createEngine } from '../src/index.js'
import { acsRequest, clientHello, createAcsService, settingsWith } from '../src/protocols/acs/index.js'
import { createAosService } from '../src/protocols/aos/index.js'
import { createServer, listen } from '../src/server/index.js'
import type { BenchResult } from './lib.js'

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

function acsBodies(sessionId: string, count: number): Buffer[] {
  const payload = {
    tool: { id: 'send_sms' },
    arguments: {
      phone_number: { value: '+1-555-0100' },
      content: { value: 'Urgent security alert: a new sign-in to your account.' },
    },
  }
  return Array.from({ length: count }, () =>
    Buffer.from(
      JSON.stringify(acsRequest('steps/toolCallRequest', payload, { sessionId, key: KEY, nonce: true })),
    ),
  )
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

const SELF = fileURLToPath(import.meta.url)

async function serve(): Promise<void> {
  const engine = createEngine({ hooks: HOOKS })
  const app = await createServer({ engine, acs: { settings: settingsWith({ keys: [{ ...KEY }] }) } })
  process.stdout.write(`${await listen(app, { port: 0, host: '127.0.0.1' })}\n`)
}

if (process.env.ACS_BENCH_ROLE === 'server') await serve()

/** Starts the server child; resolves with its URL and a stop function. */
function startServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF], {
    env: { ...process.env, ACS_BENCH_ROLE: 'server' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve({ url: d.toString().trim(), stop: () => child.kill() }))
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)))
  })
}

function poster(url: string): (body: Buffer) => Promise<unknown> {
  return async (body) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    return response.json()
  }
}

async function overHttp(): Promise<{ aos: number; acs: number }> {
  const server = await startServer()
  try {
    const post = poster(`${server.url}/acs`)
    const postAos = poster(`${server.url}/aos`)
    let best = { aos: 0, acs: 0 }
    for (let round = 0; round < ROUNDS; round++) {
      const sessionId = randomUUID()
      await post(Buffer.from(JSON.stringify(clientHello(sessionId))))
      const signed = acsBodies(sessionId, REQUESTS)
      const aosRate = await throughput(
        Array.from({ length: REQUESTS }, () => AOS_BODY),
        postAos,
      )
      const acsRate = await throughput(signed, post)
      best = { aos: Math.max(best.aos, aosRate), acs: Math.max(best.acs, acsRate) }
    }
    return best
  } finally {
    server.stop()
  }
}

export default async function bench(): Promise<BenchResult[]> {
  const http = await overHttp()
  const engine = createEngine({ hooks: HOOKS })
  const aos = createAosService({ engine })
  const acs = createAcsService({ engine, settings: settingsWith({ keys: [{ ...KEY }] }) })
  let best = { aos: 0, acs: 0 }
  for (let round = 0; round < ROUNDS; round++) {
    const sessionId = randomUUID()
    await acs.handle(clientHello(sessionId))
    const signed = acsBodies(sessionId, REQUESTS)
    const aosBodies = Array.from({ length: REQUESTS }, () => AOS_BODY)
    const aosRate = await throughput(aosBodies, (b) => aos.handleBody(b, {}))
    const acsRate = await throughput(signed, (b) => acs.handleBody(b))
    best = { aos: Math.max(best.aos, aosRate), acs: Math.max(best.acs, acsRate) }
  }
  await engine.close()
  const ratio = best.acs / best.aos
  const httpRatio = http.acs / http.aos
  if (httpRatio < 0.8) {
    process.stdout.write(
      `MISS: ACS over HTTP reached ${httpRatio.toFixed(2)}x of AOS throughput; the goal is >= 0.8x\n`,
    )
  }
  return [
    {
      name: 'HTTP: ACS toolCallRequest signed+verified+chained vs unsigned AOS, same hooks (req/s)',
      value: Math.round(http.acs),
      baseline: Math.round(http.aos),
      unit: 'req/s',
      goal: 'ratio >= 0.8',
      pass: httpRatio >= 0.8,
      extra: { ratio: Math.round(httpRatio * 100) / 100 },
    },
    {
      name: 'in process (protocol work alone, informational): ACS vs AOS handleBody (req/s)',
      value: Math.round(best.acs),
      baseline: Math.round(best.aos),
      unit: 'req/s',
      goal: 'none (informational)',
      pass: true,
      extra: { ratio: Math.round(ratio * 100) / 100 },
    },
  ]
}
