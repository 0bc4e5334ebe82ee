// One tenant's detector scans cannot stall another on a real `warden serve`: while a
// hostile tenant sends 1 MB of random text through its secrets detector in a loop (a scan
// of a few hundred milliseconds each on the main thread), the scans run in a worker thread
// and the other tenant's calls and /healthz keep their p99 under 50 ms and their
// throughput at 0.8x of a quiet run (bounds relative to the quiet run, as the other
// neighbour tests do on a busy machine).

import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  callTool,
  expectNeighbourKept,
  neighbourWindow,
  serveNeighbours,
  summary,
  type Window,
} from '../helpers/neighbours.js'
import { type Served, tempDir } from '../server/management-helper.js'

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

const call = callTool

/** The good tenant's traffic for `ms`, with or without the hostile loop beside it. */
async function window(
  url: string,
  good: string,
  ms: number,
  evil?: string,
): Promise<Window & { scans: number }> {
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
  const [window] = await Promise.all([neighbourWindow(url, good, () => done), timer, hostile])
  return { ...window, scans }
}

describe('tenant detector scans in worker threads on warden serve', () => {
  const dir = tempDir('warden-detector-workers-')
  let warden: Served
  let evil: string
  let good: string

  beforeAll(async () => {
    ;({ warden, evil, good } = await serveNeighbours(dir, 'detectors', CONFIG))
    // Starts the worker and warms both tenants' paths.
    await call(warden.url, evil, 'upload', { text: HOSTILE })
    await call(warden.url, good, 'exec', { command: 'ls' })
  }, 60_000)

  afterAll(async () => {
    await warden?.stop()
  })

  it("keeps the other tenant's and /healthz's p99 under 50 ms and their throughput at 0.8x of a quiet run", async () => {
    // Quiet and hostile windows alternate, so that a machine whose load drifts weighs on both.
    const quiet: (Window & { scans: number })[] = []
    const hostile: (Window & { scans: number })[] = []
    for (let round = 0; round < 3; round++) {
      quiet.push(await window(warden.url, good, 1500))
      hostile.push(await window(warden.url, good, 1500, evil))
    }
    const q = summary(quiet)
    const h = summary(hostile)
    const scans = hostile.reduce((sum, w) => sum + w.scans, 0)
    const seen = JSON.stringify({ quiet: q, hostile: h, scans })
    // The hostile tenant kept a scan going through the hostile windows.
    expect(scans, seen).toBeGreaterThanOrEqual(6)
    // On the main thread, each hostile scan held the server for its length.
    expectNeighbourKept(q, h, seen)
  }, 30_000)
})
