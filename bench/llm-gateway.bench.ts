// Model-API gateway benchmark: Anthropic Messages calls through `warden llm` (in process,
// fn hooks on user.message, model.pre and tool.pre; none on agent.response, so text
// streams unheld) against the same calls straight to the same local Messages server (a
// process of its own), measured in the same run: the added p50 of a non-streamed call;
// streamed tokens per second through vs direct, with the server producing a token per
// millisecond on each of many concurrent streams (faster than models stream), and the time
// to the first such token added; the same with a hook on agent.response (text held and
// checked); for the record, the unpaced capacity (every token sent at once); and a 1 MB
// streamed answer through a secrets hook, against a 100 KB one (linear time, bounded CPU).

import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { allow } from '../src/core/index.js'
import { startLlmGateway } from '../src/gateway/index.js'
import { buildEngine } from '../src/sources/index.js'
import { type BenchResult, quantile } from './lib.js'

const UPSTREAM = fileURLToPath(new URL('../test/gateway/llm-upstream.ts', import.meta.url))
const TOKENS = 1000
const CALLS = Number(process.env.LLM_BENCH_CALLS ?? 1000)
/** Concurrent streams of a paced round. */
const STREAMS = 16
/** Tokens of a paced stream (one per millisecond). */
const PACED_TOKENS = 300
const ROUNDS = Number(process.env.LLM_BENCH_ROUNDS ?? 4)

