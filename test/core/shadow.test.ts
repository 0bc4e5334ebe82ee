// Shadow mode in the chain: a hook with `mode: shadow` runs in the same dispatch, its
// would-be verdict is in the trace (marked shadow), and nothing of it — deny, ask, modify,
// added context, timeout, error — changes the answer or the budget of the enforced hooks.

import { describe, expect, it } from 'vitest'
import { createEngine, type HookCall, type HookDefinition } from '../../src/index.js'

const toolEvent = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /' } } } }

function fnHook(name: string, fn: (call: HookCall) => unknown, extra: Partial<HookDefinition> = {}) {
  return { name, event: 'tool.pre', handler: { type: 'fn', fn }, ...extra } as HookDefinition
}

describe('shadow mode', () => {
  it('records a shadow deny in the trace and answers as if the hook were absent', async () => {
    const engine = createEngine({
      hooks: [
        fnHook('would-deny', () => ({ decision: 'deny', reason: 'rm is dangerous' }), { mode: 'shadow' }),
        fnHook('later', () => undefined, { priority: 5 }),
      ],
    })
    const decision = await engine.dispatch(toolEvent)
    expect(decision.decision).toBe('allow')
    const shadow = decision.trace.find((t) => t.hook === 'would-deny')
    expect(shadow).toMatchObject({ outcome: 'deny', reason: 'rm is dangerous', shadow: true })
    // The chain went on: the enforced hook after it ran.
    expect(decision.trace.find((t) => t.hook === 'later')?.outcome).not.toBe('skipped')
    expect(engine.hooks()[0]?.mode).toBe('shadow')
  })

  it('never applies a shadow modify, ask or added context', async () => {
    const seen: unknown[] = []
    const engine = createEngine({
      hooks: [
        fnHook(
          'rewrites',
          () => ({
            decision: 'modify',
            payload: { tool: { name: 'exec', input: { cmd: 'ls' } } },
            additionalContext: 'shadow says hi',
          }),
          { mode: 'shadow' },
        ),
        fnHook('asks', () => ({ decision: 'ask', reason: 'sure?' }), { mode: 'shadow', priority: 1 }),
        fnHook('sees', (call) => void seen.push(call.event.payload), { priority: 2 }),
      ],
    })
    const decision = await engine.dispatch(toolEvent)
    expect(decision.decision).toBe('allow')
    expect(decision.additionalContext).toEqual([])
    expect(seen).toEqual([toolEvent.payload])
    expect(decision.trace.filter((t) => t.shadow).map((t) => t.outcome)).toEqual(['modify', 'ask'])
  })

  it('records a shadow timeout or crash without applying its deny, and keeps the budget of enforced hooks', async () => {
    const engine = createEngine({
      limits: { chainBudgetMs: 400 },
      hooks: [
        fnHook('slow', () => new Promise(() => {}), { mode: 'shadow', timeoutMs: 300 }),
        fnHook(
          'crashes',
          () => {
            throw new Error('boom')
          },
          { mode: 'shadow', priority: 1 },
        ),
        fnHook('enforced', () => new Promise((r) => setTimeout(() => r({ decision: 'allow' }), 200)), {
          priority: 2,
        }),
      ],
    })
    const decision = await engine.dispatch(toolEvent)
    expect(decision.decision).toBe('allow')
    const byName = new Map(decision.trace.map((t) => [t.hook, t]))
    expect(byName.get('slow')).toMatchObject({ outcome: 'deny', shadow: true, error: { kind: 'timeout' } })
    expect(byName.get('crashes')).toMatchObject({ outcome: 'deny', shadow: true, error: { kind: 'error' } })
    // 300 ms of shadow time out of a 400 ms budget did not starve the enforced hook of its 200 ms.
    expect(byName.get('enforced')).toMatchObject({ outcome: 'allow' })
    expect(byName.get('enforced')?.error).toBeUndefined()
  })

  it('an enforced deny still wins, and a shadow hook after it is skipped as it would be', async () => {
    const engine = createEngine({
      hooks: [
        fnHook('denies', () => ({ decision: 'deny', reason: 'no' })),
        fnHook('shadowed', () => undefined, { mode: 'shadow', priority: 1 }),
      ],
    })
    const decision = await engine.dispatch(toolEvent)
    expect(decision.decision).toBe('deny')
    expect(decision.trace[1]).toMatchObject({ hook: 'shadowed', outcome: 'skipped', shadow: true })
  })

  it('refuses an unknown mode, naming the field', () => {
    expect(() => createEngine({ hooks: [fnHook('x', () => undefined, { mode: 'dry' as never })] })).toThrow(
      /mode must be "enforce"/,
    )
  })
})
