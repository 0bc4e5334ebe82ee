// The Starlark hook handler through a real engine: payload views and modify mapped back,
// `when`, every built-in, failures that deny with their position, and the sandbox.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type HandlerFactory, type HookDefinition } from '../../src/core/index.js'
import { createScriptHandler, fnHandler } from '../../src/handlers/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { scriptedResolver } from '../net/helpers.js'

const toolPre = (name: string, input: Record<string, unknown> = {}) => ({
  event: 'tool.pre',
  payload: { tool: { name, input } },
  context: { session: { id: 's1' } },
})

function hook(source: string, extra: Partial<HookDefinition> & { when?: string } = {}): HookDefinition {
  const { when, ...rest } = extra
  return {
    name: 'guard',
    event: 'tool.pre',
    ...rest,
    handler: { type: 'script', source, file: 'guard.md', ...(when ? { when } : {}) },
  }
}

function engineWith(
  hooks: HookDefinition[],
  handler: HandlerFactory = createScriptHandler(),
  approver?: never,
) {
  return createEngine({ handlers: [handler, fnHandler], hooks, ...(approver ? { approver } : {}) })
}

describe('script handler: decisions and views', () => {
  it('sees tool.pre as {name, args} and blocks with its reason', async () => {
    const engine = engineWith([
      hook(`
def handle(event, payload):
    if event != "tool.pre":
        return block("wrong event " + event)
    if "rm -rf" in payload["args"]["cmd"]:
        return block("refused " + payload["name"])
    return allow()
`),
    ])
    const denied = await engine.dispatch(toolPre('exec', { cmd: 'rm -rf /' }))
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toBe('refused exec')
    const allowed = await engine.dispatch(toolPre('exec', { cmd: 'ls' }))
    expect(allowed.decision).toBe('allow')
  })

  it('maps modify of the tool.pre view back onto tool.input', async () => {
    const engine = engineWith([
      hook(`
def handle(event, payload):
    args = dict(payload["args"])
    args["cmd"] = args["cmd"].replace("--force", "")
    return modify({"name": payload["name"], "args": args})
`),
    ])
    const decision = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'git', input: { cmd: 'push --force', cwd: '/r' }, id: 't1' } },
    })
    expect(decision.decision).toBe('modify')
    expect(decision.payload).toEqual({ tool: { name: 'git', input: { cmd: 'push ', cwd: '/r' }, id: 't1' } })
  })

  it('gives tool.post as {name, args, result, error} and maps result and error back', async () => {
    const engine = engineWith([
      hook(
        `
def handle(event, payload):
    if payload["error"] != None:
        return modify({"name": payload["name"], "args": payload["args"], "result": "hidden failure", "error": None})
    return modify({"result": payload["result"].replace("secret", "[x]"), "error": None})
`,
        { event: 'tool.post' },
      ),
    ])
    const ok = await engine.dispatch({
      event: 'tool.post',
      payload: { tool: { name: 'read', input: { p: 1 }, output: 'a secret b' } },
    })
    expect(ok.payload).toEqual({ tool: { name: 'read', input: { p: 1 }, output: 'a [x] b', isError: false } })
    const failed = await engine.dispatch({
      event: 'tool.post',
      payload: { tool: { name: 'read', input: {}, output: 'ENOENT', isError: true } },
    })
    expect(failed.payload).toEqual({
      tool: { name: 'read', input: {}, output: 'hidden failure', isError: false },
    })
  })

  it('gives model.pre as {messages} and keeps the other model fields on modify', async () => {
    const engine = engineWith([
      hook(
        `
def handle(event, payload):
    kept = [m for m in payload["messages"] if m["role"] != "system"]
    return modify({"messages": kept})
`,
        { event: 'model.pre' },
      ),
    ])
    const decision = await engine.dispatch({
      event: 'model.pre',
      payload: {
        model: {
          name: 'm1',
          messages: [
            { role: 'system', content: 'x' },
            { role: 'user', content: 'hi' },
          ],
        },
      },
    })
    expect(decision.payload).toEqual({ model: { name: 'm1', messages: [{ role: 'user', content: 'hi' }] } })
  })

  it('gives other events the canonical payload', async () => {
    const engine = engineWith([
      hook(
        `
def handle(event, payload):
    return modify({"message": {"role": "user", "text": payload["message"]["text"].upper()}})
`,
        { event: 'user.message' },
      ),
    ])
    const decision = await engine.dispatch({
      event: 'user.message',
      payload: { message: { role: 'user', text: 'hi' } },
    })
    expect(decision.payload).toEqual({ message: { role: 'user', text: 'HI' } })
  })

  it('holds ask() for the approver: denied without one, allowed when approved', async () => {
    const source = 'def handle(event, payload):\n    return ask("deploys need a human")\n'
    const alone = engineWith([hook(source)])
    const denied = await alone.dispatch(toolPre('deploy'))
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toContain('deploys need a human')
    expect(denied.approval?.outcome).toBe('unavailable')
    const withApprover = createEngine({
      handlers: [createScriptHandler()],
      hooks: [hook(source)],
      approver: () => ({ outcome: 'approve', by: 'ops' }),
    })
    const approved = await withApprover.dispatch(toolPre('deploy'))
    expect(approved.decision).toBe('allow')
    expect(approved.approval?.by).toBe('ops')
  })
})

