// The loom-style facade: registration order, a run that never throws, the reminder channel
// and tool interceptors that rewrite input and result or block the call.

import { describe, expect, it } from 'vitest'
import { createLoomRuntime } from '../../src/adapters/loom/index.js'

describe('loom facade', () => {
  it('blocks with loom shapes and queues the reminder for the next model call', async () => {
    const runtime = createLoomRuntime()
    runtime.register('tool.pre', {
      name: 'no-rm',
      matcher: '^exec$',
      fn: (ctx) =>
        String((ctx.toolInput as { cmd?: string }).cmd).includes('rm')
          ? { continue: false, reason: 'rm is not allowed' }
          : { continue: true },
    })
    const outcome = await runtime.run('tool.pre', { toolName: 'exec', toolInput: { cmd: 'rm -rf /' } })
    expect(outcome.blocked).toBe(true)
    expect(outcome.reason).toBe('rm is not allowed')
    expect(runtime.takeReminders()).toBe(
      '<system-reminder>\nhook no-rm blocked the action: rm is not allowed\n</system-reminder>',
    )
    expect(runtime.takeReminders()).toBe('')
    expect((await runtime.run('tool.pre', { toolName: 'exec', toolInput: { cmd: 'ls' } })).blocked).toBe(
      false,
    )
  })

  it('never throws: a crashing hook is a blocked outcome with the cause', async () => {
    const runtime = createLoomRuntime()
    runtime.register('user.prompt.submit', () => {
      throw new Error('classifier offline')
    })
    const outcome = await runtime.run('user.prompt.submit', { text: 'hello' })
    expect(outcome.blocked).toBe(true)
    expect(outcome.reason).toContain('classifier offline')
  })

  it('runs hooks in registration order and turns loom output into context for the model', async () => {
    const order: string[] = []
    const runtime = createLoomRuntime()
    runtime.register('session.start', {
      name: 'z-first',
      fn: () => {
        order.push('z')
        return { output: 'repo is read-only today' }
      },
    })
    runtime.register('session.start', {
      name: 'a-second',
      fn: () => {
        order.push('a')
      },
    })
    const outcome = await runtime.run('session.start', { sessionId: 's1' })
    expect(order).toEqual(['z', 'a'])
    expect(outcome.additionalContext).toEqual(['hook z-first output: repo is read-only today'])
    expect(runtime.takeReminders()).toContain('repo is read-only today')
  })

  it('intercepts a tool: rewrites its input and its result, or blocks it before it runs', async () => {
    const runtime = createLoomRuntime()
    runtime.register('tool.pre', {
      name: 'dry-run',
      matcher: '^deploy$',
      fn: (ctx) => ({ decision: 'modify', updatedInput: { ...(ctx.toolInput as object), dryRun: true } }),
    })
    runtime.register('tool.post', {
      name: 'redact',
      fn: (ctx) => ({
        decision: 'modify',
        updatedToolOutput: String(ctx.toolOutput).replace(/sk-\w+/g, '[key]'),
      }),
    })
    runtime.register('tool.pre', {
      name: 'no-drop',
      matcher: '^drop_table$',
      fn: () => ({ continue: false, reason: 'dropping tables needs a ticket' }),
    })
    const seen: unknown[] = []
    const deploy = runtime.interceptor('deploy', (input) => {
      seen.push(input)
      return `deployed with key sk-abc123`
    })
    const result = await deploy({ service: 'api' })
    expect(seen).toEqual([{ service: 'api', dryRun: true }])
    expect(result).toEqual({
      status: 'ok',
      output: 'deployed with key [key]',
      input: { service: 'api', dryRun: true },
    })
    let dropped = false
    const drop = await runtime.runTool('drop_table', { name: 'users' }, () => {
      dropped = true
    })
    expect(dropped).toBe(false)
    expect(drop).toEqual({ status: 'blocked', reason: 'dropping tables needs a ticket', stage: 'before' })
  })
})
