// One tenant's Starlark cannot stall another on a real `warden serve`, whatever the
// script's wall-time limit (the default second here): a script that burns its whole limit
// runs in a worker thread and is denied with the cause, while the other tenant's calls and
// /healthz keep their p99 under 50 ms and their throughput at 0.8x of a quiet run (bounds
// relative to the quiet run, as the other neighbour tests do on a busy machine). A flood
// past the worker queue is refused naming the bound.

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { quantile } from '../../bench/lib.js'
import { aos, type Loose, type Served, serve, storeAt, tempDir, token } from '../server/management-helper.js'

const CONFIG = `
server: { auth: token }
limits: { breaker: { failures: 1000000 } }
scripts: { workers: 1, queue: 1 }
hooks:
  - name: burn
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^burn$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            n = 0
            for i in range(100000):
                n += len(("ab" * 20000).replace("a", "cc"))
            return allow()
  - name: quick
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^quick$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            n = 0
            for i in range(200000):
                n += i
            return allow("sum " + str(n))
  - name: good-guard
    event: tool.pre
    scope: { tenant: good }
    matcher: "^exec$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            if "rm -rf" in payload["args"]["command"]:
                return block("not on this host")
            return allow()
`

interface Tenant {
  secret: string
}

async function call(
  url: string,
  tenant: Tenant,
  tool: string,
  inputs: Record<string, unknown> = {},
): Promise<{ decision: string; message: string; ms: number }> {
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
    { authorization: `Bearer ${tenant.secret}` },
  )
  const ms = performance.now() - started
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  const result = answer.body.result as Loose
  return { decision: result.decision, message: String(result.message ?? result.reasoning ?? ''), ms }
}

interface Window {
  traffic: number[]
  health: number[]
  seconds: number
}

/**
 * The good tenant's calls back to back and /healthz every 10 ms, for `ms` or, when there
 * is an attacker, for as long as its one call (a script burning its whole limit) takes.
 */
async function window(url: string, good: Tenant, ms: number, attacker?: Tenant): Promise<Window> {
  const started = performance.now()
  let done = false
  const hostile = attacker
    ? call(url, attacker, 'burn').then((answer) => {
        expect(answer.message).toMatch(/timed out|wall time limit exceeded|ran past its limit/)
      })
    : new Promise((resolve) => setTimeout(resolve, ms))
  const ended = hostile.finally(() => {
    done = true
  })
  const traffic: number[] = []
  const trafficLoop = (async () => {
    for (let i = 0; !done; i++) {
      const command = i % 2 === 0 ? 'ls -la' : 'rm -rf /'
      const answer = await call(url, good, 'exec', { command })
      expect(answer.decision).toBe(i % 2 === 0 ? 'allow' : 'deny')
      traffic.push(answer.ms)
    }
  })()
  const health: number[] = []
  const healthLoop = (async () => {
    while (!done) {
      const begun = performance.now()
      const response = await fetch(`${url}/healthz`)
      await response.text()
      expect(response.status).toBe(200)
      health.push(performance.now() - begun)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  await Promise.all([ended, trafficLoop, healthLoop])
  return { traffic, health, seconds: (performance.now() - started) / 1000 }
}

/** Latencies and throughput over several windows. */
function summary(windows: Window[]) {
  const traffic = windows.flatMap((w) => w.traffic)
  const health = windows.flatMap((w) => w.health)
  const seconds = windows.reduce((sum, w) => sum + w.seconds, 0)
  return {
    traffic: { n: traffic.length, p99: quantile(traffic, 0.99), perSecond: traffic.length / seconds },
    health: { n: health.length, p99: quantile(health, 0.99) },
    seconds,
  }
}

describe('tenant scripts in worker threads on warden serve', () => {
  const dir = tempDir('warden-script-workers-')
  let warden: Served
  let evil: Tenant
  let good: Tenant

  beforeAll(async () => {
    const db = join(dir, 'warden.db')
    warden = await serve({ dir, name: 'workers', db, yaml: CONFIG })
    const store = await storeAt(db)
    evil = { secret: (await token(store, 'agent', 'evil', `evil-${randomUUID()}`)).token }
    good = { secret: (await token(store, 'agent', 'good', `good-${randomUUID()}`)).token }
    await store.close()
    // Starts the worker and warms both tenants' paths.
    await call(warden.url, evil, 'quick')
    await call(warden.url, good, 'exec', { command: 'ls' })
  }, 60_000)

  afterAll(async () => {
    await warden?.stop()
  })

  it('denies a script that burns its whole limit, with the cause', async () => {
    const answer = await call(warden.url, evil, 'burn')
    expect(answer.decision).toBe('deny')
    expect(answer.message).toMatch(
      /wall time limit exceeded \(limit maxWallTimeMs = 1000 ms\)|ran past its limit of 1250 ms/,
    )
    expect(answer.ms).toBeGreaterThan(500)
  })

  it("keeps the other tenant's and /healthz's p99 under 50 ms and their throughput at 0.8x of a quiet run", async () => {
    // Quiet and hostile windows alternate, so that a machine whose load drifts weighs on both.
    const quiet: Window[] = []
    const hostile: Window[] = []
    for (let round = 0; round < 4; round++) {
      quiet.push(await window(warden.url, good, 1000))
      hostile.push(await window(warden.url, good, 0, evil))
    }
    const q = summary(quiet)
    const h = summary(hostile)
    const seen = JSON.stringify({ quiet: q, hostile: h })
    // Each hostile window lasts as long as the script burns (its limit is a second).
    expect(h.seconds, seen).toBeGreaterThan(3)
    // The bound is 50 ms; on a shared machine whose quiet p99 is already near it, twice
    // the quiet p99 (on the main thread, each hostile call held the server for a second).
    const bound = (quietP99: number) => Math.max(50, 2 * quietP99)
    expect(h.traffic.p99, seen).toBeLessThan(bound(q.traffic.p99))
    expect(h.health.p99, seen).toBeLessThan(bound(q.health.p99))
    expect(h.traffic.perSecond, seen).toBeGreaterThanOrEqual(0.8 * q.traffic.perSecond)
  }, 30_000)

  it('refuses runs past the worker queue, naming the bound', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => call(warden.url, evil, 'burn')))
    const refused = answers.filter((a) => /limit scripts\.queue = 1; scripts\.workers = 1/.test(a.message))
    expect(refused.length, JSON.stringify(answers)).toBeGreaterThanOrEqual(2)
    for (const answer of answers) expect(answer.decision).toBe('deny')
  }, 30_000)
})
