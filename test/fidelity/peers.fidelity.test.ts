// Peer fidelity: hooks written in the shapes loom, AI Harness, GoClaw and Joch (AOS)
// document behave under Warden as they do at home. Each table row is a documented
// example; the engine runs it for real (fn hooks, Starlark scripts, real shell commands, a
// real Guardian over loopback HTTP).

import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type HookDefinition, type JsonObject } from '../../src/core/index.js'
import { commandHandler, createScriptHandler, fnHandler, guardianHandler } from '../../src/handlers/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { createAosGuardianCodec } from '../../src/protocols/index.js'
import { parseGoclawHooks } from '../../src/sources/index.js'

const bash = (command: string) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'Bash', input: { command } } },
  context: { session: { id: 'sess-1' }, turnId: 't1' },
})

describe('loom fn hooks', () => {
  const rows: {
    name: string
    fn: (ctx: Record<string, unknown>) => unknown
    decision: string
    reason?: string
    context?: string[]
  }[] = [
    {
      name: 'continue: false blocks with its reason',
      fn: () => ({ continue: false, reason: 'no network in tests' }),
      decision: 'deny',
      reason: 'no network in tests',
    },
    { name: 'continue: true allows', fn: () => ({ continue: true }), decision: 'allow' },
    { name: 'an empty object allows', fn: () => ({}), decision: 'allow' },
    {
      name: 'output is hook output for the model, not a rewrite',
      fn: () => ({ continue: true, output: 'lint passed' }),
      decision: 'allow',
      context: ['hook loom-hook output: lint passed'],
    },
    {
      name: 'ctx.event is the event name and ctx.toolInput the input',
      fn: (ctx) =>
        ctx.event === 'tool.pre' && (ctx.toolInput as { command: string }).command.startsWith('rm')
          ? { continue: false, reason: `${ctx.toolName} rm refused in ${ctx.sessionId}` }
          : { continue: true },
      decision: 'deny',
      reason: 'Bash rm refused in sess-1',
    },
    {
      name: 'an async hook works the same',
      fn: async () => ({ continue: false, reason: 'later' }),
      decision: 'deny',
      reason: 'later',
    },
  ]
  for (const row of rows) {
    it(row.name, async () => {
      const engine = createEngine({
        handlers: [fnHandler],
        hooks: [
          { name: 'loom-hook', event: 'tool.pre', handler: { type: 'fn', fn: row.fn, dialect: 'loom' } },
        ],
      })
      const decision = await engine.dispatch(bash('rm -rf build'))
      expect(decision.decision).toBe(row.decision)
      if (row.reason) expect(decision.reason).toBe(row.reason)
      expect(decision.additionalContext).toEqual(row.context ?? [])
      expect(decision.payload).toBeUndefined()
    })
  }

  it('runs hooks in registration order with order: registration', async () => {
    const seen: string[] = []
    const hook = (name: string, priority: number): HookDefinition => ({
      name,
      event: 'tool.pre',
      priority,
      handler: { type: 'fn', dialect: 'loom', fn: () => void seen.push(name) },
    })
    const hooks = [hook('zeta', 5), hook('alpha', 1), hook('mid', 3)]
    const loom = createEngine({ handlers: [fnHandler], hooks, order: 'registration' })
    await loom.dispatch(bash('ls'))
    expect(seen).toEqual(['zeta', 'alpha', 'mid'])
    expect(loom.hooks().map((h) => h.name)).toEqual(['zeta', 'alpha', 'mid'])
    seen.length = 0
    await createEngine({ handlers: [fnHandler], hooks }).dispatch(bash('ls'))
    expect(seen).toEqual(['alpha', 'mid', 'zeta'])
  })
})

describe('AI Harness scripts', () => {
  const script = (name: string, event: string, source: string, priority = 0): HookDefinition => ({
    name,
    event,
    priority,
    handler: { type: 'script', source },
  })
  const rows: { name: string; source: string; decision: string }[] = [
    {
      name: 'metrics.set is a gauge',
      source:
        'def handle(event, payload):\n  metrics.set("queue", 7)\n  metrics.incr("queue")\n  return allow() if metrics.get("queue") == 8 else block("gauge wrong")\n',
      decision: 'allow',
    },
    {
      name: 'log.info and log.warn exist beside log()',
      source:
        'def handle(event, payload):\n  log("plain")\n  log.info("seen %s" % payload["name"])\n  log.warn("careful")\n  return allow()\n',
      decision: 'allow',
    },
    {
      name: 'log.info inside a string is left alone',
      source: 'def handle(event, payload):\n  return block("call log.info(x) # not code")\n',
      decision: 'deny',
    },
  ]
  for (const row of rows) {
    it(row.name, async () => {
      const engine = createEngine({
        handlers: [createScriptHandler()],
        hooks: [script('h', 'tool.pre', row.source)],
      })
      const decision = await engine.dispatch(bash('ls'))
      expect(decision.decision, decision.reason).toBe(row.decision)
    })
  }

  it('logs of the turn flow into the turn.end payload', async () => {
    const engine = createEngine({
      handlers: [createScriptHandler()],
      hooks: [
        script(
          'pre',
          'tool.pre',
          'def handle(event, payload):\n  log.info("ran " + payload["name"])\n  return allow()\n',
        ),
        script(
          'end',
          'turn.end',
          'def handle(event, payload):\n  return allow() if payload["logs"] == ["[info] ran Bash"] else block("logs: %s" % payload["logs"])\n',
        ),
      ],
    })
    await engine.dispatch(bash('ls'))
    const end = await engine.dispatch({
      event: 'turn.end',
      payload: { message: { role: 'agent', text: 'done' } },
      context: { session: { id: 'sess-1' }, turnId: 't1' },
    })
    expect(end.decision, end.reason).toBe('allow')
  })

  it('accepts delegation.post_verify as an event name', () => {
    const engine = createEngine({
      handlers: [createScriptHandler()],
      hooks: [script('verify', 'delegation.post_verify', 'def handle(event, payload):\n  return allow()\n')],
    })
    expect(engine.hooks()[0]?.event).toBe('subagent.verify')
  })
})

