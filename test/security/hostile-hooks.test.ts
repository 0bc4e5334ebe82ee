// Hostile hooks cannot stall the server: on a real `warden serve`, one tenant's hooks try
// each way of holding the event loop (a CEL matches() with catastrophic backtracking, CEL
// comprehensions nested seven deep, Starlark loops of huge string builtins, a backtracking
// matcher regex) while another tenant's traffic flows and /healthz is polled. Each hostile
// hook is answered quickly, with its cause, and the other tenant's p99 and /healthz's p99
// stay under 50 ms. The breaker is set never to trip, so the hostile hooks keep running for
// the whole test; scripts run with the operator's wall-time limit (scripts.maxWallTimeMs),
// since a script runs on the server's event loop for as long as that limit lets it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  callTool,
  expectNeighbourKept,
  neighbourWindow,
  serveNeighbours,
  summary,
} from '../helpers/neighbours.js'
import { type Served, tempDir } from '../server/management-helper.js'

/** Seven nested all() over ten-element lists: 10^7 steps if nothing bounds it. */
function nestedAll(depth: number): string {
  let expression = 'x0 >= 0'
  for (let i = 0; i < depth; i++) expression = `[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].all(x${i}, ${expression})`
  return expression
}

const CONFIG = `
server: { auth: token }
limits: { breaker: { failures: 1000000 } }
scripts: { maxWallTimeMs: 5 }
hooks:
  - name: cel-regex
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^cel_regex$"
    if: "tool_input.command.matches('^(a+)+$')"
    handler: { type: deny, reason: "all a's" }
  - name: cel-nested
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^cel_nested$"
    if: "${nestedAll(7)}"
    handler: { type: deny, reason: "held" }
  - name: starlark-huge
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^starlark_huge$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            for i in range(200):
                s = ("ab" * 2500000).replace("a", "cc")
            return allow()
  - name: starlark-many
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^starlark_many$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            for i in range(100000):
                s = ("ab" * 20000).replace("a", "cc")
            return allow()
  - name: regex-matcher
    event: tool.pre
    scope: { tenant: evil }
    matcher: "^(a+)+$"
    handler: { type: deny, reason: "all a's" }
  - name: good-guard
    event: tool.pre
    scope: { tenant: good }
    matcher: "^exec$"
    if: "tool_input.command.contains('rm -rf') || tool_input.command.matches('(?i)curl .*[|] *sh')"
    handler: { type: deny, reason: "not on this host" }
`

const BACKTRACKS = `${'a'.repeat(30)}!`

interface Tenant {
  secret: string
}

const call = (url: string, tenant: Tenant, tool: string, inputs: Record<string, unknown>) =>
  callTool(url, tenant.secret, tool, inputs)

interface Hostile {
  tool: string
  inputs: Record<string, unknown>
  decision: string
  cause: RegExp
}

/** A call no hook guards, for the baseline of a busy neighbour. */
const BENIGN: Hostile[] = [{ tool: 'noop', inputs: {}, decision: 'allow', cause: /./ }]

const HOSTILE: Hostile[] = [
  { tool: 'cel_regex', inputs: { command: BACKTRACKS }, decision: 'allow', cause: /./ },
  {
    tool: 'cel_nested',
    inputs: {},
    decision: 'deny',
    cause: /if expression failed: the expression exceeded its cost limit/,
  },
  {
    tool: 'starlark_huge',
    inputs: {},
    decision: 'deny',
    cause: /wall time limit exceeded \(limit maxWallTimeMs = 5 ms\)/,
  },
  {
    tool: 'starlark_many',
    inputs: {},
    decision: 'deny',
    cause: /wall time limit exceeded \(limit maxWallTimeMs = 5 ms\)/,
  },
  { tool: BACKTRACKS, inputs: {}, decision: 'allow', cause: /./ },
]

/**
 * For `ms`: the good tenant's calls (one at a time, 10 ms apart) and /healthz (likewise)
 * while the attacker's calls cycle through `calls` back to back.
 */
async function measure(url: string, good: Tenant, ms: number, attacker: Tenant, calls: readonly Hostile[]) {
  const until = performance.now() + ms
  let hostileCalls = 0
  const hostileLoop = (async () => {
    for (let i = 0; performance.now() < until; i++) {
      const hostile = calls[i % calls.length] as Hostile
      await call(url, attacker, hostile.tool, hostile.inputs)
      hostileCalls++
    }
  })()
  const [window] = await Promise.all([
    neighbourWindow(url, good.secret, () => performance.now() >= until, 10),
    hostileLoop,
  ])
  return { hostileCalls, ...summary([window]) }
}

describe('hostile hooks of one tenant on warden serve', () => {
  const dir = tempDir('warden-hostile-')
  let warden: Served
  let evil: Tenant
  let good: Tenant

  beforeAll(async () => {
    const served = await serveNeighbours(dir, 'hostile', CONFIG)
    warden = served.warden
    evil = { secret: served.evil }
    good = { secret: served.good }
  }, 60_000)

  afterAll(async () => {
    await warden?.stop()
  })

  it('answers each hostile hook quickly, with its cause', async () => {
    for (const hostile of HOSTILE) {
      const answer = await call(warden.url, evil, hostile.tool, hostile.inputs)
      expect(answer.decision, `${hostile.tool}: ${answer.message}`).toBe(hostile.decision)
      if (answer.decision === 'deny') expect(answer.message).toMatch(hostile.cause)
      // Unbounded, each of these holds the server for seconds.
      expect(answer.ms, hostile.tool).toBeLessThan(1000)
    }
  }, 60_000)

  it("keeps the other tenant's p99 and /healthz's p99 under 50 ms while they run", async () => {
    // The same tenant's client, as busy, calling a tool no hook guards: what a busy
    // neighbour costs by itself, whatever its hooks.
    const busy = await measure(warden.url, good, 4000, evil, BENIGN)
    const hostile = await measure(warden.url, good, 10_000, evil, HOSTILE)
    const seen = JSON.stringify({ busy, hostile })
    expect(hostile.hostileCalls, seen).toBeGreaterThan(20)
    expect(hostile.traffic.n, seen).toBeGreaterThan(50)
    // A shared machine with more runnable work than cores can miss 50 ms with a merely busy
    // neighbour; the bound is then twice what was measured with one (unbounded, the hostile
    // hooks hold the server for seconds at a time). The good tenant's calls are paced, so
    // only latency is bounded here.
    expectNeighbourKept(busy, hostile, seen, false)
  }, 60_000)
})