describe('script handler: when', () => {
  it('skips handle when `when` is false and runs it when true', async () => {
    const engine = engineWith([
      hook('def handle(event, payload):\n    return block("exec is off")\n', {
        when: 'payload["name"] == "exec" and event == "tool.pre"',
      }),
    ])
    const other = await engine.dispatch(toolPre('read'))
    expect(other.decision).toBe('allow')
    expect(other.trace[0]?.outcome).toBe('abstain')
    expect((await engine.dispatch(toolPre('exec'))).decision).toBe('deny')
  })

  it('denies with the position when `when` fails', async () => {
    const engine = engineWith([
      hook('def handle(event, payload):\n    return allow()\n', { when: 'payload["missing"] == 1' }),
    ])
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/when failed: guard\.md:1:\d+: .*missing/)
  })
})

describe('script handler: failures deny with the Starlark error and its position', () => {
  it('a run-time error names file:line:col and the function', async () => {
    const engine = engineWith([hook('def handle(event, payload):\n    x = {}\n    return x["nope"]\n')])
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/^hook "guard" failed closed: guard\.md:3:\d+: in handle: .*nope/)
  })

  it('an answer that is not a decision denies, None included', async () => {
    for (const [body, shown] of [
      ['return None', 'None'],
      ['return 1', 'a number'],
      ['return "allow"', 'a string "allow"'],
      ['pass', 'None'],
    ]) {
      const engine = engineWith([hook(`def handle(event, payload):\n    ${body}\n`)])
      const decision = await engine.dispatch(toolPre('exec'))
      expect(decision.decision).toBe('deny')
      expect(decision.reason).toContain(`handle returned ${shown}, not a decision`)
    }
  })

  it('onError: allow lets the action through, saying why', async () => {
    const engine = engineWith([
      hook('def handle(event, payload):\n    fail("broken")\n', { onError: 'allow' }),
    ])
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('allow')
    expect(decision.trace[0]?.reason).toContain('broken')
  })

  it('refuses at registration: syntax errors, a missing handle, a wrong arity, top-level effects', () => {
    const cases: [string, RegExp][] = [
      ['def handle(event, payload):\n    return (1 +\n', /guard\.md:\d:\d+: Starlark syntax error/],
      [
        'def handle(event, payload):\n    while True:\n        pass\n',
        /guard\.md:2:\d+: .*while loops are not allowed/,
      ],
      [`X = ${'['.repeat(1000)}${']'.repeat(1000)}\ndef handle(e, p):\n    return allow()\n`, /nest/],
      ['X = [0 for i in range(100000000)]\ndef handle(e, p):\n    return allow()\n', /limit/],
      ['X = 1\n', /must define handle\(event, payload\)/],
      ['def handle(payload):\n    return allow()\n', /handle must take two parameters/],
      ['handle = 3\n', /handle must be a function/],
      ['metrics.incr("x")\ndef handle(e, p):\n    return allow()\n', /can only be used inside handle/],
      ['load("x.star", "y")\n', /load/],
    ]
    for (const [source, message] of cases) {
      expect(() => engineWith([hook(source)])).toThrow(message)
    }
  })

  it('modify with a value JSON cannot hold denies', async () => {
    const engine = engineWith([
      hook('def handle(event, payload):\n    return modify({"name": "x", "args": {"f": len}})\n'),
    ])
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toContain('JSON cannot represent')
  })
})

