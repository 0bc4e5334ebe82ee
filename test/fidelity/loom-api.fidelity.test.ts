// loom fidelity, the embedding API: hooks registered and run as loom's own documentation
// ("Hooks" in loom's engine docs) writes them — `HookRegistry`, `HookRuntime`,
// `ReminderInjector`, `{type: 'fn' | 'command', name, ...}` specs, `run(ctx, signal)` —
// against Warden's engine, with real shell commands for command hooks.

import { afterAll, describe, expect, it } from 'vitest'
import {
  createDefaultRegistry,
  createLoomRuntime,
  type HookContext,
  HookRegistry,
  HookRuntime,
  ReminderInjector,
} from '../../src/adapters/loom/index.js'

const registries: HookRegistry[] = []
function setup(options: { observedBlockEndsChain?: boolean } = {}) {
  const registry = new HookRegistry(options)
  registries.push(registry)
  const reminders = new ReminderInjector(createDefaultRegistry())
  return { registry, reminders, hooks: new HookRuntime({ registry, reminders }) }
}
afterAll(async () => {
  await Promise.all(registries.map((r) => r.engine.close()))
})

const toolPre = (toolInput: Record<string, unknown>) =>
  ({ event: 'tool.pre', turnIndex: 0, toolName: 'write_file', toolInput }) as const

