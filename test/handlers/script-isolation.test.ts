// Tenant Starlark hooks off the main thread, through a real engine and real worker threads:
// a hostile script that burns its whole wall-time limit leaves the event loop free and
// denies with the cause; a script moved to a worker still reads and writes its own
// tenant's counters and cache, its context and the hooks it may list; the queue bound
// denies naming the setting.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine, type HookDefinition } from '../../src/core/index.js'
import { createScriptHandler, type ScriptHandlerOptions } from '../../src/handlers/index.js'
import { createOutboundClient } from '../../src/net/index.js'

/** Burns its whole wall-time limit: each replace works on 5 million characters. */
const HOSTILE = `
def handle(event, payload):
    n = 0
    for i in range(100000):
        n += len(("ab" * 2500000).replace("a", "c"))
    return allow()
`

/** Takes well past the main-thread slice, then uses every host builtin. */
const BUSY = `
def handle(event, payload):
    n = 0
    for i in range(300000):
        n += i % 7
    runs = metrics.incr("runs")
    seen = cache.get("seen", 0)
    cache.set("seen", seen + 1)
    names = [h["name"] for h in hooks.list()]
    log("busy run " + str(runs))
    args = dict(payload["args"])
    args["note"] = "runs=%d seen=%d tenant=%s hooks=%s" % (runs, seen, context()["tenantId"], ",".join(names))
    return modify({"name": payload["name"], "args": args})
`

const engines: Engine[] = []
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()))
})

function engineWith(hooks: HookDefinition[], options: ScriptHandlerOptions = {}): Engine {
  const handler = createScriptHandler({ ...options, loadedHooks: () => engine.hooks() })
  const engine = createEngine({ handlers: [handler], hooks })
  engines.push(engine)
  return engine
}

const scripted = (name: string, source: string, tenant?: string): HookDefinition => ({
  name,
  event: 'tool.pre',
  timeoutMs: 5000,
  ...(tenant ? { scope: { tenant } } : {}),
  handler: { type: 'script', source },
})

const toolPre = (tenant: string, session = 's1') => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'ls' } } },
  context: { tenantId: tenant, session: { id: session } },
})

/** Dispatches while a 1 ms timer runs; returns the result and the longest gap between ticks. */
async function withLoopWatch<T>(work: () => Promise<T>): Promise<{ result: T; longestGapMs: number }> {
  let longest = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 1)
  try {
    const result = await work()
    return { result, longestGapMs: Math.max(longest, performance.now() - last) }
  } finally {
    clearInterval(timer)
  }
}

describe('tenant scripts off the main thread', () => {
  it('a hostile tenant script burns its limit in a worker, not on the event loop, and denies with the cause', async () => {
    const limits = { maxWallTimeMs: 400 }
    const isolated = engineWith([scripted('hostile', HOSTILE, 'evil')], { limits })
    const inline = engineWith([scripted('hostile', HOSTILE, 'evil')], {
      limits,
      isolation: { isolate: 'none' },
    })
    // The first run starts the worker; the second is the steady state.
    await isolated.dispatch(toolPre('evil'))
    const off = await withLoopWatch(() => isolated.dispatch(toolPre('evil')))
    const on = await withLoopWatch(() => inline.dispatch(toolPre('evil')))
    for (const run of [off.result, on.result]) {
      expect(run.decision).toBe('deny')
      expect(run.reason).toMatch(
        /wall time limit exceeded \(limit maxWallTimeMs = 400 ms\)|ran past its limit of 650 ms/,
      )
    }
    // On the main thread the script holds the loop for much of its limit; in a worker the
    // loop keeps ticking (relative, so that a busy machine does not fail it).
    expect(on.longestGapMs).toBeGreaterThan(100)
    expect(off.longestGapMs).toBeLessThan(on.longestGapMs / 5)
  })

  it('a script moved to a worker reads and writes its own tenant’s state only', async () => {
    const engine = engineWith([
      scripted('busy', BUSY, 'acme'),
      scripted('busy', BUSY, 'globex'),
      scripted('global-guard', 'def handle(event, payload):\n    return allow()\n'),
    ])
    const first = await engine.dispatch(toolPre('acme'))
    const second = await engine.dispatch(toolPre('acme'))
    const other = await engine.dispatch(toolPre('globex', 's9'))
    const note = (r: typeof first) => JSON.stringify(r.payload?.tool).match(/"note":"([^"]*)"/)?.[1]
    expect(first.decision).toBe('modify')
    expect(note(first)).toBe('runs=1 seen=0 tenant=acme hooks=busy,global-guard')
    // Counters and the cache were committed on the main thread between the runs.
    expect(note(second)).toBe('runs=2 seen=1 tenant=acme hooks=busy,global-guard')
    // Another tenant starts from zero and lists its own hook, not acme's.
    expect(note(other)).toBe('runs=1 seen=0 tenant=globex hooks=busy,global-guard')
    expect(second.trace.find((t) => t.id === 'acme/busy')?.logs).toEqual(['busy run 2'])
  })

  it('a script moved to a worker makes http calls through the main thread, counted once, and keeps to the allowlist', async () => {
    const seen: string[] = []
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ verdict: 'deny' }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const engine = engineWith(
        [
          scripted(
            'remote',
            `
def handle(event, payload):
    n = 0
    for i in range(300000):
        n += i % 7
    metrics.incr("calls")
    a = http.get("${base}/first")
    b = http.post("${base}/second", json={"n": n})
    if payload["name"] == "elsewhere":
        http.get("http://169.254.169.254/latest/meta-data")
    return block("remote said %s after %d" % (b["json"]["verdict"], metrics.get("calls")))
`,
            'acme',
          ),
        ],
        { httpAllow: ['127.0.0.1'], client: createOutboundClient({ allow: ['127.0.0.1'] }) },
      )
      const decision = await engine.dispatch(toolPre('acme'))
      expect(decision.reason).toBe('remote said deny after 1')
      expect(seen).toEqual(['GET /first', 'POST /second'])
      const refused = await engine.dispatch({
        ...toolPre('acme'),
        payload: { tool: { name: 'elsewhere', input: {} } },
      })
      expect(refused.decision).toBe('deny')
      expect(refused.reason).toContain('host "169.254.169.254" is not in the script http allowlist')
      expect(seen).toHaveLength(4)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('refuses a run past the queue bound, naming the setting', async () => {
    const engine = engineWith([scripted('hostile', HOSTILE, 'evil')], {
      limits: { maxWallTimeMs: 400 },
      isolation: { workers: 1, queue: 0 },
    })
    const [a, b] = await Promise.all([
      engine.dispatch(toolPre('evil')),
      engine.dispatch(toolPre('evil', 's2')),
    ])
    const reasons = [a.reason, b.reason].join('\n')
    expect(a.decision).toBe('deny')
    expect(b.decision).toBe('deny')
    expect(reasons).toMatch(/limit scripts\.queue = 0; scripts\.workers = 1/)
  })
})
