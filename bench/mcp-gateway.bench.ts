// MCP gateway benchmark: 1,000 tools/call round trips through the stdio gateway (a child
// process with a 3-hook stack of in-process fn hooks) against the same calls made straight
// to the same server by the same client, measured in the same run: the added p50 latency
// and the throughput ratio.

import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { type BenchResult, quantile } from './lib.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SERVER = [`${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'stdio']
const GATEWAY = [
  '--import',
  'tsx',
  `${ROOT}test/fixtures/mcp/fn-gateway.ts`,
  '--',
  process.execPath,
  ...SERVER,
]
const CALLS = 1000
const CONCURRENCY = 16

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'ignore' })
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(transport)
  return client
}

function call(client: Client, i: number): Promise<unknown> {
  return client.callTool({ name: 'echo', arguments: { message: `call ${i}` } })
}

/**
 * Latency samples in ms of `count` sequential calls on each client, alternating call by
 * call so that load from the rest of the machine hits both sides alike.
 */
async function alternating(a: Client, b: Client, count: number): Promise<[number[], number[]]> {
  const samplesA: number[] = []
  const samplesB: number[] = []
  for (let i = 0; i < count; i++) {
    let start = performance.now()
    await call(a, i)
    samplesA.push(performance.now() - start)
    start = performance.now()
    await call(b, i)
    samplesB.push(performance.now() - start)
  }
  return [samplesA, samplesB]
}

/** Calls per second of `count` calls with CONCURRENCY in flight. */
async function throughput(client: Client, count: number): Promise<number> {
  let next = 0
  const start = performance.now()
  const worker = async () => {
    while (next < count) await call(client, next++)
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return count / ((performance.now() - start) / 1000)
}

/** Runs the gateway benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const direct = await connect(SERVER)
  const gated = await connect(GATEWAY)
  try {
    await alternating(direct, gated, 200)
    const [directSamples, gatedSamples] = await alternating(direct, gated, CALLS)
    let directRate = 0
    let gatedRate = 0
    for (let r = 0; r < 3; r++) {
      directRate = Math.max(directRate, await throughput(direct, CALLS))
      gatedRate = Math.max(gatedRate, await throughput(gated, CALLS))
    }
    const directP50 = quantile(directSamples, 0.5)
    const gatedP50 = quantile(gatedSamples, 0.5)
    const added = gatedP50 - directP50
    return [
      {
        name: `${CALLS} tools/call round trips (p50 latency), through the stdio gateway with 3 fn hooks vs direct`,
        value: gatedP50,
        baseline: directP50,
        unit: 'ms',
        goal: 'added p50 <= 0.3 ms',
        pass: added <= 0.3,
        extra: {
          'added p50 ms': added,
          'p99 gateway ms': quantile(gatedSamples, 0.99),
          'p99 direct ms': quantile(directSamples, 0.99),
        },
      },
      {
        name: `${CALLS} tools/call with ${CONCURRENCY} in flight (throughput), through the gateway vs direct`,
        value: gatedRate,
        baseline: directRate,
        unit: 'calls/s',
        goal: 'ratio >= 0.8',
        pass: gatedRate / directRate >= 0.8,
      },
    ]
  } finally {
    await gated.close()
    await direct.close()
  }
}
