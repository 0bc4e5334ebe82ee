// A tenant's detector hook scanning 1 MB of random text (the secrets detector, the slowest
// on such text) against the event loop: its longest stall while the scans run with large
// scans moved to a worker thread (the default for tenant hooks) against a quiet loop
// measured alongside, and against the scans held on the main thread (`detectors.isolate:
// none`, as before workers) for comparison. The verdicts of both are the same.

import { randomBytes } from 'node:crypto'
import { createEngine, type DispatchInput, type Engine } from '../src/core/index.js'
import { createDetectorHandler, type DetectorHandlerOptions } from '../src/handlers/index.js'
import { type BenchResult, quantile } from './lib.js'

/** A million random printable characters: findings all along, a few hundred ms of scanning. */
const TEXT = Array.from(randomBytes(1_000_000), (b) => String.fromCharCode(33 + (b % 94))).join('')

const scan = (): DispatchInput => ({
  event: 'tool.pre',
  payload: { tool: { name: 'upload', input: { text: TEXT } } },
  context: { tenantId: 'evil', session: { id: 's-evil' } },
})

function engineWith(isolation: DetectorHandlerOptions['isolation']): Engine {
  return createEngine({
    handlers: [createDetectorHandler(isolation ? { isolation } : {})],
    hooks: [
      {
        name: 'secrets',
        event: 'tool.pre',
        scope: { tenant: 'evil' },
        handler: { type: 'detector', detector: 'secrets' },
      },
    ],
  })
}

interface Run {
  stallMs: number
  scanMs: number
  decision: string
}

/** `count` scans one after another (or none, for `ms`), with a 1 ms timer noting the longest gap. */
async function measure(engine: Engine | undefined, count: number, ms = 0): Promise<Run> {
  let stall = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 1)
  const times: number[] = []
  let decision = ''
  if (engine)
    for (let i = 0; i < count; i++) {
      const begun = performance.now()
      decision = (await engine.dispatch(scan())).decision
      times.push(performance.now() - begun)
    }
  else await new Promise((resolve) => setTimeout(resolve, ms))
  clearInterval(timer)
  return { stallMs: Math.max(stall, performance.now() - last), scanMs: quantile(times, 0.5), decision }
}

/** Runs the benchmark. */
export default async function detectorIsolation(): Promise<BenchResult[]> {
  const offloaded = engineWith(undefined)
  const inline = engineWith({ isolate: 'none' })
  // Warm both (the first offloaded scan starts its worker).
  await offloaded.dispatch(scan())
  await inline.dispatch(scan())
  const quiet = await measure(undefined, 0, 1000)
  const moved = await measure(offloaded, 5)
  const held = await measure(inline, 5)
  await Promise.all([offloaded.close(), inline.close()])
  if (moved.decision !== held.decision)
    throw new Error(`decisions differ: ${moved.decision} / ${held.decision}`)
  return [
    {
      name: "the event loop's longest stall while a tenant's detector scans 1 MB vs a quiet loop",
      value: moved.stallMs,
      baseline: quiet.stallMs,
      unit: 'ms',
      goal: 'ms <= 50, or 2x quiet on a busy machine',
      pass: moved.stallMs <= Math.max(50, 2 * quiet.stallMs),
      extra: {
        'scan on the main thread: stall ms': held.stallMs.toFixed(0),
        'scan p50 ms (worker / main)': `${moved.scanMs.toFixed(0)} / ${held.scanMs.toFixed(0)}`,
      },
    },
  ]
}