describe('loom', () => {
  // "A spec is { type: 'fn', name, fn } or { type: 'command', name, command }."
  it("registry.register(event, { type: 'fn', name, fn }) is accepted and a tool.pre block stops the tool", async () => {
    const { registry, hooks } = setup()
    registry.register('tool.pre', {
      type: 'fn',
      name: 'no-prod',
      fn: (ctx: HookContext) => {
        if (ctx.event !== 'tool.pre') return { continue: true }
        const target = String((ctx.toolInput as Record<string, unknown>).file_path ?? '')
        if (target.startsWith('/srv/prod'))
          return { continue: false, reason: 'Production paths are off-limits in this session.' }
        return { continue: true }
      },
    })
    expect(registry.has('tool.pre')).toBe(true)
    expect(registry.for('tool.pre').map((s) => s.name)).toEqual(['no-prod'])
    const blocked = await hooks.run(toolPre({ file_path: '/srv/prod/app.env' }))
    expect(blocked).toMatchObject({
      continue: false,
      blockedHook: 'no-prod',
      blockedReason: 'Production paths are off-limits in this session.',
    })
    expect((await hooks.run(toolPre({ file_path: '/tmp/x' }))).continue).toBe(true)
  })

  it("runtime.register(event, { type: 'fn', name, fn }) is accepted by the one-object runtime too", async () => {
    const runtime = createLoomRuntime()
    runtime.register('tool.pre', {
      type: 'fn',
      name: 'quiet',
      fn: () => ({ continue: false, reason: 'not now' }),
    })
    const outcome = await runtime.run('tool.pre', { toolName: 'exec', toolInput: {} })
    expect(outcome).toMatchObject({ blocked: true, reason: 'not now' })
    await runtime.engine.close()
  })

  // "{ type: 'command', name, command, timeoutMs } … exit 0 allows, non-zero blocks (stderr becomes the reason)"
  it("{ type: 'command', name, command, timeoutMs } runs the shell line: non-zero exit blocks with stderr as the reason", async () => {
    const { registry, hooks } = setup()
    registry.register('tool.pre', {
      type: 'command',
      name: 'policy-check',
      command: 'echo "writes are frozen" >&2; exit 3',
      timeoutMs: 10_000,
    })
    expect(registry.engine.hooks()[0]).toMatchObject({ timeoutMs: 10_000 })
    expect(await hooks.run(toolPre({}))).toMatchObject({
      continue: false,
      blockedHook: 'policy-check',
      blockedReason: 'writes are frozen',
    })
  })

  it('a spec with a field loom does not know is refused, naming it', () => {
    const { registry } = setup()
    expect(() =>
      registry.register('tool.pre', { type: 'fn', name: 'x', fn: () => ({}), priority: 1 } as never),
    ).toThrow(/unknown field "priority"/)
  })

  // "Hooks for an event run in registration order; the first continue: false stops the chain."
  it('hooks for an event run in registration order and the first continue: false stops the chain', async () => {
    const { registry, hooks } = setup()
    const ran: string[] = []
    for (const name of ['zeta', 'alpha', 'mid'])
      registry.register('tool.pre', {
        type: 'fn',
        name,
        fn: () => {
          ran.push(name)
          return name === 'alpha' ? { continue: false, reason: 'stop here' } : {}
        },
      })
    expect(await hooks.run(toolPre({}))).toMatchObject({ continue: false, blockedHook: 'alpha' })
    expect(ran).toEqual(['zeta', 'alpha'])
  })

  // "continue: false → hook X blocked the action: reason; output → surfaced as hook output;
  //  additionalContext → injected context" — routed through the ReminderInjector.
  it('outcomes reach the model through the ReminderInjector: blocked, output and additionalContext', async () => {
    const { registry, hooks, reminders } = setup()
    registry.register('session.start', {
      type: 'fn',
      name: 'loader',
      fn: () => ({ additionalContext: 'branch: main' }),
    })
    registry.register('session.start', { type: 'command', name: 'lint', command: 'echo "lint passed"' })
    registry.register('tool.pre', {
      type: 'fn',
      name: 'guard',
      fn: () => ({ continue: false, reason: 'no' }),
    })
    await hooks.run({ event: 'session.start', turnIndex: 0, sessionId: 's1', model: 'm' })
    await hooks.run(toolPre({}))
    expect(reminders.drain({ turnIndex: 1 })).toEqual([
      '<system-reminder>\nAdditional context from hook "loader":\n\nbranch: main\n</system-reminder>',
      '<system-reminder>\nHook "lint" completed.\n\nlint passed\n</system-reminder>',
      '<system-reminder>\nHook "guard" blocked the action: no. Adjust your approach; do not retry the exact same call.\n</system-reminder>',
    ])
    expect(reminders.size).toBe(0)
  })

  // "executeHook(spec, ctx, signal) … a timeout, an exception or an abort becomes a block"
  it('run(ctx, signal): an abort blocks a pending fn hook with "Hook aborted"', async () => {
    const { registry, hooks } = setup()
    registry.register('tool.pre', { type: 'fn', name: 'slow', fn: () => new Promise(() => undefined) })
    const controller = new AbortController()
    const pending = hooks.run(toolPre({}), controller.signal)
    setImmediate(() => controller.abort())
    expect(await pending).toMatchObject({
      continue: false,
      blockedHook: 'slow',
      blockedReason: 'Hook aborted',
    })
    const before = new AbortController()
    before.abort()
    expect(await hooks.run(toolPre({}), before.signal)).toMatchObject({
      continue: false,
      blockedReason: 'Hook aborted before start',
    })
  })

  it('run(ctx, signal): an abort kills a running command hook and blocks at once', async () => {
    const { registry, hooks } = setup()
    registry.register('tool.pre', {
      type: 'command',
      name: 'sleeper',
      command: 'sleep 20',
      timeoutMs: 30_000,
    })
    const controller = new AbortController()
    const started = Date.now()
    const pending = hooks.run(toolPre({}), controller.signal)
    setTimeout(() => controller.abort(), 100)
    expect(await pending).toMatchObject({
      continue: false,
      blockedHook: 'sleeper',
      blockedReason: 'Hook aborted',
    })
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('a command hook sees only PATH, HOME and the variables its spec names (loom passes the whole environment)', async () => {
    const { registry, hooks } = setup()
    process.env.LOOM_FIDELITY_TOKEN = 'tok-1'
    try {
      registry.register('tool.pre', {
        type: 'command',
        name: 'plain',
        command: 'test -z "$LOOM_FIDELITY_TOKEN" || { echo "saw the token" >&2; exit 1; }',
      })
      expect((await hooks.run(toolPre({}))).continue).toBe(true)
      registry.clear()
      registry.register('tool.pre', {
        type: 'command',
        name: 'named',
        command: 'test "$LOOM_FIDELITY_TOKEN" = tok-1 || { echo "no token" >&2; exit 1; }',
        env: ['LOOM_FIDELITY_TOKEN'],
      })
      expect((await hooks.run(toolPre({}))).continue).toBe(true)
    } finally {
      delete process.env.LOOM_FIDELITY_TOKEN
    }
  })

  // Differs: loom's runtime ends the chain at the first block even on tool.post (its loop then
  // ignores the block); under Warden the block is recorded and reported, and later hooks run.
  it('on tool.post a block is reported to the model and the hooks after it still run', async () => {
    const { registry, hooks, reminders } = setup()
    const ran: string[] = []
    registry.register('tool.post', {
      type: 'fn',
      name: 'first',
      fn: () => ({ continue: false, reason: 'noted' }),
    })
    registry.register('tool.post', { type: 'fn', name: 'second', fn: () => void ran.push('second') })
    const result = await hooks.run({
      event: 'tool.post',
      turnIndex: 0,
      toolName: 'x',
      toolInput: {},
      result: 'ok',
    })
    expect(result.continue).toBe(true)
    expect(ran).toEqual(['second'])
    expect(reminders.drain().join('')).toContain('Hook "first" blocked the action: noted')
  })

  it('with observedBlockEndsChain, a block on tool.post ends the chain as in loom (later hooks do not run)', async () => {
    const { registry, hooks, reminders } = setup({ observedBlockEndsChain: true })
    const ran: string[] = []
    registry.register('tool.post', {
      type: 'fn',
      name: 'first',
      fn: () => ({ continue: false, reason: 'noted' }),
    })
    registry.register('tool.post', { type: 'fn', name: 'second', fn: () => void ran.push('second') })
    const result = await hooks.run({
      event: 'tool.post',
      turnIndex: 0,
      toolName: 'x',
      toolInput: {},
      result: 'ok',
    })
    expect(result.continue).toBe(true)
    expect(ran).toEqual([])
    expect(reminders.drain().join('')).toContain('Hook "first" blocked the action: noted')
  })
})
