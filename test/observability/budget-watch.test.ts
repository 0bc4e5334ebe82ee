// The budget watch names a hook whose latency or failures make the chain budget likely to
// run out, once per quiet period, and stays silent for healthy hooks.

import { describe, expect, it } from 'vitest'
import type { HookTrace } from '../../src/core/index.js'
import { createEngine, deny } from '../../src/index.js'
import { BudgetWatch } from '../../src/observability/index.js'

function run(id: string, durationMs: number, error?: HookTrace['error']): HookTrace {
  const trace: HookTrace = { id, hook: id, handler: 'fn', version: 1, outcome: 'allow', durationMs }
  if (error) trace.error = error
  return trace
}

function watch(now = { t: 0 }) {
  const warnings: { message: string; fields: Record<string, unknown> }[] = []
  const budget = new BudgetWatch({
    chainBudgetMs: 1000,
    warn: (message, fields) => warnings.push({ message, fields }),
    now: () => now.t,
  })
  return { budget, warnings, now }
}

describe('the budget watch', () => {
  it('stays silent while hooks are fast and healthy', () => {
    const { budget, warnings } = watch()
    for (let i = 0; i < 500; i++) budget.observe([run('fast', 3), run('other', 10)])
    expect(warnings).toEqual([])
  })

  it('names a hook whose p95 is over half the chain budget, once per ten minutes', () => {
    const { budget, warnings, now } = watch()
    for (let i = 0; i < 100; i++) budget.observe([run('fast', 2), run('slow-judge', i % 10 === 0 ? 900 : 20)])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toContain('hook "slow-judge" takes 900 ms at p95')
    expect(warnings[0]?.message).toContain('90% of the chain budget of 1000 ms')
    expect(warnings[0]?.fields).toMatchObject({ hook: 'slow-judge', p95Ms: 900, chainBudgetMs: 1000 })
    now.t += 60_000
    for (let i = 0; i < 100; i++) budget.observe([run('slow-judge', 900)])
    expect(warnings).toHaveLength(1)
    now.t += 600_000
    for (let i = 0; i < 25; i++) budget.observe([run('slow-judge', 900)])
    expect(warnings).toHaveLength(2)
  })

  it('names a hook that fails a fifth of its runs, counting timeouts', () => {
    const { budget, warnings } = watch()
    for (let i = 0; i < 50; i++) {
      const error = i % 4 === 0 ? ({ kind: 'timeout', message: 'timed out' } as const) : undefined
      budget.observe([run('flaky-webhook', 5, error)])
    }
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringContaining('hook "flaky-webhook" failed 7 of its last 25 runs (7 timed out)'),
    ])
  })

  it('does not count runs the breaker skipped as failures', () => {
    const { budget, warnings } = watch()
    for (let i = 0; i < 100; i++)
      budget.observe([run('tripped', 0, { kind: 'breaker-open', message: 'open' })])
    expect(warnings).toEqual([])
  })

  it('names the slowest hook of a chain whose hooks together use most of the budget', () => {
    const { budget, warnings } = watch()
    for (let i = 0; i < 50; i++) budget.observe([run('a', 300), run('b', 350), run('c', 200)])
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringContaining('the slowest is hook "b" (350 ms)'),
    ])
  })

  it('watches a real engine through its recorder', async () => {
    const warnings: string[] = []
    const recorded: string[] = []
    const budget = new BudgetWatch({ chainBudgetMs: 3, warn: (message) => warnings.push(message) })
    const engine = createEngine({
      hooks: [
        {
          name: 'sleepy',
          event: 'tool.pre',
          handler: { type: 'fn', fn: () => new Promise((r) => setTimeout(() => r(deny('late no')), 2)) },
        },
      ],
      recorder: budget.recorder({ record: ({ decision }) => void recorded.push(decision.decision) }),
    })
    for (let i = 0; i < 25; i++)
      await engine.dispatch({ event: 'tool.pre', payload: { tool: { name: 'x', input: {} } } })
    expect(recorded).toEqual(Array(25).fill('deny'))
    expect(warnings).toEqual([expect.stringContaining('hook "sleepy" takes')])
    await engine.close()
  })
})
