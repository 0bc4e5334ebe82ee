// One tenant's Starlark cannot stall another on a real `warden serve`, whatever the
// script's wall-time limit (the default second here): a script that burns its whole limit
// runs in a worker thread and is denied with the cause, while the other tenant's calls and
// /healthz keep their p99 under 50 ms and their throughput at 0.8x of a quiet run (bounds
// relative to the quiet run, as the other neighbour tests do on a busy machine). A flood
// past the worker queue is refused naming the bound.

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

const call = (url: string, tenant: Tenant, tool: string, inputs: Record<string, unknown> = {}) =>
  callTool(url, tenant.secret, tool, inputs)

/**
 * The good tenant's traffic for `ms` or, when there is an attacker, for as long as its one
 * call (a script burning its whole limit) takes.
 */
async function window(url: string, good: Tenant, ms: number, attacker?: Tenant): Promise<Window> {
  let done = false
  const hostile = attacker
    ? call(url, attacker, 'burn').then((answer) => {
        expect(answer.message).toMatch(/timed out|wall time limit exceeded|ran past its limit/)
      })
    : new Promise((resolve) => setTimeout(resolve, ms))
  const ended = hostile.finally(() => {
    done = true
  })
  const [window] = await Promise.all([neighbourWindow(url, good.secret, () => done), ended])
  return window
}

describe('tenant scripts in worker threads on warden serve', () => {
  const dir = tempDir('warden-script-workers-')
  let warden: Served
  let evil: Tenant
  let good: Tenant

  beforeAll(async () => {
    const served = await serveNeighbours(dir, 'workers', CONFIG)
    warden = served.warden
    evil = { secret: served.evil }
    good = { secret: served.good }
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
    // On the main thread, each hostile call held the server for a second.
    expectNeighbourKept(q, h, seen)
  }, 30_000)

  it('refuses runs past the worker queue, naming the bound', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => call(warden.url, evil, 'burn')))
    const refused = answers.filter((a) => /limit scripts\.queue = 1; scripts\.workers = 1/.test(a.message))
    expect(refused.length, JSON.stringify(answers)).toBeGreaterThanOrEqual(2)
    for (const answer of answers) expect(answer.decision).toBe('deny')
  }, 30_000)
})
