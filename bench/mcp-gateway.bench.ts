// MCP gateway benchmark: 1,000 tools/call round trips through the stdio gateway (a child
// process with a 3-hook stack of in-process fn hooks) against the same calls made straight
// to the same server by the same client, measured in the same run: the added p50 latency
// (calls alternating between the two) and the throughput ratio (rounds of pipelined calls
// alternating between the two, the same client code and concurrency on both sides). A bare
// byte relay process is measured alongside, as the cost of any extra process on the path.

import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { type BenchResult, quantile } from './lib.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SERVER = [`${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'stdio']
/** The gateway under test runs the compiled package, as `warden mcp` does (`npm run bench` builds it). */
const GATEWAY = [`${ROOT}bench/fixtures/fn-gateway.mjs`, '--', process.execPath, ...SERVER]
const RELAY = [`${ROOT}test/fixtures/mcp/byte-relay.mjs`, '--', process.execPath, ...SERVER]
const CALLS = 1000
const CONCURRENCY = 16
const ROUNDS = 15
const CALLS_PER_ROUND = 500

interface Connected {
  client: Client
  pid: number | null
}

async function connect(args: string[]): Promise<Connected> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'ignore' })
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(transport)
  return { client, pid: transport.pid }
}

/** CPU time of a process in ms (user + system), where /proc tells it; NaN elsewhere. */
function cpuMs(pid: number | null): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

function call(client: Client, i: number): Promise<unknown> {
  return client.callTool({ name: 'echo', arguments: { message: `call ${i}` } })
}

/**
 * Latency samples in ms of `count` sequential calls on each client, alternating call by
 * call so that load from the rest of the machine hits every side alike.
 */
async function alternating(clients: Client[], count: number): Promise<number[][]> {
  const samples = clients.map((): number[] => [])
  for (let i = 0; i < count; i++) {
    for (const [k, client] of clients.entries()) {
      const start = performance.now()
      await call(client, i)
      samples[k]?.push(performance.now() - start)
    }
  }
  return samples
}

/** Calls per second of `count` calls with CONCURRENCY in flight (pipelined on one connection). */
async function throughput(client: Client, count: number): Promise<number> {
  let next = 0
  const start = performance.now()
  const worker = async () => {
    while (next < count) await call(client, next++)
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return count / ((performance.now() - start) / 1000)
}

interface Round {
  direct: number
  gated: number
  ratio: number
  /** The relay's rate over direct in the same round. */
  relayRatio: number
}

/**
 * Throughput rounds, direct, gated and relayed back to back (the order rotates), so that
 * every side of a round sees the same load; also the gateway's CPU time per gated call.
 */
async function throughputRounds(
  direct: Client,
  gated: Connected,
  relay: Connected,
): Promise<{ rounds: Round[]; cpuUs: number; relayCpuUs: number }> {
  const rounds: Round[] = []
  const cpu = { gated: 0, relay: 0 }
  const measure = async (side: Connected, key: keyof typeof cpu) => {
    const before = cpuMs(side.pid)
    const rate = await throughput(side.client, CALLS_PER_ROUND)
    cpu[key] += cpuMs(side.pid) - before
    return rate
  }
  for (let r = 0; r < ROUNDS; r++) {
    const sides = [
      async () => ({ direct: await throughput(direct, CALLS_PER_ROUND) }),
      async () => ({ gated: await measure(gated, 'gated') }),
      async () => ({ relay: await measure(relay, 'relay') }),
    ]
    const rates: { direct?: number; gated?: number; relay?: number } = {}
    for (let k = 0; k < sides.length; k++) Object.assign(rates, await sides[(r + k) % sides.length]?.())
    const directRate = rates.direct ?? Number.NaN
    const gatedRate = rates.gated ?? Number.NaN
    rounds.push({
      direct: directRate,
      gated: gatedRate,
      ratio: gatedRate / directRate,
      relayRatio: (rates.relay ?? Number.NaN) / directRate,
    })
  }
  const perCall = (ms: number) => (ms * 1000) / (ROUNDS * CALLS_PER_ROUND)
  return { rounds, cpuUs: perCall(cpu.gated), relayCpuUs: perCall(cpu.relay) }
}

/** Runs the gateway benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const { client: direct } = await connect(SERVER)
  const gatedConnection = await connect(GATEWAY)
  const gated = gatedConnection.client
  const relayConnection = await connect(RELAY)
  const relay = relayConnection.client
  try {
    await alternating([direct, gated, relay], 200)
    const [directSamples = [], gatedSamples = [], relaySamples = []] = await alternating(
      [direct, gated, relay],
      CALLS,
    )
    for (const client of [direct, gated, relay]) await throughput(client, CALLS_PER_ROUND)
    const { rounds, cpuUs, relayCpuUs } = await throughputRounds(direct, gatedConnection, relayConnection)
    const byRatio = [...rounds].sort((a, b) => a.ratio - b.ratio)
    const median = byRatio[Math.floor(byRatio.length / 2)] as Round
    const relayRatios = rounds.map((r) => r.relayRatio).sort((a, b) => a - b)
    const directP50 = quantile(directSamples, 0.5)
    const gatedP50 = quantile(gatedSamples, 0.5)
    const added = gatedP50 - directP50
    return [
      {
        name: `${CALLS} tools/call round trips (p50 latency), through the stdio gateway with 3 fn hooks vs direct`,
        value: gatedP50,
        baseline: directP50,
        unit: 'ms',
        goal: 'added p50 <= 0.25 ms',
        pass: added <= 0.25,
        extra: {
          'added p50 ms': added,
          'bare relay added p50 ms': quantile(relaySamples, 0.5) - directP50,
          'p99 gateway ms': quantile(gatedSamples, 0.99),
          'p99 direct ms': quantile(directSamples, 0.99),
          'load avg': loadavg()[0] ?? Number.NaN,
        },
      },
      {
        name: `tools/call with ${CONCURRENCY} in flight (throughput), through the gateway vs direct, median of ${ROUNDS} alternating rounds of ${CALLS_PER_ROUND} calls each`,
        value: median.gated,
        baseline: median.direct,
        unit: 'calls/s',
        goal: 'ratio >= 0.8',
        pass: median.ratio >= 0.8,
        extra: {
          'ratio range': `${byRatio[0]?.ratio.toFixed(2)}-${byRatio[byRatio.length - 1]?.ratio.toFixed(2)}`,
          'bare relay median ratio': quantile(relayRatios, 0.5),
          'gateway CPU us/call': cpuUs,
          'bare relay CPU us/call': relayCpuUs,
          'load avg': loadavg()[0] ?? Number.NaN,
        },
      },
    ]
  } finally {
    await relay.close()
    await gated.close()
    await direct.close()
  }
}
