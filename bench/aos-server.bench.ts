// POST /aos steps/toolCallRequest through a 7-hook stack of fn and CEL hooks (no processes),
// against a bare Fastify server that parses the same body and answers a fixed allow,
// measured in the same run with autocannon. Each server runs in its own child process
// (this same file, started with AOS_BENCH_ROLE), the load generator in this one.
// Goals: throughput >= 0.6x of bare; p99 <= 5 ms at half of bare's maximum rate.

import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import type { BenchResult } from './lib.js'

const SELF = fileURLToPath(import.meta.url)

/** The part of autocannon's result this benchmark reads (the package ships no types). */
interface AutocannonResult {
  requests: { average: number }
  latency: { p50: number; p99: number }
  errors: number
  non2xx: number
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: Record<string, unknown>,
) => Promise<AutocannonResult>
const DURATION_S = Number(process.env.AOS_BENCH_SECONDS ?? 8)
const CONNECTIONS = 32

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

async function serveWarden(): Promise<string> {
  const { createEngine } = await import('../src/index.js')
  const { createServer, listen } = await import('../src/server/index.js')
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
      { name: 'messaging', event: 'tool.pre', matcher: 'sms|mail', priority: 5, handler: fn(allow) },
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
  const app = await createServer({ engine })
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
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

const role = process.env.AOS_BENCH_ROLE
if (role === 'warden' || role === 'bare') {
  const url = await (role === 'warden' ? serveWarden() : serveBare())
  process.stdout.write(`ready ${url}\n`)
}

function start(which: 'warden' | 'bare'): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF], {
    env: { ...process.env, AOS_BENCH_ROLE: which },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
      const match = /ready (\S+)/.exec(out)
      if (match?.[1]) resolve({ url: match[1], child })
    })
    child.on('exit', (code) => reject(new Error(`${which} server exited with ${code}`)))
  })
}

interface Load {
  rps: number
  p50: number
  p99: number
  errors: number
}

async function load(url: string, seconds: number, rate?: number): Promise<Load> {
  const result = await autocannon({
    url: `${url}/aos`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections: rate ? 8 : CONNECTIONS,
    duration: seconds,
    ...(rate ? { overallRate: Math.max(1, Math.floor(rate)) } : {}),
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

/** The benchmark: max throughput of both servers, then p99 at half of bare's maximum. */
export default async function aosServerBench(): Promise<BenchResult[]> {
  const bare = await start('bare')
  const warden = await start('warden')
  try {
    const check = await fetch(`${warden.url}/aos`, { method: 'POST', body: BODY })
    const answer = (await check.json()) as { result?: { decision?: string; data?: { trace?: unknown[] } } }
    if (answer.result?.decision !== 'allow' || answer.result.data?.trace?.length !== 7) {
      throw new Error(
        `the Warden under test did not run its 7 hooks: ${JSON.stringify(answer).slice(0, 300)}`,
      )
    }
    await load(bare.url, 2)
    await load(warden.url, 2)
    const bareMax = await load(bare.url, DURATION_S)
    const wardenMax = await load(warden.url, DURATION_S)
    const rate = bareMax.rps / 2
    const bareAtHalf = await load(bare.url, DURATION_S, rate)
    const wardenAtHalf = await load(warden.url, DURATION_S, rate)
    const ratio = wardenMax.rps / bareMax.rps
    return [
      {
        name: 'POST /aos toolCallRequest, 7 fn/CEL hooks: max throughput vs bare Fastify',
        value: wardenMax.rps,
        baseline: bareMax.rps,
        unit: 'req/s',
        goal: 'ratio >= 0.6',
        pass: ratio >= 0.6 && wardenMax.errors === 0,
        extra: {
          connections: CONNECTIONS,
          'p99 ms': wardenMax.p99,
          'bare p99 ms': bareMax.p99,
          errors: wardenMax.errors,
        },
      },
      {
        name: `p99 latency at half of bare's max rate (${Math.round(rate)} req/s)`,
        value: wardenAtHalf.p99,
        baseline: bareAtHalf.p99,
        unit: 'ms',
        goal: 'p99 <= 5 ms',
        pass: wardenAtHalf.p99 <= 5 && wardenAtHalf.errors === 0,
        extra: {
          'achieved req/s': wardenAtHalf.rps,
          'p50 ms': wardenAtHalf.p50,
          errors: wardenAtHalf.errors,
        },
      },
    ]
  } finally {
    bare.child.kill('SIGTERM')
    warden.child.kill('SIGTERM')
  }
}
