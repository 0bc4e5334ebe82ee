// engine.dryRun: one definition run once for one event, validated like register, with the
// event checked like dispatch; it runs for non-blocking events and disabled definitions,
// never touches the engine's breaker, records nothing, reports asks without approving them,
// and still applies matcher / if / scope, the hook's timeout and the chain budget.

import { describe, expect, it } from 'vitest'
import {
  createEngine,
  type DecisionRecord,
  type DispatchInput,
  type HookCall,
  type HookDefinition,
  WardenError,
} from '../../src/index.js'

const toolEvent = (name = 'exec', input: Record<string, unknown> = { cmd: 'ls' }, context = {}) => ({
  event: 'tool.pre',
  payload: { tool: { name, input } },
  context,
})

function fnHook(
  name: string,
  fn: (call: HookCall) => unknown,
  extra: Partial<HookDefinition> = {},
): HookDefinition {
  return { name, event: 'tool.pre', handler: { type: 'fn', fn }, ...extra }
}

async function rejection(promise: Promise<unknown>): Promise<WardenError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(WardenError)
    return error as WardenError
  }
  throw new Error('expected a rejection')
}

describe('engine.dryRun', () => {
  it('runs the hook once and reports its verdict, trace and detail', async () => {
    const engine = createEngine({})
    let calls = 0
    const result = await engine.dryRun(
      fnHook('checker', (call) => {
        calls++
        call.detail?.({ step: 1 })
        call.detail?.({ step: 2, extra: true })
        call.log('looked at it')
        return { decision: 'deny', reason: 'not today', additionalContext: 'try tomorrow' }
      }),
      toolEvent(),
    )
    expect(calls).toBe(1)
    expect(result).toMatchObject({
      decision: 'deny',
      reason: 'not today',
      detail: { step: 2, extra: true },
      additionalContext: ['try tomorrow'],
      input: { tool: { name: 'exec', input: { cmd: 'ls' } } },
      trace: { id: 'checker', hook: 'checker', handler: 'fn', outcome: 'deny', logs: ['looked at it'] },
    })
    expect(result.output).toBeUndefined()
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
    expect(engine.hooks()).toEqual([])
  })

  it('gives a modify its input and output, and no opinion as allow', async () => {
    const engine = createEngine({})
    const modified = await engine.dryRun(
      fnHook('safer', () => ({ decision: 'modify', updatedInput: { cmd: 'ls -l' }, reason: 'safer' })),
      toolEvent(),
    )
    expect(modified.decision).toBe('modify')
    expect(modified.reason).toBe('safer')
    expect(modified.input).toEqual({ tool: { name: 'exec', input: { cmd: 'ls' } } })
    expect(modified.output).toEqual({ tool: { name: 'exec', input: { cmd: 'ls -l' } } })
    const quiet = await engine.dryRun(
      fnHook('quiet', () => undefined),
      toolEvent(),
    )
    expect(quiet).toMatchObject({ decision: 'allow', reason: 'the hook had no opinion' })
    expect(quiet.trace.outcome).toBe('abstain')
    expect(quiet.output).toBeUndefined()
  })

  it('reports an ask without calling the approver, and records nothing', async () => {
    const records: DecisionRecord[] = []
    let approvals = 0
    const engine = createEngine({
      recorder: { record: (r) => void records.push(r), breakerTripped: () => void records.push({} as never) },
      approver: () => {
        approvals++
        return { outcome: 'approve' }
      },
    })
    const result = await engine.dryRun(
      fnHook('human', () => ({ decision: 'ask', reason: 'a human should look' })),
      toolEvent(),
    )
    expect(result).toMatchObject({ decision: 'ask', reason: 'a human should look' })
    const failing = fnHook('boom', () => {
      throw new Error('down')
    })
    for (let i = 0; i < 6; i++) await engine.dryRun(failing, toolEvent())
    expect(approvals).toBe(0)
    expect(records).toEqual([])
  })

  it('never trips the engine breaker, while dispatch of the same hook does', async () => {
    const failing = fnHook('flaky', () => {
      throw new Error('database unreachable')
    })
    const engine = createEngine({ hooks: [failing] })
    for (let i = 0; i < 10; i++) {
      const result = await engine.dryRun(failing, toolEvent())
      expect(result).toMatchObject({
        decision: 'deny',
        error: { kind: 'error', message: 'database unreachable' },
      })
      expect(result.reason).toContain('failed closed: database unreachable')
    }
    expect(engine.openBreakers()).toEqual([])
    // The dry runs counted nowhere: four real failures are still under the threshold of five.
    for (let i = 0; i < 4; i++) await engine.dispatch(toolEvent())
    expect(engine.openBreakers()).toEqual([])
    for (let i = 0; i < 6; i++) await engine.dispatch(toolEvent())
    expect(engine.openBreakers().map((t) => t.hookId)).toEqual(['flaky'])
    // A dry run of a hook whose breaker is open still runs it.
    let ran = false
    const result = await engine.dryRun(
      fnHook('flaky', () => {
        ran = true
      }),
      toolEvent(),
    )
    expect(ran).toBe(true)
    expect(result.decision).toBe('allow')
  })

  it('runs for a non-blocking event, and for a disabled definition', async () => {
    const engine = createEngine({})
    const seen: string[] = []
    const background = await engine.dryRun(
      {
        name: 'on-start',
        event: 'session.start',
        handler: { type: 'fn', fn: (call: HookCall) => void seen.push(call.event.event) },
      },
      { event: 'SessionStart', payload: {} },
    )
    expect(seen).toEqual(['session.start'])
    expect(background.decision).toBe('allow')
    const disabled = await engine.dryRun(
      fnHook('off', () => ({ decision: 'deny', reason: 'would deny' }), { enabled: false }),
      toolEvent(),
    )
    expect(disabled).toMatchObject({ decision: 'deny', reason: 'would deny' })
    expect(disabled.trace.skipped).toBeUndefined()
  })

  it('skips when the matcher, the if or the scope does not hold, saying which', async () => {
    const engine = createEngine({})
    let ran = 0
    const count = () => {
      ran++
    }
    const matcher = await engine.dryRun(fnHook('m', count, { matcher: 'write_file' }), toolEvent())
    expect(matcher).toMatchObject({ decision: 'skipped', skipped: 'matcher' })
    expect(matcher.reason).toContain('"write_file"')
    const condition = await engine.dryRun(fnHook('c', count, { if: 'tool_name == "rm"' }), toolEvent())
    expect(condition).toMatchObject({ decision: 'skipped', skipped: 'if' })
    const scoped = await engine.dryRun(
      fnHook('s', count, { scope: { tenant: 'acme' } }),
      toolEvent('exec', {}, { tenantId: 'globex' }),
    )
    expect(scoped).toMatchObject({ decision: 'skipped', skipped: 'scope', trace: { id: 'acme/s' } })
    expect(scoped.reason).toContain('scope')
    expect(ran).toBe(0)
    const inScope = await engine.dryRun(
      fnHook('s', count, { scope: { tenant: 'acme' } }),
      toolEvent('exec', {}, { tenantId: 'acme' }),
    )
    expect(inScope.trace).toMatchObject({ id: 'acme/s', hook: 's', outcome: 'abstain' })
    expect(ran).toBe(1)
  })

  it('ends a hanging hook as a timeout with its onTimeout verdict, within the chain budget', async () => {
    const engine = createEngine({ limits: { chainBudgetMs: 80 } })
    const hang = () => new Promise(() => undefined)
    const own = await engine.dryRun(fnHook('slow', hang, { timeoutMs: 30, onTimeout: 'allow' }), toolEvent())
    expect(own).toMatchObject({
      decision: 'allow',
      error: { kind: 'timeout', message: 'timed out after 30 ms' },
    })
    const budget = await engine.dryRun(fnHook('slower', hang, { timeoutMs: 5000 }), toolEvent())
    expect(budget.decision).toBe('deny')
    expect(budget.error?.kind).toBe('timeout')
    expect(budget.error?.message).toContain('chain budget of 80 ms')
    expect(budget.durationMs).toBeLessThan(1000)
  })

  it('throws what register throws for an invalid definition, naming the field', async () => {
    const engine = createEngine({})
    const bad = await rejection(
      engine.dryRun(
        { name: 'x', event: 'tool.pre', timeoutMs: -5, handler: { type: 'fn', fn: () => undefined } },
        toolEvent(),
      ),
    )
    expect(bad.code).toBe('invalid-hook')
    expect(bad.message).toContain('timeoutMs')
    let registered: unknown
    try {
      engine.register({
        name: 'x',
        event: 'tool.pre',
        timeoutMs: -5,
        handler: { type: 'fn', fn: () => undefined },
      })
    } catch (error) {
      registered = error
    }
    expect(bad.message).toBe((registered as Error).message)
    const unknown = await rejection(
      engine.dryRun({ name: 'y', event: 'tool.pre', handler: { type: 'nope' } }, toolEvent()),
    )
    expect(unknown.code).toBe('unknown-handler')
    expect(unknown.message).toContain('handler.type "nope"')
    const field = await rejection(
      engine.dryRun({ name: 'z', event: 'tool.pre', handler: { type: 'deny', why: 'typo' } }, toolEvent()),
    )
    expect(field.message).toBe('hook "z": handler: unknown field "why": remove it or check the spelling')
  })

  it('throws for an event dispatch would refuse, with the reason dispatch gives', async () => {
    const engine = createEngine({})
    const hook = fnHook('h', () => undefined)
    const cases: unknown[] = [
      { event: 'tool.pree', payload: {} },
      { event: 'tool.pre', payload: { tool: 'exec' } },
      { event: 'tool.pre', payload: [] },
      'not an event',
    ]
    for (const input of cases) {
      const refused = await engine.dispatch(input as DispatchInput)
      expect(refused.reasonCode).toEqual(['invalid-event'])
      const error = await rejection(engine.dryRun(hook, input as DispatchInput))
      expect(error.code).toBe('invalid-event')
      expect(error.message).toBe(refused.reason)
    }
    const other = await rejection(
      engine.dryRun(hook, {
        event: 'user.message',
        payload: { message: { role: 'user', text: 'hi', content: [] } },
      }),
    )
    expect(other.code).toBe('invalid-event')
    expect(other.message).toContain('tool.pre')
  })

  it('refuses once the engine is closed', async () => {
    const engine = createEngine({})
    await engine.close()
    const error = await rejection(
      engine.dryRun(
        fnHook('h', () => undefined),
        toolEvent(),
      ),
    )
    expect(error.code).toBe('engine-closed')
  })

  it('gives custom.* hooks any custom event', async () => {
    const engine = createEngine({})
    const result = await engine.dryRun(
      { name: 'any', event: 'custom.*', handler: { type: 'deny' } },
      { event: 'custom.deploy', payload: {} },
    )
    expect(result).toMatchObject({ decision: 'deny', reason: 'denied by hook "any"' })
  })
})

describe('hook ids in the trace', () => {
  it('names global hooks by name and tenant hooks by tenant/name', async () => {
    const engine = createEngine({
      hooks: [
        fnHook('global', () => undefined),
        fnHook('mine', () => undefined, { scope: { tenant: 'acme' } }),
      ],
    })
    const decision = await engine.dispatch(toolEvent('exec', {}, { tenantId: 'acme' }))
    expect(decision.trace.map((t) => [t.id, t.hook])).toEqual([
      ['global', 'global'],
      ['acme/mine', 'mine'],
    ])
  })
})
