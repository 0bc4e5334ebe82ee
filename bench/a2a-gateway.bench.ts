// A2A gateway benchmark: SendMessage round trips through `warden a2a` (in process, three
// fn hooks: two on a2a.send, one on a2a.response) against the same calls straight to the
// same @a2a-js/sdk server agent, measured in the same run: the added p50 latency (calls
// alternating between the two), the throughput ratio (rounds of pipelined calls
// alternating), and streamed events per second (concurrent SendStreamingMessage streams of
// many artifact chunks, each event checked by the response hook) through vs direct.

import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { allow } from '../src/core/index.js'
import { startA2aGateway } from '../src/gateway/index.js'
import { buildEngine } from '../src/sources/index.js'
import { type BenchResult, quantile } from './lib.js'

const PEER = fileURLToPath(new URL('../test/gateway/a2a-peer.ts', import.meta.url))

/** The SDK agent in a process of its own, as it would run beside the gateway. */
async function startPeerProcess(): Promise<{ url: URL; stop(): void }> {
  const script = `import { startPeerAgent } from ${JSON.stringify(PEER)}; const p = await startPeerAgent('bench-agent'); console.log(p.url.href)`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('\n')) resolve(out.trim())
    })
    child.once('exit', (code) => reject(new Error(`the bench agent exited with ${code}`)))
  })
  return { url: new URL(url), stop: () => child.kill() }
}

const CALLS = 1000
const ROUNDS = 8
const CALLS_PER_ROUND = 400
const CONCURRENCY = 16
const STREAMS = 8
const EVENTS_PER_STREAM = 300

function body(id: number, method: string, text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { message: { messageId: `m${id}`, role: 'ROLE_USER', parts: [{ text }] } },
  })
}

async function post(pool: Pool, path: string, payload: string): Promise<string> {
  const answer = await pool.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: payload,
  })
  const text = await answer.body.text()
  if (answer.statusCode !== 200 || text.includes('"error"'))
    throw new Error(`call failed: ${answer.statusCode} ${text.slice(0, 200)}`)
  return text
}

async function pipelined(pool: Pool, path: string, calls: number): Promise<number> {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < calls) {
        const i = next++
        await post(pool, path, body(i, 'SendMessage', `hello ${i}`))
      }
    }),
  )
  return (calls / (performance.now() - start)) * 1000
}

async function streamed(pool: Pool, path: string): Promise<number> {
  const start = performance.now()
  const counts = await Promise.all(
    Array.from({ length: STREAMS }, async (_, i) => {
      const text = await post(
        pool,
        path,
        body(
          i,
          'SendStreamingMessage',
          `stream:${EVENTS_PER_STREAM}:burst${'x'.repeat(EVENTS_PER_STREAM * 4)}`,
        ),
      )
      return text.split('\n\n').filter((e) => e.includes('artifactUpdate')).length
    }),
  )
  const events = counts.reduce((a, b) => a + b, 0)
  if (events !== STREAMS * EVENTS_PER_STREAM)
    throw new Error(`expected ${STREAMS * EVENTS_PER_STREAM} events, got ${events}`)
  return (events / (performance.now() - start)) * 1000
}

export default async function bench(): Promise<BenchResult[]> {
  const peer = await startPeerProcess()
  const fn = () => allow()
  const engine = buildEngine(undefined, {
    extraHooks: [
      { name: 'send-1', event: 'a2a.send', handler: { type: 'fn', fn } },
      { name: 'send-2', event: 'a2a.send', handler: { type: 'fn', fn } },
      { name: 'answer', event: 'a2a.response', handler: { type: 'fn', fn } },
    ],
  })
  const gateway = await startA2aGateway({ engine, upstream: peer.url })
  const direct = new Pool(peer.url.origin, { connections: CONCURRENCY * 2 })
  const through = new Pool(gateway.url.origin, { connections: CONCURRENCY * 2 })
  const path = '/a2a/jsonrpc'
  try {
    for (let i = 0; i < 200; i++) {
      await post(direct, path, body(i, 'SendMessage', 'warm'))
      await post(through, path, body(i, 'SendMessage', 'warm'))
    }
    const directMs: number[] = []
    const throughMs: number[] = []
    for (let i = 0; i < CALLS; i++) {
      for (const [pool, samples] of i % 2 === 0
        ? ([
            [direct, directMs],
            [through, throughMs],
          ] as const)
        : ([
            [through, throughMs],
            [direct, directMs],
          ] as const)) {
        const start = performance.now()
        await post(pool, path, body(i, 'SendMessage', `hello ${i}`))
        samples.push(performance.now() - start)
      }
    }
    const p50Direct = quantile(directMs, 0.5)
    const p50Through = quantile(throughMs, 0.5)
    const added = p50Through - p50Direct
    let bestDirect = 0
    let bestThrough = 0
    for (let r = 0; r < ROUNDS; r++) {
      bestDirect = Math.max(bestDirect, await pipelined(direct, path, CALLS_PER_ROUND))
      bestThrough = Math.max(bestThrough, await pipelined(through, path, CALLS_PER_ROUND))
    }
    let eventsDirect = 0
    let eventsThrough = 0
    for (let r = 0; r < 4; r++) {
      eventsDirect = Math.max(eventsDirect, await streamed(direct, path))
      eventsThrough = Math.max(eventsThrough, await streamed(through, path))
    }
    const results: BenchResult[] = [
      {
        name: 'A2A SendMessage p50 through the gateway (3 fn hooks) vs direct',
        value: p50Through,
        baseline: p50Direct,
        unit: 'ms',
        goal: 'added p50 <= 0.5 ms',
        pass: added <= 0.5,
        extra: {
          'added p50 ms': added,
          'p99 through ms': quantile(throughMs, 0.99),
          'p99 direct ms': quantile(directMs, 0.99),
        },
      },
      {
        name: `A2A SendMessage throughput, ${CONCURRENCY} in flight`,
        value: bestThrough,
        baseline: bestDirect,
        unit: 'calls/s',
        goal: 'ratio >= 0.7',
        pass: bestThrough / bestDirect >= 0.7,
      },
      {
        name: `A2A streamed events, ${STREAMS} streams x ${EVENTS_PER_STREAM} chunks, each checked`,
        value: eventsThrough,
        baseline: eventsDirect,
        unit: 'events/s',
        goal: 'ratio >= 0.7',
        pass: eventsThrough / eventsDirect >= 0.7,
      },
    ]
    for (const result of results)
      if (!result.pass) process.stdout.write(`MISS: ${result.name}: goal ${result.goal} not met\n`)
    return results
  } finally {
    await direct.close()
    await through.close()
    await gateway.close()
    peer.stop()
    await engine.close()
  }
}
