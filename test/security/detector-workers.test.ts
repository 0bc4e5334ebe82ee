// One tenant's detector scans cannot stall another on a real `warden serve`: while a
// hostile tenant sends 1 MB of random text through its secrets detector in a loop (a scan
// of a few hundred milliseconds each on the main thread), the scans run in a worker thread
// and the other tenant's calls and /healthz keep their p99 under 50 ms and their
// throughput at 0.8x of a quiet run (bounds relative to the quiet run, as the other
// neighbour tests do on a busy machine).

import { randomBytes, randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { quantile } from '../../bench/lib.js'
import { aos, type Loose, type Served, serve, storeAt, tempDir, token } from '../server/management-helper.js'

const CONFIG = `
server: { auth: token, bodyLimitBytes: 4194304 }
limits: { breaker: { failures: 1000000 } }
detectors: { workers: 1 }
hooks:
  - name: evil-secrets
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^upload$"
    handler: { type: detector, detector: secrets }
  - name: good-shell
    event: tool.pre
    scope: { tenant: good }
    matcher: "^exec$"
    handler: { type: detector, detector: shell }
`

/**
 * A million characters of random words: about 170 ms of the secrets detector's work on an
 * idle core, and no finding (a text full of findings also costs the audit trail's masking
 * of each, on the main thread: see test/audit/redact-values.test.ts).
 */
const HOSTILE = Array.from(randomBytes(1_000_000), (b) =>
  b % 7 === 0 ? ' ' : String.fromCharCode(97 + (b % 26)),
).join('')

async function call(
  url: string,
  secret: string,
  tool: string,
  inputs: Record<string, unknown>,
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
    { authorization: `Bearer ${secret}` },
  )
  const ms = performance.now() - started
  expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200)
  const result = answer.body.result as Loose
  return { decision: result.decision, message: String(result.message ?? result.reasoning ?? ''), ms }
}

interface Window {
  traffic: number[]
  health: number[]
  scans: number
  seconds: number
}

/** The good tenant's calls back to back and /healthz every 10 ms for `ms`, with or without the hostile loop. */
async function window(url: string, good: string, ms: number, evil?: string): Promise<Window> {
  const started = performance.now()
  let done = false
  let scans = 0
  const timer = new Promise((resolve) => setTimeout(resolve, ms)).then(() => {
    done = true
  })
  const hostile = (async () => {
    while (evil && !done) {
      const answer = await call(url, evil, 'upload', { text: HOSTILE })
      expect(answer.decision).toBe('allow')
      scans++
    }
  })()
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
  await Promise.all([timer, hostile, trafficLoop, healthLoop])
  return { traffic, health, scans, seconds: (performance.now() - started) / 1000 }
}

function summary(windows: Window[]) {
  const traffic = windows.flatMap((w) => w.traffic)
  const health = windows.flatMap((w) => w.health)
  const seconds = windows.reduce((sum, w) => sum + w.seconds, 0)
  return {
    traffic: { n: traffic.length, p99: quantile(traffic, 0.99), perSecond: traffic.length / seconds },
    health: { n: health.length, p99: quantile(health, 0.99) },
    scans: windows.reduce((sum, w) => sum + w.scans, 0),
    seconds,
  }
}

describe('tenant detector scans in worker threads on warden serve', () => {
  const dir = tempDir('warden-detector-workers-')
  let warden: Served
  let evil: string
  let good: string

  beforeAll(async () => {
    const db = join(dir, 'warden.db')
    warden = await serve({ dir, name: 'detectors', db, yaml: CONFIG })
    const store = await storeAt(db)
    evil = (await token(store, 'agent', 'evil', `evil-${randomUUID()}`)).token
    good = (await token(store, 'agent', 'good', `good-${randomUUID()}`)).token
    await store.close()
    // Starts the worker and warms both tenants' paths.
    await call(warden.url, evil, 'upload', { text: HOSTILE })
    await call(warden.url, good, 'exec', { command: 'ls' })
  }, 60_000)

  afterAll(async () => {
    await warden?.stop()
  })

  it("keeps the other tenant's and /healthz's p99 under 50 ms and their throughput at 0.8x of a quiet run", async () => {
    // Quiet and hostile windows alternate, so that a machine whose load drifts weighs on both.
    const quiet: Window[] = []
    const hostile: Window[] = []
    for (let round = 0; round < 3; round++) {
      quiet.push(await window(warden.url, good, 1500))
      hostile.push(await window(warden.url, good, 1500, evil))
    }
    const q = summary(quiet)
    const h = summary(hostile)
    const seen = JSON.stringify({ quiet: q, hostile: h })
    // The hostile tenant kept a scan going through the hostile windows.
    expect(h.scans, seen).toBeGreaterThanOrEqual(6)
    // The bound is 50 ms; on a shared machine whose quiet p99 is already near it, twice
    // the quiet p99 (on the main thread, each hostile scan held the server for its length).
    const bound = (quietP99: number) => Math.max(50, 2 * quietP99)
    expect(h.traffic.p99, seen).toBeLessThan(bound(q.traffic.p99))
    expect(h.health.p99, seen).toBeLessThan(bound(q.health.p99))
    expect(h.traffic.perSecond, seen).toBeGreaterThanOrEqual(0.8 * q.traffic.perSecond)
  }, 30_000)
})