/** Characters of each chunk of a long streamed answer. */
const LONG_CHUNK = 50
/** A GitHub token the secrets detector redacts, put at the start of a long answer. */
const LONG_SECRET = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`

/**
 * The local Messages server in a process of its own: every answer is TOKENS text chunks, or
 * with `longChars`, that many characters in chunks of LONG_CHUNK (a secret first).
 */
async function startUpstreamProcess(
  paceMs?: number,
  longChars?: number,
): Promise<{ url: URL; stop(): void }> {
  const tokens = paceMs ? PACED_TOKENS : TOKENS
  const answer = longChars
    ? `{ text: ['key ${LONG_SECRET} ', ...Array.from({ length: ${Math.floor((longChars - 1000) / LONG_CHUNK)} }, (_, i) => ('w' + i + ' lorem ipsum dolor sit amet ').padEnd(${LONG_CHUNK}, '.').slice(0, ${LONG_CHUNK}))] }`
    : `{ text: Array.from({ length: ${tokens} }, (_, i) => 'tok' + i + ' '), paceMs: ${paceMs ?? 0} }`
  const script = `import { startModelServer } from ${JSON.stringify(UPSTREAM)}; const s = await startModelServer([${answer}]); console.log(s.url)`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('\n')) resolve(out.trim())
    })
    child.once('exit', (code) => reject(new Error(`the bench model server exited with ${code}`)))
  })
  return { url: new URL(url), stop: () => child.kill() }
}

function request(stream: boolean): string {
  return JSON.stringify({
    model: 'claude-bench',
    max_tokens: 2000,
    stream,
    tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
    messages: [{ role: 'user', content: 'count to a thousand' }],
  })
}

const HEADERS = {
  'content-type': 'application/json',
  'x-api-key': 'sk-bench',
  'anthropic-version': '2023-06-01',
}

async function call(pool: Pool): Promise<number> {
  const start = performance.now()
  const answer = await pool.request({
    path: '/v1/messages',
    method: 'POST',
    headers: HEADERS,
    body: request(false),
  })
  const text = await answer.body.text()
  if (answer.statusCode !== 200) throw new Error(`call failed: ${answer.statusCode} ${text.slice(0, 200)}`)
  return performance.now() - start
}

/** One streamed call: ms to the first text delta, and to the end. */
async function stream(pool: Pool): Promise<{ first: number; total: number }> {
  const start = performance.now()
  const answer = await pool.request({
    path: '/v1/messages',
    method: 'POST',
    headers: HEADERS,
    body: request(true),
  })
  let first = 0
  let deltas = 0
  for await (const chunk of answer.body) {
    const text = (chunk as Buffer).toString()
    if (first === 0 && text.includes('text_delta')) first = performance.now() - start
    deltas += text.split('"text_delta"').length - 1
  }
  if (answer.statusCode !== 200 || deltas === 0) throw new Error(`stream failed: ${answer.statusCode}`)
  return { first, total: performance.now() - start }
}

/** One long streamed answer: ms and CPU ms it took, and whether the secret was redacted. */
async function longStream(
  pool: Pool,
): Promise<{ ms: number; cpuMs: number; redacted: boolean; chars: number }> {
  const cpu = process.cpuUsage()
  const start = performance.now()
  const answer = await pool.request({
    path: '/v1/messages',
    method: 'POST',
    headers: HEADERS,
    body: request(true),
  })
  let text = ''
  for await (const chunk of answer.body) text += (chunk as Buffer).toString()
  const ms = performance.now() - start
  const used = process.cpuUsage(cpu)
  if (answer.statusCode !== 200 || !text.includes('message_stop'))
    throw new Error(`long stream failed: ${answer.statusCode} ${text.slice(-300)}`)
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    redacted: !text.includes(LONG_SECRET),
    chars: text.length,
  }
}

/** The long streamed answers of `kb` KB through a gateway with a secrets hook: the fastest of `runs`. */
async function longAnswers(
  kb: number,
  runs: number,
): Promise<{ ms: number; cpuMs: number; redacted: boolean }> {
  const upstream = await startUpstreamProcess(undefined, kb * 1000)
  const engine = buildEngine(undefined, {
    extraHooks: [
      {
        name: 'secrets',
        event: 'agent.response',
        handler: { type: 'detector', detector: 'secrets', action: 'redact' },
      },
    ],
  })
  const gateway = await startLlmGateway({ engine, upstream: upstream.url })
  const pool = new Pool(gateway.url.origin, { connections: 2 })
  try {
    let best = { ms: Number.POSITIVE_INFINITY, cpuMs: Number.POSITIVE_INFINITY, redacted: true }
    for (let i = 0; i < runs; i++) {
      const run = await longStream(pool)
      best = {
        ms: Math.min(best.ms, run.ms),
        cpuMs: Math.min(best.cpuMs, run.cpuMs),
        redacted: best.redacted && run.redacted,
      }
    }
    return best
  } finally {
    await pool.close()
    await gateway.close()
    await engine.close()
    upstream.stop()
  }
}

/** Tokens per second over `streams` concurrent streams of `tokens` each. */
async function tokensPerSecond(pool: Pool, streams: number, tokens: number): Promise<number> {
  const start = performance.now()
  await Promise.all(Array.from({ length: streams }, () => stream(pool)))
  return ((streams * tokens) / (performance.now() - start)) * 1000
}

/** A gateway and a pool to it, for an engine and an upstream. */
async function through(engine: ReturnType<typeof buildEngine>, upstream: URL) {
  const gateway = await startLlmGateway({ engine, upstream })
  const pool = new Pool(gateway.url.origin, { connections: STREAMS * 2 })
  return {
    pool,
    close: async () => {
      await pool.close()
      await gateway.close()
    },
  }
}

export default async function bench(): Promise<BenchResult[]> {
  const upstream = await startUpstreamProcess()
  const paced = await startUpstreamProcess(1)
  const fn = () => allow()
  const hooks = [
    { name: 'prompt', event: 'user.message', handler: { type: 'fn', fn } },
    { name: 'request', event: 'model.pre', handler: { type: 'fn', fn } },
    { name: 'tools', event: 'tool.pre', handler: { type: 'fn', fn } },
  ]
  const engine = buildEngine(undefined, { extraHooks: hooks })
  const checking = buildEngine(undefined, {
    extraHooks: [...hooks, { name: 'answer', event: 'agent.response', handler: { type: 'fn', fn } }],
  })
  const pools = [
    new Pool(upstream.url.origin, { connections: STREAMS * 2 }),
    new Pool(paced.url.origin, { connections: STREAMS * 2 }),
  ] as const
  const [direct, directPaced] = pools
  const gateways = [
    await through(engine, upstream.url),
    await through(engine, paced.url),
    await through(checking, paced.url),
  ] as const
  const [fast, slow, held] = gateways.map((g) => g.pool) as [Pool, Pool, Pool]
  try {
    for (let i = 0; i < 50; i++) {
      await call(direct)
      await call(fast)
      await stream(direct)
      await stream(fast)
    }
    const directMs: number[] = []
    const throughMs: number[] = []
    for (let i = 0; i < CALLS; i++) {
      if (i % 2 === 0) {
        directMs.push(await call(direct))
        throughMs.push(await call(fast))
      } else {
        throughMs.push(await call(fast))
        directMs.push(await call(direct))
      }
    }
    const firstDirect: number[] = []
    const firstThrough: number[] = []
    for (let i = 0; i < CALLS / 10; i++) {
      firstDirect.push((await stream(directPaced)).first)
      firstThrough.push((await stream(slow)).first)
    }
    let tpsDirect = 0
    let tpsThrough = 0
    let tpsHeld = 0
    let capacityDirect = 0
    let capacityThrough = 0
    for (let r = 0; r < ROUNDS; r++) {
      tpsDirect = Math.max(tpsDirect, await tokensPerSecond(directPaced, STREAMS, PACED_TOKENS))
      tpsThrough = Math.max(tpsThrough, await tokensPerSecond(slow, STREAMS, PACED_TOKENS))
      tpsHeld = Math.max(tpsHeld, await tokensPerSecond(held, STREAMS, PACED_TOKENS))
      capacityDirect = Math.max(capacityDirect, await tokensPerSecond(direct, 4, TOKENS))
      capacityThrough = Math.max(capacityThrough, await tokensPerSecond(fast, 4, TOKENS))
    }
    const p50Direct = quantile(directMs, 0.5)
    const p50Through = quantile(throughMs, 0.5)
    const ttftDirect = quantile(firstDirect, 0.5)
    const ttftThrough = quantile(firstThrough, 0.5)
    const results: BenchResult[] = [
      {
        name: `Messages call (${TOKENS}-token answer) p50 through the gateway (3 fn hooks) vs direct`,
        value: p50Through,
        baseline: p50Direct,
        unit: 'ms',
        goal: 'added p50 <= 0.5 ms',
        pass: p50Through - p50Direct <= 0.5,
        extra: { 'added p50 ms': p50Through - p50Direct, 'p99 through ms': quantile(throughMs, 0.99) },
      },
      {
        name: `streamed tokens, ${STREAMS} streams x ${PACED_TOKENS} tokens at 1 token/ms, through vs direct`,
        value: tpsThrough,
        baseline: tpsDirect,
        unit: 'tokens/s',
        goal: 'ratio >= 0.9',
        pass: tpsThrough / tpsDirect >= 0.9,
      },
      {
        name: 'time to first streamed token, p50, through vs direct',
        value: ttftThrough,
        baseline: ttftDirect,
        unit: 'ms',
        goal: 'added p50 <= 1 ms',
        pass: ttftThrough - ttftDirect <= 1,
        extra: { 'added p50 ms': ttftThrough - ttftDirect },
      },
      {
        name: 'the same streams with a hook on agent.response (text held and checked) vs direct',
        value: tpsHeld,
        baseline: tpsDirect,
        unit: 'tokens/s',
        goal: 'ratio >= 0.9',
        pass: tpsHeld / tpsDirect >= 0.9,
      },
      {
        name: `capacity: 4 streams x ${TOKENS} tokens sent at once, through vs direct`,
        value: capacityThrough,
        baseline: capacityDirect,
        unit: 'tokens/s',
        goal: 'ratio >= 0.2',
        pass: capacityThrough / capacityDirect >= 0.2,
      },
    ]
    const small = await longAnswers(100, 3)
    const large = await longAnswers(1000, 2)
    const perKbSmall = small.ms / 100
    const perKbLarge = large.ms / 1000
    results.push({
      name: 'a 1 MB streamed answer with a secrets hook on agent.response: time per KB vs a 100 KB one',
      value: perKbLarge,
      baseline: perKbSmall,
      unit: 'ms/KB',
      goal: 'ratio <= 2 and <= 1 s of CPU',
      pass: perKbLarge <= 2 * perKbSmall && large.cpuMs <= 1000 && large.redacted,
      extra: {
        '1 MB ms': large.ms,
        '1 MB CPU ms (gateway and client)': large.cpuMs,
        '100 KB ms': small.ms,
        'secret redacted': large.redacted && small.redacted ? 1 : 0,
      },
    })
    for (const result of results)
      if (!result.pass) process.stdout.write(`MISS: ${result.name}: goal ${result.goal} not met\n`)
    return results
  } finally {
    await Promise.all(pools.map((p) => p.close()))
    for (const gateway of gateways) await gateway.close()
    upstream.stop()
    paced.stop()
    await engine.close()
    await checking.close()
  }
}
