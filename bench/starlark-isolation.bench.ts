// One tenant's Starlark script that burns its whole wall-time limit (a second) against
// another tenant's traffic through the same engine: the neighbour's throughput and p99,
// and the event loop's longest stall, with tenant scripts moved to worker threads (the
// default) against a quiet run measured alongside, and against the script held on the
// main thread (`scripts.isolate: none`, as before workers) for comparison.

import { createEngine, type DispatchInput, type Engine } from '../src/core/index.js'
import { createScriptHandler, type ScriptHandlerOptions } from '../src/handlers/index.js'
import { type BenchResult, quantile } from './lib.js'

const HOSTILE = `
def handle(event, payload):
    n = 0
    for i in range(100000):
        n += len(("ab" * 20000).replace("a", "cc"))
    return allow()
`

const GUARD = `
def handle(event, payload):
    if "rm -rf" in payload["args"].get("command", ""):
        return block("not on this host")
    return allow()
`

const call = (tenant: string, command = 'ls -la'): DispatchInput => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { command } } },
  context: { tenantId: tenant, session: { id: `s-${tenant}` } },
})

function engineWith(isolation: ScriptHandlerOptions['isolation']): Engine {
  return createEngine({
    // The breaker never opens: the hostile hook keeps running for the whole benchmark.
    limits: { breaker: { failures: 1_000_000_000, windowMs: 1000 } },
    handlers: [createScriptHandler(isolation ? { isolation } : {})],
    hooks: [
      {
        name: 'burn',
        event: 'tool.pre',
        scope: { tenant: 'evil' },
        handler: { type: 'script', source: HOSTILE },
      },
      {
        name: 'guard',
        event: 'tool.pre',
        scope: { tenant: 'good' },
        handler: { type: 'script', source: GUARD },
      },
    ],
  })
}

interface Window {
  perSecond: number
  p99Ms: number
  stallMs: number
}

/** The good tenant's calls back to back (each after an I/O turn) for `ms`, with or without the attacker. */
async function window(engine: Engine, ms: number, hostile: boolean): Promise<Window> {
  let stall = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 1)
  const started = performance.now()
  const until = started + ms
  const attacker = (async () => {
    while (hostile && performance.now() < until) {
      await engine.dispatch(call('evil'))
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  const latencies: number[] = []
  while (performance.now() < until) {
    const begun = performance.now()
    await engine.dispatch(call('good'))
    latencies.push(performance.now() - begun)
    await new Promise((resolve) => setImmediate(resolve))
  }
  await attacker
  clearInterval(timer)
  const seconds = (performance.now() - started) / 1000
  return {
    perSecond: latencies.length / seconds,
    p99Ms: quantile(latencies, 0.99),
    stallMs: Math.max(stall, performance.now() - last),
  }
}

/** Runs the benchmark. */
export default async function starlarkIsolation(): Promise<BenchResult[]> {
  const isolated = engineWith(undefined)
  const inline = engineWith({ isolate: 'none' })
  // Warm both (the first isolated run starts its worker).
  await isolated.dispatch(call('evil'))
  await isolated.dispatch(call('good'))
  await inline.dispatch(call('good'))
  const quiet: Window[] = []
  const hostile: Window[] = []
  for (let round = 0; round < 3; round++) {
    quiet.push(await window(isolated, 1000, false))
    hostile.push(await window(isolated, 1500, true))
  }
  const held = await window(inline, 1500, true)
  await Promise.all([isolated.close(), inline.close()])
  const mean = (windows: Window[], key: keyof Window) =>
    windows.reduce((sum, w) => sum + w[key], 0) / windows.length
  const worst = (windows: Window[], key: keyof Window) => Math.max(...windows.map((w) => w[key]))
  const quietRate = mean(quiet, 'perSecond')
  const hostileRate = mean(hostile, 'perSecond')
  return [
    {
      name: "other tenant's calls per second while a tenant's script burns its 1 s limit vs a quiet run",
      value: hostileRate,
      baseline: quietRate,
      unit: 'calls/s',
      goal: 'ratio >= 0.8',
      pass: hostileRate >= 0.8 * quietRate,
      extra: { 'script on the main thread': held.perSecond.toFixed(0) },
    },
    {
      name: "other tenant's p99 while a tenant's script burns its limit vs a quiet run",
      value: worst(hostile, 'p99Ms'),
      baseline: worst(quiet, 'p99Ms'),
      unit: 'ms',
      goal: 'ms <= 50, or 2x quiet on a busy machine',
      pass: worst(hostile, 'p99Ms') <= Math.max(50, 2 * worst(quiet, 'p99Ms')),
      extra: { 'script on the main thread': held.p99Ms.toFixed(1) },
    },
    {
      name: "the event loop's longest stall while a tenant's script burns its limit vs a quiet run",
      value: worst(hostile, 'stallMs'),
      baseline: worst(quiet, 'stallMs'),
      unit: 'ms',
      goal: 'ms <= 50, or 2x quiet on a busy machine',
      pass: worst(hostile, 'stallMs') <= Math.max(50, 2 * worst(quiet, 'stallMs')),
      extra: { 'script on the main thread': held.stallMs.toFixed(0) },
    },
  ]
}