describe('script handler: built-ins', () => {
  it('metrics count across events; log lines reach the trace; context() reads the context', async () => {
    const engine = engineWith([
      hook(`
def handle(event, payload):
    n = metrics.incr("calls")
    metrics.incr("by-tool." + payload["name"], 2)
    log("call %d from session %s" % (n, context()["session"]["id"]))
    if metrics.get("calls") > 2:
        return block("rate: " + str(metrics.snapshot()))
    return allow()
`),
    ])
    const first = await engine.dispatch(toolPre('exec'))
    expect(first.trace[0]?.logs).toEqual(['call 1 from session s1'])
    await engine.dispatch(toolPre('read'))
    const third = await engine.dispatch(toolPre('exec'))
    expect(third.decision).toBe('deny')
    expect(third.reason).toBe('rate: {"by-tool.exec": 4, "by-tool.read": 2, "calls": 3}')
  })

  it('cache.get/set keep values per run (session)', async () => {
    const engine = engineWith([
      hook(`
def handle(event, payload):
    seen = cache.get("seen", [])
    if payload["name"] in seen:
        return block("already ran " + payload["name"] + " in this run")
    cache.set("seen", seen + [payload["name"]])
    return allow()
`),
    ])
    const inRun = (name: string, session: string) =>
      engine.dispatch({
        event: 'tool.pre',
        payload: { tool: { name, input: {} } },
        context: { session: { id: session } },
      })
    expect((await inRun('exec', 'a')).decision).toBe('allow')
    expect((await inRun('read', 'a')).decision).toBe('allow')
    expect((await inRun('exec', 'a')).decision).toBe('deny')
    expect((await inRun('exec', 'b')).decision).toBe('allow')
  })

  it('globals are frozen after the module runs', async () => {
    const engine = engineWith([
      hook('SEEN = []\ndef handle(event, payload):\n    SEEN.append(1)\n    return allow()\n'),
    ])
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/frozen/)
  })
})

