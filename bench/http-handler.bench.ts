// http handler benchmark: one webhook hook's round trip (event to Claude Code JSON, SSRF-
// checked outbound client, answer parsed into a decision) against a bare undici POST of the
// same body with the same headers to the same loopback server, in the same run. Both sides
// reuse one keep-alive connection (same agent settings, no pipelining) and run in short
// interleaved blocks in ABBA order, so load on a shared machine hits both alike; the figures
// are the medians over the blocks, with the median of the per-block ratios and CPU times.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, request } from 'undici'
import { createHttpHandler } from '../src/handlers/index.js'
import { type CheckedEvent, createEngine, parseHookDefinition, toClaudeInput } from '../src/index.js'
import { createOutboundClient } from '../src/net/index.js'
import { type BenchResult, quantile } from './lib.js'

const event = {
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /tmp/build', cwd: '/srv/app' } } },
  context: { session: { id: 's1' }, tenantId: 'acme' },
}

/** The outbound client's agent settings (keep-alive 4 s, undici's default pipelining of 1). */
const AGENT = { keepAliveTimeout: 4_000 }
const BLOCKS = 40
const PER_BLOCK = 250

interface Block {
  ns: number
  cpuUs: number
}

async function block(fn: () => Promise<unknown>): Promise<Block> {
  const cpu = process.cpuUsage()
  const start = process.hrtime.bigint()
  for (let i = 0; i < PER_BLOCK; i++) await fn()
  const ns = Number(process.hrtime.bigint() - start) / PER_BLOCK
  const used = process.cpuUsage(cpu)
  return { ns, cpuUs: (used.user + used.system) / PER_BLOCK }
}

/** Runs both sides in interleaved blocks (ABBA) and returns medians and per-block ratios. */
async function interleaved(candidate: () => Promise<unknown>, baseline: () => Promise<unknown>) {
  for (let i = 0; i < PER_BLOCK * 2; i++) {
    await baseline()
    await candidate()
  }
  const c: Block[] = []
  const b: Block[] = []
  for (let i = 0; i < BLOCKS; i++) {
    if (i % 2 === 0) {
      b.push(await block(baseline))
      c.push(await block(candidate))
    } else {
      c.push(await block(candidate))
      b.push(await block(baseline))
    }
  }
  const median = (values: number[]) => quantile(values, 0.5)
  return {
    candidateNs: median(c.map((x) => x.ns)),
    baselineNs: median(b.map((x) => x.ns)),
    blockRatio: median(c.map((x, i) => x.ns / (b[i] as Block).ns)),
    cpuRatio: median(c.map((x) => x.cpuUs)) / median(b.map((x) => x.cpuUs)),
  }
}

function result(name: string, r: Awaited<ReturnType<typeof interleaved>>): BenchResult {
  return {
    name,
    value: r.candidateNs / 1000,
    baseline: r.baselineNs / 1000,
    unit: 'us',
    goal: 'ratio <= 1.3',
    pass: r.candidateNs / r.baselineNs <= 1.3,
    extra: { 'median block ratio': r.blockRatio, 'CPU ratio': r.cpuRatio },
  }
}

/** Runs the http handler benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const answer = JSON.stringify({ decision: 'allow', reason: 'fine' })
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const client = createOutboundClient({ allow: ['127.0.0.1'] })
  const engine = createEngine({
    hooks: [{ name: 'webhook', event: 'tool.pre', handler: { type: 'http', url } }],
    handlers: [createHttpHandler({ client })],
  })
  const check = await engine.dispatch(event)
  if (check.decision !== 'allow' || check.trace[0]?.outcome !== 'allow') {
    throw new Error(`the webhook hook did not allow: ${check.reason}`)
  }
  const bareAgent = new Agent(AGENT)
  const body = JSON.stringify(
    toClaudeInput({ event: 'tool.pre', payload: event.payload, context: event.context }),
  )
  const headers = { 'content-type': 'application/json', accept: 'application/json' }
  const bare = async () => {
    const res = await request(url, { method: 'POST', body, headers, dispatcher: bareAgent })
    JSON.parse(await res.body.text())
  }
  // The handler's executor on its own: what the http handler adds to a round trip.
  const handler = createHttpHandler({ client })
  const spec = parseHookDefinition({ name: 'webhook', event: 'tool.pre', handler: { type: 'http', url } })
  const execute = handler.prepare(spec.handler, spec)
  const checked: CheckedEvent = { event: 'tool.pre', payload: event.payload, context: event.context }
  const call = { event: checked, hook: spec, signal: new AbortController().signal, log: () => undefined }
  const viaExecutor = async () => execute(call)
  try {
    const direct = await interleaved(viaExecutor, bare)
    const full = await interleaved(() => engine.dispatch(event), bare)
    return [
      result(
        'http hook executor round trip to a loopback webhook vs a bare undici POST of the same body',
        direct,
      ),
      result('the same through engine.dispatch (chain, timers, decision) vs a bare undici POST', full),
    ]
  } finally {
    await engine.close()
    await client.close()
    await bareAgent.close()
    server.closeAllConnections()
    server.close()
  }
}
