// loom's classes over Warden's engine, the parts the fidelity tests do not reach: reminder
// suppression by template id (never of a block), names shared by several hooks, clearing a
// registry, and a denial that no hook made (a bound reached) still blocking.

import { afterAll, describe, expect, it } from 'vitest'
import {
  createDefaultRegistry,
  HookRegistry,
  HookRuntime,
  ReminderInjector,
  ReminderRegistry,
} from '../../src/adapters/loom/index.js'

const registries: HookRegistry[] = []
const registry = (options = {}) => {
  const made = new HookRegistry(options)
  registries.push(made)
  return made
}
afterAll(async () => {
  await Promise.all(registries.map((r) => r.engine.close()))
})

describe('ReminderInjector', () => {
  it('suppresses suppressible templates by id, never a block', () => {
    const reminders = new ReminderInjector(createDefaultRegistry(), {
      suppress: ['reminders.hook.context', 'reminders.hook.blocked'],
    })
    reminders.emit({ type: 'hook.context', hookName: 'h', context: 'quiet' })
    reminders.emit({ type: 'hook.blocked', hookName: 'h', reason: 'no' })
    expect(reminders.pending()).toHaveLength(2)
    const out = reminders.drain()
    expect(out).toHaveLength(1)
    expect(out[0]).toContain('Hook "h" blocked the action: no.')
    expect(reminders.size).toBe(0)
  })

  it('refuses a template id registered twice', () => {
    const templates = createDefaultRegistry()
    const [first] = templates.templatesFor('hook.blocked')
    expect(() => templates.register(first as never)).toThrow(/already registered/)
    expect(new ReminderRegistry().size).toBe(0)
  })
})

describe('HookRegistry', () => {
  it('takes several hooks of one name, and clear() removes them from the engine', async () => {
    const hooks = registry()
    hooks.register('tool.pre', { type: 'fn', name: 'audit', fn: () => ({}) })
    hooks.register('tool.post', {
      type: 'fn',
      name: 'audit',
      fn: () => ({ continue: false, reason: 'seen' }),
    })
    expect(hooks.size).toBe(2)
    expect(hooks.engine.hooks().map((h) => h.id)).toEqual(['audit', 'audit-2'])
    const runtime = new HookRuntime({ registry: hooks })
    const result = await runtime.run({ event: 'tool.post', toolName: 'x', toolInput: {}, result: 'ok' })
    // tool.post only observes: the block is reported, never applied.
    expect(result.continue).toBe(true)
    hooks.clear()
    expect(hooks.size).toBe(0)
    expect(hooks.engine.hooks()).toEqual([])
    expect((await runtime.run({ event: 'tool.post' })).continue).toBe(true)
  })

  it('a denial no hook made (the chain budget spent) blocks, named as Warden', async () => {
    const hooks = registry({ limits: { chainBudgetMs: 20 } })
    hooks.register('tool.pre', { type: 'fn', name: 'slow', fn: () => new Promise(() => undefined) })
    const reminders = new ReminderInjector()
    const result = await new HookRuntime({ registry: hooks, reminders }).run({
      event: 'tool.pre',
      toolName: 'x',
      toolInput: {},
    })
    expect(result.continue).toBe(false)
    expect(result.blockedReason).toBeTruthy()
    expect(reminders.drain().join('')).toContain('blocked the action')
  })
})
