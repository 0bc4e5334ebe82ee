// CEL `if` expressions: matches() on RE2 (linear time, RE2 syntax, literal patterns checked
// at load naming the hook and the field, run-time patterns a deny naming the cause), and a
// cost and time bound so a nested comprehension cannot hold the event loop.

import { describe, expect, it } from 'vitest'
import { createEngine, type HookDefinition } from '../../src/index.js'

const allow = () => undefined

function engineWith(hooks: Partial<HookDefinition>[]) {
  return createEngine({
    hooks: hooks.map((h, i) => ({
      name: `h${i}`,
      event: 'tool.pre',
      handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'the if held' }) },
      ...h,
    })) as HookDefinition[],
  })
}

function toolEvent(input: Record<string, unknown>, tenant?: string) {
  return {
    event: 'tool.pre',
    payload: { tool: { name: 'Bash', input } },
    context: tenant ? { tenantId: tenant } : {},
  }
}

/** Seven nested all() over ten-element lists: 10^7 predicate evaluations if unbounded. */
function nestedAll(depth: number): string {
  const list = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]'
  let expression = 'x0 >= 0'
  for (let i = 0; i < depth; i++) expression = `${list}.all(x${i}, ${expression})`
  return expression
}

describe('CEL matches() on RE2', () => {
  it('answers a catastrophic-backtracking pattern in linear time', async () => {
    const engine = engineWith([{ if: "tool_input.command.matches('^(a+)+$')" }])
    const started = performance.now()
    // 27 a's and a mismatch: seconds for a backtracking engine, doubling with each a.
    const check = await engine.dispatch(toolEvent({ command: `${'a'.repeat(27)}!` }))
    expect(check.decision).toBe('allow')
    expect(performance.now() - started).toBeLessThan(1000)
    const held = await engine.dispatch(toolEvent({ command: 'a'.repeat(40) }))
    expect(held.decision).toBe('deny')
  })

  it('accepts RE2 syntax: (?i) flags and Unicode classes', async () => {
    const engine = engineWith([
      { if: "tool_input.command.matches('(?i)^rm\\\\s') && tool_input.name.matches('^\\\\pL+$')" },
    ])
    expect((await engine.dispatch(toolEvent({ command: 'RM -rf /', name: 'Grüße' }))).decision).toBe('deny')
    expect((await engine.dispatch(toolEvent({ command: 'ls', name: 'Grüße' }))).decision).toBe('allow')
    expect((await engine.dispatch(toolEvent({ command: 'rm -rf', name: 'a1' }))).decision).toBe('allow')
  })

  it('refuses a literal pattern that is not RE2 at load, naming the hook and the field', () => {
    expect(() =>
      engineWith([{ name: 'no-backrefs', if: "tool_input.command.matches('(a)\\\\1')" }]),
    ).toThrowError(
      /hook "no-backrefs": if: matches\(\) pattern "\(a\)\\\\1" is not a valid RE2 regular expression/,
    )
    expect(() => engineWith([{ name: 'unclosed', if: "tool_input.command.matches('(')" }])).toThrowError(
      /hook "unclosed": if: matches\(\) pattern "\(" is not a valid RE2/,
    )
  })

  it('compiles a pattern built at run time on RE2; a bad one denies naming the cause', async () => {
    const engine = engineWith([{ if: 'tool_input.command.matches(tool_input.pattern)' }])
    const slow = await engine.dispatch(toolEvent({ command: `${'a'.repeat(27)}!`, pattern: '^(a+)+$' }))
    expect(slow.decision).toBe('allow')
    const held = await engine.dispatch(toolEvent({ command: 'abc', pattern: '(?i)B' }))
    expect(held.decision).toBe('deny')
    expect(held.reason).toBe('the if held')
    const bad = await engine.dispatch(toolEvent({ command: 'abc', pattern: '(?<=a)b' }))
    expect(bad.decision).toBe('deny')
    expect(bad.reason).toMatch(
      /its if expression failed: matches\(\) pattern "\(\?<=a\)b" is not a valid RE2/,
    )
  })
})

describe('CEL evaluation is bounded', () => {
  it('stops seven nested all() at the cost limit and applies onTimeout with the cause', async () => {
    const engine = engineWith([{ name: 'nested', if: nestedAll(7), timeoutMs: 2000 }])
    const started = performance.now()
    const check = await engine.dispatch(toolEvent({ command: 'ls' }))
    const took = performance.now() - started
    expect(check.decision).toBe('deny')
    expect(check.reason).toMatch(
      /hook "nested" failed closed: its if expression failed: the expression exceeded its cost limit/,
    )
    expect(took).toBeLessThan(2000 * 1.1)
    const trace = check.trace?.find((t) => t.hook === 'nested')
    expect(trace?.error?.kind).toBe('timeout')
  })

  it('holds timeoutMs for an if: the clock is read every thousand cost units', async () => {
    // RE2 matches in four nested all(): the 2 ms timeout comes long before the cost limit.
    const slowIf = nestedAll(4).replace('x0 >= 0', () => "!tool_input.command.matches('^[a-z]*c$')")
    const engine = engineWith([{ name: 'slow-if', if: slowIf, timeoutMs: 2 }])
    const started = performance.now()
    const check = await engine.dispatch(toolEvent({ command: 'a'.repeat(60) }))
    const took = performance.now() - started
    expect(check.decision).toBe('deny')
    expect(check.reason).toMatch(
      /hook "slow-if" failed closed: its if expression failed: the expression ran past the hook's timeout/,
    )
    // 10% over the timeout, plus a generous margin for a loaded machine (the check itself
    // overshoots by one clock interval, well under a millisecond; unbounded, this takes
    // over a second).
    expect(took).toBeLessThan(2 * 1.1 + 250)
  })

  it('lets onTimeout: allow let the event through when an if runs too long', async () => {
    const engine = engineWith([{ name: 'lenient', if: nestedAll(7), onTimeout: 'allow' }])
    const check = await engine.dispatch(toolEvent({ command: 'ls' }))
    expect(check.decision).toBe('allow')
  })

  it('leaves ordinary expressions, comprehensions included, untouched', async () => {
    const engine = engineWith([
      { if: `${nestedAll(3)} && tool_input.files.exists(f, f.startsWith('/etc/'))` },
      {
        if: 'has(tool_input.command) && cel.bind(c, tool_input.command, c.size() > 3)',
        handler: { type: 'fn', fn: allow },
      },
    ])
    const files = Array.from({ length: 5000 }, (_, i) => `/srv/${i}`)
    expect((await engine.dispatch(toolEvent({ files }))).decision).toBe('allow')
    expect((await engine.dispatch(toolEvent({ files: [...files, '/etc/passwd'] }))).decision).toBe('deny')
  })

  it('refuses expressions with type errors at load', () => {
    expect(() => engineWith([{ name: 'typed', if: "1 + 'a' == 2" }])).toThrowError(
      /hook "typed": if "1 \+ 'a' == 2" is not valid CEL: no such overload/,
    )
  })
})
