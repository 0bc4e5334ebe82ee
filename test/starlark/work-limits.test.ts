// Builtins and operators are charged for the work they do on large values, before they do
// it: a loop of few steps but huge string operations stops at the wall-time limit (within
// 10%), not long after it, and a single call that would overrun the limit is refused.

import { describe, expect, it } from 'vitest'
import { createEngine, type HookDefinition } from '../../src/core/index.js'
import { createScriptHandler } from '../../src/handlers/index.js'
import { compile, StarlarkError } from '../../src/starlark/index.js'

/** Runs `handle()` of a module with a wall-time limit; the error and the time it took. */
function timed(source: string, maxWallTimeMs: number): { error: StarlarkError; ms: number } {
  const module = compile(source, 'work.star').run({})
  const started = performance.now()
  try {
    module.call('handle', [], undefined, { limits: { maxWallTimeMs } })
  } catch (error) {
    if (!(error instanceof StarlarkError)) throw error
    return { error, ms: performance.now() - started }
  }
  throw new Error('the script finished: no limit was hit')
}

const heavyReplace = `
def handle():
    for i in range(200):
        s = ("ab" * 2500000).replace("a", "cc")
`

const heavyJoinSplit = `
def handle():
    for i in range(200):
        parts = ("x," * 900000).split(",")
        s = "-".join(parts)
        t = sorted(parts)
        u = str(parts[:100000]) + ("%s" % s)
`

describe('Starlark: builtins are charged for their work', () => {
  it.each([
    ['replace on 5 MB strings', heavyReplace],
    ['split, join, sorted, str and % on large values', heavyJoinSplit],
  ])('%s stops within 10%% of the wall-time limit', (_label, source) => {
    const { error, ms } = timed(source, 1000)
    expect(error.kind).toBe('limit')
    expect(error.reason).toMatch(/wall time limit exceeded \(limit maxWallTimeMs = 1000 ms\)/)
    expect(ms).toBeLessThan(1100)
  })

  it('refuses a single call that would take longer than the time left', () => {
    // Warm the measured pace of replace on this machine first.
    timed(heavyReplace, 400)
    const { error, ms } = timed(heavyReplace, 5)
    expect(error.reason).toMatch(/replace on \d+ characters or elements would take about \d+ ms/)
    expect(ms).toBeLessThan(50)
  })

  it('counts large operations as steps, so maxSteps bounds them too', () => {
    const source = `
def handle():
    for i in range(1000):
        s = "ab" * 4000000
`
    const module = compile(source, 'steps.star').run({})
    expect(() =>
      module.call('handle', [], undefined, { limits: { maxSteps: 10_000, maxWallTimeMs: 60_000 } }),
    ).toThrowError(/execution step limit exceeded \(limit maxSteps = 10000\)/)
  })

  it('a script hook on the builtin-heavy loop denies at its timeout, within 10%', async () => {
    const hook: HookDefinition = {
      name: 'heavy',
      event: 'tool.pre',
      timeoutMs: 800,
      handler: {
        type: 'script',
        source: `def handle(event, payload):\n    for i in range(200):\n        s = ("ab" * 2500000).replace("a", "cc")\n    return allow()\n`,
      },
    }
    const engine = createEngine({ handlers: [createScriptHandler()], hooks: [hook] })
    const started = performance.now()
    const check = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'Bash', input: {} } },
      context: {},
    })
    const ms = performance.now() - started
    expect(check.decision).toBe('deny')
    expect(check.reason).toMatch(
      /hook "heavy" failed closed: .*wall time limit exceeded \(limit maxWallTimeMs = 800 ms\)/,
    )
    expect(ms).toBeLessThan(880)
  })
})