describe('script handler: http', () => {
  let server: Server
  let base: string
  const seen: { method: string; url: string; body: string }[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => {
        body += c
      })
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body })
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ verdict: req.url === '/bad' ? 'deny' : 'ok', got: body }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('refuses every host by default, before any connection', async () => {
    const before = seen.length
    const engine = engineWith([
      hook(`def handle(event, payload):\n    http.get("${base}/x")\n    return allow()\n`),
    ])
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toContain('is not in the script http allowlist')
    expect(seen.length).toBe(before)
  })

  it('refuses hosts outside the allowlist (metadata address included) without connecting', async () => {
    const handler = createScriptHandler({ httpAllow: ['127.0.0.1'] })
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/',
      'https://example.com/',
    ]) {
      const engine = engineWith(
        [hook(`def handle(event, payload):\n    http.get("${url}")\n    return allow()\n`)],
        handler,
      )
      const decision = await engine.dispatch(toolPre('exec'))
      expect(decision.decision).toBe('deny')
      expect(decision.reason).toContain('not in the script http allowlist')
    }
  })

  it('goes through the SSRF-checked client: an allowlisted name that resolves to loopback is refused', async () => {
    const before = seen.length
    const port = new URL(base).port
    const handler = createScriptHandler({
      httpAllow: ['api.partner.test'],
      client: createOutboundClient({ resolver: scriptedResolver({ 'api.partner.test': ['127.0.0.1'] }) }),
    })
    const engine = engineWith(
      [
        hook(
          `def handle(event, payload):\n    http.get("http://api.partner.test:${port}/x")\n    return allow()\n`,
        ),
      ],
      handler,
    )
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/127\.0\.0\.1.*loopback|loopback.*127\.0\.0\.1/)
    expect(decision.reason).toContain('network')
    expect(seen.length).toBe(before)
  })

  it('get and post reach an allowlisted host; effects before a call count once', async () => {
    const handler = createScriptHandler({
      httpAllow: ['127.0.0.1'],
      client: createOutboundClient({ allow: ['127.0.0.1'] }),
    })
    const engine = engineWith(
      [
        hook(`
def handle(event, payload):
    metrics.incr("runs")
    a = http.get("${base}/ok")
    b = http.post("${base}/bad", json={"tool": payload["name"]})
    log("statuses %d %d" % (a["status"], b["status"]))
    if b["json"]["verdict"] == "deny":
        return block("remote said no to " + b["json"]["got"] + " after " + str(metrics.get("runs")))
    return allow()
`),
      ],
      handler,
    )
    const decision = await engine.dispatch(toolPre('exec'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toBe('remote said no to {"tool":"exec"} after 1')
    expect(decision.trace[0]?.logs).toEqual(['statuses 200 200'])
    expect(seen.slice(-2).map((s) => `${s.method} ${s.url}`)).toEqual(['GET /ok', 'POST /bad'])
    await handler.close?.()
  })
})

describe('script handler: sandbox', () => {
  const escapes: [string, string, RegExp][] = [
    ['huge range in a comprehension', 'x = [i for i in range(1000000000)]', /limit/],
    ['nested comprehensions', 'x = [[j for j in range(100000)] for i in range(100000)]', /limit/],
    ['string blow-up', 'x = "a" * 100000000', /limit|too long/],
    ['list blow-up by doubling', 'x = [1]\n    for i in range(64):\n        x = x + x', /limit|too large/],
    ['recursion through a lambda', 'f = lambda n: f(n)\n    f(1)', /recursion|not allowed|defined/],
    [
      'mutual recursion',
      'def a(n):\n        return b(n)\n    def b(n):\n        return a(n)\n    a(1)',
      /recursion|not allowed/,
    ],
    ['dict growth', 'd = {}\n    for i in range(10000000):\n        d[i] = i', /limit/],
    ['join blow-up', 'x = ",".join(["y" * 1000000] * 10000)', /limit|too long|too large/],
    ['repeated string doubling', 's = "ab"\n    for i in range(40):\n        s = s + s', /limit|too long/],
    ['format blow-up', 'x = "%s" * 10000000 % tuple(range(10000000))', /limit|too long|too large/],
    ['reaching host objects through the payload', 'x = payload["args"].__class__', /attribute|has no|not/],
    ['reaching the host through a builtin', 'x = getattr(allow, "constructor")', /attribute|has no|not/],
    ['mutating the frozen payload view', 'payload["args"]["cmd"] = "x"', /frozen|immutable|cannot/],
  ]
  for (const [label, body, message] of escapes) {
    it(`stops ${label} with a clear error`, async () => {
      const engine = engineWith([hook(`def handle(event, payload):\n    ${body}\n    return allow()\n`)])
      const started = Date.now()
      const decision = await engine.dispatch(toolPre('exec', { cmd: 'ls' }))
      expect(decision.decision).toBe('deny')
      expect(decision.reason).toMatch(message)
      expect(Date.now() - started).toBeLessThan(20_000)
    })
  }
})
