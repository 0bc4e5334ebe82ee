// The neighbour tests' harness: one tenant's agent calls a real `warden serve` while
// another tenant's hostile hooks run, and /healthz is polled beside it. The good tenant's
// calls alternate an allowed and a denied command (each answer checked), so a neighbour
// that is fast because it answers wrongly does not pass. Windows of traffic are summed into
// p99s and calls per second, and the bounds are checked against a quiet (or merely busy)
// baseline measured in the same test: on a busy machine whose baseline p99 is already near
// 50 ms, the bound is twice the baseline's.

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { expect } from 'vitest'
import { quantile } from '../../bench/lib.js'
import { aos, type Loose, type Served, serve, storeAt, token } from '../server/management-helper.js'

/** A served Warden with two agent tokens: the hostile tenant `evil`'s and the good tenant `good`'s. */
export interface Neighbours {
  warden: Served
  evil: string
  good: string
}

/** Starts `warden serve` on a SQLite file in `dir` with `yaml`, and makes both tenants' agent tokens. */
export async function serveNeighbours(dir: string, name: string, yaml: string): Promise<Neighbours> {
  const db = join(dir, 'warden.db')
  const warden = await serve({ dir, name, db, yaml })
  const store = await storeAt(db)
  const evil = (await token(store, 'agent', 'evil', `evil-${randomUUID()}`)).token
  const good = (await token(store, 'agent', 'good', `good-${randomUUID()}`)).token
  await store.close()
  return { warden, evil, good }
}

/** What a call answered, and how long it took. */
export interface Answered {
  decision: string
  message: string
  ms: number
}

/** One tool call as a tenant's agent (its token's secret); the answer must be a 200. */
export async function callTool(
  url: string,
  secret: string,
  tool: string,
  inputs: Record<string, unknown> = {},
): Promise<Answered> {
  const started = performance.now()
  const answer = await aos(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: {
          executionId: `e-${randomUUID()}`,
          toolId: tool,
          inputs: Object.entries(inputs).map(([name, value]) => ({ name, value })),
        },
        context: { agent: { id: 'agent-1', name: 'agent' }, session: { id: 's-1' } },
      },
    },
    { authorization: `Bearer ${secret}` },
  )
  const ms = performance.now() - started
  expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200)
  const result = answer.body.result as Loose
  return { decision: result.decision, message: String(result.message ?? result.reasoning ?? ''), ms }
}

/** Latencies of the good tenant's calls and of /healthz over a window, and its length. */
export interface Window {
  traffic: number[]
  health: number[]
  seconds: number
}

/**
 * The good tenant's `exec` calls (`ls -la` allowed, `rm -rf /` denied, in turn) and /healthz
 * every 10 ms, until `over()` says so.
 * @param paceMs a pause between the good tenant's calls (0: back to back)
 */
export async function neighbourWindow(
  url: string,
  goodSecret: string,
  over: () => boolean,
  paceMs = 0,
): Promise<Window> {
  const started = performance.now()
  const traffic: number[] = []
  const trafficLoop = (async () => {
    for (let i = 0; !over(); i++) {
      const command = i % 2 === 0 ? 'ls -la' : 'rm -rf /'
      const answer = await callTool(url, goodSecret, 'exec', { command })
      expect(answer.decision).toBe(i % 2 === 0 ? 'allow' : 'deny')
      traffic.push(answer.ms)
      if (paceMs > 0) await new Promise((resolve) => setTimeout(resolve, paceMs))
    }
  })()
  const health: number[] = []
  const healthLoop = (async () => {
    while (!over()) {
      const begun = performance.now()
      const response = await fetch(`${url}/healthz`)
      await response.text()
      expect(response.status).toBe(200)
      health.push(performance.now() - begun)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  await Promise.all([trafficLoop, healthLoop])
  return { traffic, health, seconds: (performance.now() - started) / 1000 }
}

/** p99s and calls per second over several windows. */
export function summary(windows: Window[]) {
  const traffic = windows.flatMap((w) => w.traffic)
  const health = windows.flatMap((w) => w.health)
  const seconds = windows.reduce((sum, w) => sum + w.seconds, 0)
  return {
    traffic: {
      n: traffic.length,
      p50: quantile(traffic, 0.5),
      p99: quantile(traffic, 0.99),
      perSecond: traffic.length / seconds,
    },
    health: { n: health.length, p99: quantile(health, 0.99) },
    seconds,
  }
}

export type Summary = ReturnType<typeof summary>

/**
 * The neighbour bounds: the good tenant's and /healthz's p99 under 50 ms (or twice the
 * baseline's on a busy machine), and, unless `throughput` is false, at least 0.8x of the
 * baseline's calls per second. `seen` goes into every failure message.
 */
export function expectNeighbourKept(
  baseline: Summary,
  hostile: Summary,
  seen: string,
  throughput = true,
): void {
  const bound = (baselineP99: number) => Math.max(50, 2 * baselineP99)
  expect(hostile.traffic.p99, seen).toBeLessThan(bound(baseline.traffic.p99))
  expect(hostile.health.p99, seen).toBeLessThan(bound(baseline.health.p99))
  if (throughput)
    expect(hostile.traffic.perSecond, seen).toBeGreaterThanOrEqual(0.8 * baseline.traffic.perSecond)
}