describe('GoClaw definitions', () => {
  const load = (hooks: unknown[]) => parseGoclawHooks(JSON.stringify(hooks), 'goclaw.json')

  it('loads the documented fields and runs higher priority first', async () => {
    const report = load([
      {
        name: 'low',
        event: 'pre_tool_use',
        handler_type: 'command',
        priority: 1,
        config: { command: 'echo low >&2; exit 2' },
      },
      {
        name: 'high',
        event: 'pre_tool_use',
        handler_type: 'command',
        priority: 10,
        matcher: '^Bash$',
        if_expr: 'tool_input.command.startsWith("rm")',
        timeout_ms: 2000,
        on_timeout: 'allow',
        scope: 'agent',
        agent_ids: ['builder'],
        config: { command: 'echo high >&2; exit 2' },
      },
    ])
    expect(report.problems).toEqual([])
    const engine = createEngine({ handlers: [commandHandler], hooks: report.hooks })
    const rm = { ...bash('rm -rf x'), context: { agent: { id: 'builder' } } }
    expect((await engine.dispatch(rm)).reason).toBe('high')
    expect((await engine.dispatch(bash('rm -rf x'))).reason).toBe('low')
    expect(report.hooks[1]).toMatchObject({
      timeoutMs: 2000,
      onTimeout: 'allow',
      scope: { agents: ['builder'] },
    })
  })

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['timeout over 10 s', { timeout_ms: 20_000 }, /timeout_ms must be a whole number of ms from 1 to 10000/],
    ['on_timeout other than block|allow', { on_timeout: 'deny' }, /on_timeout must be "block" or "allow"/],
    ['tenant scope without tenant_id', { scope: 'tenant' }, /scope "tenant" needs tenant_id/],
    ['unknown handler type', { handler_type: 'grpc' }, /handler_type "grpc" must be command, http or prompt/],
  ]
  for (const [label, change, message] of bad) {
    it(`refuses ${label}`, () => {
      const report = load([
        { name: 'x', event: 'pre_tool_use', handler_type: 'command', config: { command: 'true' }, ...change },
      ])
      expect(report.problems.map((p) => p.message)).toEqual([expect.stringMatching(message)])
    })
  }

  it('warns about a field Warden does not know, naming the hook', () => {
    const report = load([
      { name: 'x', event: 'stop', handler_type: 'command', config: { command: 'true' }, retries: 3 },
    ])
    expect(report.warnings.map((w) => w.message)).toEqual([
      'hooks[0] (hook "x"): field "retries" is not one Warden knows; it was ignored',
    ])
  })
})

describe('Joch (AOS) Guardian answers', () => {
  let server: Server
  let url = ''
  let answer: (request: JsonObject) => JsonObject = () => ({})
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => {
        body += d
      })
      req.on('end', () => {
        const request = JSON.parse(body) as JsonObject
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: answer(request) }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/aos`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  async function ask(result: JsonObject) {
    answer = () => result
    const client = createOutboundClient({ allow: ['127.0.0.0/8'] })
    const engine = createEngine({
      handlers: [guardianHandler({ client, codec: createAosGuardianCodec() })],
      hooks: [{ name: 'joch', event: 'tool.pre', handler: { type: 'guardian', url } }],
    })
    const decision = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /', dir: '/' } } },
      context: { session: { id: 's' } },
    })
    await client.close()
    return decision
  }

  it('keeps Joch reason and policyId/policyVersion', async () => {
    const decision = await ask({
      decision: 'deny',
      reason: 'destructive command',
      policyId: 'no-rm',
      policyVersion: '3',
    })
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toBe('destructive command')
    expect(decision.reasonCode).toContain('no-rm@3')
  })

  it('applies a partial modifiedRequest such as {"inputs": [...]}', async () => {
    const decision = await ask({
      decision: 'modify',
      message: 'scoped to /tmp',
      modifiedRequest: {
        inputs: [
          { name: 'cmd', value: 'ls' },
          { name: 'dir', value: '/tmp' },
        ],
      },
    })
    expect(decision.decision, decision.reason).toBe('modify')
    expect(decision.payload?.tool).toMatchObject({ name: 'exec', input: { cmd: 'ls', dir: '/tmp' } })
  })
})
