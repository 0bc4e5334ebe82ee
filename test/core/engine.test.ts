// The engine's chain: ordering, modify chaining, deny short-circuit, asks, failure
// policies, the breaker, caps, non-blocking events and the recorder.

import { describe, expect, it } from 'vitest'
import {
  type ApprovalRequest,
  createEngine,
  type Decision,
  type DecisionRecord,
  type HookCall,
  type HookDefinition,
  renderReminders,
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

describe('the chain', () => {
  it('runs hooks by priority ascending, ties by name', async () => {
    const order: string[] = []
    const hook = (name: string, priority: number) => fnHook(name, () => void order.push(name), { priority })
    const engine = createEngine({ hooks: [hook('c', 5), hook('b', 1), hook('a', 5), hook('z', -3)] })
    const decision = await engine.dispatch(toolEvent())
    expect(order).toEqual(['z', 'b', 'a', 'c'])
    expect(decision.decision).toBe('allow')
    expect(decision.trace.map((t) => t.hook)).toEqual(['z', 'b', 'a', 'c'])
  })

  it('lets each hook see the payload as modified by earlier ones', async () => {
    const seen: unknown[] = []
    const engine = createEngine({
      hooks: [
        fnHook(
          'first',
          (call) => ({
            decision: 'modify',
            updatedInput: { cmd: `${(call.event.payload.tool as { input: { cmd: string } }).input.cmd} -l` },
          }),
          { priority: 1 },
        ),
        fnHook(
          'second',
          (call) => {
            seen.push(structuredClone(call.event.payload))
            return { type: 'modify', payload: { tool: { name: 'exec', input: { cmd: 'ls -l -a' } } } }
          },
          { priority: 2 },
        ),
        fnHook('third', (call) => void seen.push(structuredClone(call.event.payload)), { priority: 3 }),
      ],
    })
    const decision = await engine.dispatch(toolEvent())
    expect(seen).toEqual([
      { tool: { name: 'exec', input: { cmd: 'ls -l' } } },
      { tool: { name: 'exec', input: { cmd: 'ls -l -a' } } },
    ])
    expect(decision.decision).toBe('modify')
    expect(decision.payload).toEqual({ tool: { name: 'exec', input: { cmd: 'ls -l -a' } } })
    expect(decision.reasonCode).toEqual(['first', 'second'])
  })

  it('stops at the first deny, even after a modify (deny wins)', async () => {
    let laterRan = false
    const engine = createEngine({
      hooks: [
        fnHook('rewrite', () => ({ decision: 'modify', updatedInput: { cmd: 'echo' } }), { priority: 1 }),
        fnHook('block', () => ({ decision: 'deny', reason: 'no exec today' }), { priority: 2 }),
        fnHook(
          'later',
          () => {
            laterRan = true
          },
          { priority: 3 },
        ),
      ],
    })
    const decision = await engine.dispatch(toolEvent())
    expect(laterRan).toBe(false)
    expect(decision).toMatchObject({ decision: 'deny', reason: 'no exec today', reasonCode: ['block'] })
    expect(decision.payload).toBeUndefined()
    expect(decision.trace.find((t) => t.hook === 'later')?.skipped).toBe('chain-stopped')
  })

  it('collects additionalContext from every hook and renders reminders', async () => {
    const engine = createEngine({
      hooks: [
        fnHook('a', () => ({ decision: 'allow', additionalContext: 'the repo is read-only on Fridays' }), {
          priority: 1,
        }),
        fnHook(
          'b',
          () => ({
            decision: 'deny',
            reason: 'writes to /srv/prod are not allowed',
            additionalContext: ['use staging'],
          }),
          { priority: 2 },
        ),
      ],
    })
    const decision = await engine.dispatch(toolEvent())
    expect(decision.additionalContext).toEqual(['the repo is read-only on Fridays', 'use staging'])
    expect(renderReminders(decision)).toEqual([
      'hook b blocked the action: writes to /srv/prod are not allowed',
      'the repo is read-only on Fridays',
      'use staging',
    ])
  })

  it('applies matcher, if and scope', async () => {
    const ran: string[] = []
    const mark = (name: string, extra: Partial<HookDefinition>) =>
      fnHook(name, () => void ran.push(name), extra)
    const engine = createEngine({
      hooks: [
        mark('exec-only', { matcher: '^exec$' }),
        mark('write-only', { matcher: 'write_file|edit' }),
        mark('rm-only', { if: "tool_name == 'exec' && tool_input.cmd.startsWith('rm')" }),
        mark('acme-only', { scope: { tenant: 'acme' } }),
        mark('triage-agent', { scope: { agents: ['triage'] } }),
        mark('deep', { if: 'depth >= 1' }),
      ],
    })
    await engine.dispatch(toolEvent('exec', { cmd: 'ls' }))
    expect(ran.sort()).toEqual(['exec-only'])
    ran.length = 0
    await engine.dispatch(
      toolEvent('exec', { cmd: 'rm -rf /' }, { tenantId: 'acme', agent: { id: 'triage' }, depth: 2 }),
    )
    expect(ran.sort()).toEqual(['acme-only', 'deep', 'exec-only', 'rm-only', 'triage-agent'])
  })

  it('does not show hooks of other tenants in the trace', async () => {
    const engine = createEngine({
      hooks: [
        fnHook('secret-policy', () => ({ decision: 'deny', reason: 'x' }), { scope: { tenant: 'other' } }),
      ],
    })
    const decision = await engine.dispatch(toolEvent('exec', {}, { tenantId: 'acme' }))
    expect(decision.decision).toBe('allow')
    expect(JSON.stringify(decision)).not.toContain('secret-policy')
  })

  it('fails closed when an if expression cannot be evaluated, saying why', async () => {
    const engine = createEngine({
      hooks: [fnHook('path-guard', () => undefined, { if: "tool_input.path.startsWith('/srv')" })],
    })
    const decision = await engine.dispatch(toolEvent('exec', { cmd: 'ls' }))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(
      /hook "path-guard" failed closed: its if expression failed: No such key: path/,
    )
  })
})

describe('ask', () => {
  const asking = fnHook('needs-human', () => ({ decision: 'ask', reason: 'deploys need a human' }))

  it('denies when no approver is configured, saying so', async () => {
    const decision = await createEngine({ hooks: [asking] }).dispatch(toolEvent())
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/deploys need a human; no approver is configured/)
    expect(decision.approval?.outcome).toBe('unavailable')
  })

  it('resolves by the approver: approve, reject, edit', async () => {
    const requests: ApprovalRequest[] = []
    const answers = [
      { outcome: 'approve' as const, by: 'ana' },
      { outcome: 'reject' as const, by: 'bo', reason: 'not now' },
      {
        outcome: 'edit' as const,
        by: 'cy',
        payload: { tool: { name: 'exec', input: { cmd: 'ls --dry-run' } } },
      },
    ]
    const engine = createEngine({
      hooks: [asking],
      approver: (request) => {
        requests.push(request)
        return answers[requests.length - 1] as (typeof answers)[number]
      },
    })
    const approved = await engine.dispatch(toolEvent())
    expect(approved).toMatchObject({ decision: 'allow', approval: { outcome: 'approved', by: 'ana' } })
    const rejected = await engine.dispatch(toolEvent())
    expect(rejected.decision).toBe('deny')
    expect(rejected.reason).toMatch(/rejected by bo: not now/)
    const edited = await engine.dispatch(toolEvent())
    expect(edited).toMatchObject({
      decision: 'modify',
      payload: { tool: { input: { cmd: 'ls --dry-run' } } },
    })
    expect(requests[0]?.asks).toEqual([{ hook: 'needs-human', reason: 'deploys need a human' }])
  })

  it('denies when the approver does not answer in time', async () => {
    const engine = createEngine({
      hooks: [asking],
      approver: () => new Promise(() => undefined),
      limits: { approvalTimeoutMs: 50 },
    })
    const decision = await engine.dispatch(toolEvent())
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/no approval within 50 ms/)
  })

  it('is overridden by a deny later in the chain (deny > ask)', async () => {
    let asked = false
    const engine = createEngine({
      hooks: [asking, fnHook('zz-block', () => ({ decision: 'deny', reason: 'blocked' }))],
      approver: () => {
        asked = true
        return { outcome: 'approve' }
      },
    })
    const decision = await engine.dispatch(toolEvent())
    expect(decision).toMatchObject({ decision: 'deny', reason: 'blocked' })
    expect(asked).toBe(false)
  })
})

describe('failures become decisions', () => {
  it('a throwing hook denies by default and allows with onError: allow', async () => {
    const boom = () => {
      throw new Error('database unreachable')
    }
    const denied = await createEngine({ hooks: [fnHook('flaky', boom)] }).dispatch(toolEvent())
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toBe('hook "flaky" failed closed: database unreachable')
    expect(denied.trace[0]?.error).toEqual({ kind: 'error', message: 'database unreachable' })
    const allowed = await createEngine({ hooks: [fnHook('flaky', boom, { onError: 'allow' })] }).dispatch(
      toolEvent(),
    )
    expect(allowed.decision).toBe('allow')
  })

  it('a slow hook times out into its onTimeout policy and sees its signal aborted', async () => {
    let aborted = false
    const slow = fnHook(
      'slow',
      (call) =>
        new Promise((resolve) => {
          call.signal.addEventListener('abort', () => {
            aborted = true
            resolve({ decision: 'allow' })
          })
        }),
      { timeoutMs: 30 },
    )
    const decision = await createEngine({ hooks: [slow] }).dispatch(toolEvent())
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/hook "slow" failed closed: timed out after 30 ms/)
    expect(aborted).toBe(true)
    const lenient = await createEngine({ hooks: [{ ...slow, onTimeout: 'allow' }] }).dispatch(toolEvent())
    expect(lenient.decision).toBe('allow')
  })

  it('garbage answers fail closed with what was wrong', async () => {
    const cases: [unknown, RegExp][] = [
      [42, /answered number 42, not a decision object/],
      [{ decision: 'maybe' }, /answered decision "maybe"/],
      [{ decision: 'modify' }, /a modify decision needs a payload/],
      [{ decision: 'modify', payload: { tool: { input: {} } } }, /modified the payload into an invalid one/],
    ]
    for (const [answer, message] of cases) {
      const decision = await createEngine({ hooks: [fnHook('odd', () => answer)] }).dispatch(toolEvent())
      expect(decision.decision).toBe('deny')
      expect(decision.reason).toMatch(message)
    }
  })

  it('the chain budget cuts a hook short', async () => {
    const slow = (name: string) =>
      fnHook(name, () => new Promise((r) => setTimeout(() => r(undefined), 80)), { timeoutMs: 5000 })
    const engine = createEngine({ hooks: [slow('a'), slow('b')], limits: { chainBudgetMs: 100 } })
    const decision = await engine.dispatch(toolEvent())
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(
      /hook "b" failed closed: timed out after \d+ ms \(the chain budget of 100 ms was nearly used up\)/,
    )
  })

  it('bad input is a deny naming the problem, never a throw', async () => {
    const engine = createEngine({ hooks: [fnHook('x', () => undefined)] })
    const cases: [unknown, RegExp][] = [
      [{ event: 'tool.pree', payload: {} }, /unknown event "tool.pree"; did you mean "tool.pre"/],
      [{ event: 'tool.pre', payload: { tool: { input: {} } } }, /invalid tool.pre event: payload: tool.name/],
      [{ event: 'tool.pre', payload: 'rm -rf' }, /payload must be a JSON object/],
      [
        { event: 'tool.pre', payload: { tool: { name: 'x', input: {} } }, context: { depth: -1 } },
        /context: depth/,
      ],
      [null, /the event must be an object/],
    ]
    for (const [input, message] of cases) {
      const decision = await engine.dispatch(input as never)
      expect(decision.decision).toBe('deny')
      expect(decision.reason).toMatch(message)
    }
  })

  it('caps sub-agent depth and payload size', async () => {
    const engine = createEngine({ hooks: [fnHook('x', () => undefined)], limits: { maxPayloadBytes: 1000 } })
    const deep = await engine.dispatch(toolEvent('exec', {}, { depth: 4 }))
    expect(deep.reason).toBe('sub-agent depth 4 exceeds the cap of 3')
    const spawn = await engine.dispatch({
      event: 'subagent.start',
      payload: { subagent: {} },
      context: { depth: 3 },
    })
    expect(spawn).toMatchObject({ decision: 'deny', reason: 'sub-agent depth 4 exceeds the cap of 3' })
    const big = await engine.dispatch(toolEvent('exec', { blob: 'é'.repeat(600) }))
    expect(big.decision).toBe('deny')
    expect(big.reason).toMatch(/the payload is 1\d\d\d bytes, over the cap of 1000 bytes/)
  })
})

describe('circuit breaker', () => {
  it('opens after 5 failures in the window, applies onError, and closes when reset', async () => {
    let calls = 0
    let failing = true
    const trips: string[] = []
    const engine = createEngine({
      hooks: [
        fnHook(
          'flaky',
          () => {
            calls++
            if (failing) throw new Error('upstream 503')
            return { decision: 'allow' }
          },
          { onError: 'allow' },
        ),
      ],
      recorder: {
        record: () => undefined,
        breakerTripped: (trip) => void trips.push(`${trip.hookId}:${trip.failures}`),
      },
    })
    for (let i = 0; i < 5; i++) await engine.dispatch(toolEvent())
    expect(calls).toBe(5)
    await new Promise((r) => setTimeout(r, 0))
    expect(trips).toEqual(['flaky:5'])
    expect(engine.openBreakers().map((t) => t.hookId)).toEqual(['flaky'])
    failing = false
    const whileOpen = await engine.dispatch(toolEvent())
    expect(calls).toBe(5)
    expect(whileOpen.decision).toBe('allow')
    expect(whileOpen.trace[0]?.error?.kind).toBe('breaker-open')
    engine.resetBreaker('flaky')
    const after = await engine.dispatch(toolEvent())
    expect(calls).toBe(6)
    expect(after.trace[0]?.error).toBeUndefined()
  })

  it('keeps a global hook’s breaker per tenant: one tenant’s failures leave it running for the others', async () => {
    const engine = createEngine({
      hooks: [
        fnHook('global-check', (call) => {
          if (call.event.context.tenantId === 'acme') throw new Error('acme input breaks it')
          return { decision: 'allow' }
        }),
      ],
    })
    const as = (tenantId?: string) => toolEvent('exec', { cmd: 'ls' }, tenantId ? { tenantId } : {})
    for (let i = 0; i < 5; i++) await engine.dispatch(as('acme'))
    expect(engine.openBreakers()).toEqual([
      expect.objectContaining({ hookId: 'global-check', tenant: 'acme' }),
    ])
    expect((await engine.dispatch(as('acme'))).trace[0]?.error?.kind).toBe('breaker-open')
    for (const other of ['globex', undefined]) {
      const decision = await engine.dispatch(as(other))
      expect(decision.decision).toBe('allow')
      expect(decision.trace[0]?.error).toBeUndefined()
    }
    engine.resetBreaker('global-check', 'globex')
    expect(engine.openBreakers()).toHaveLength(1)
    engine.resetBreaker('global-check')
    expect(engine.openBreakers()).toEqual([])
  })

  it('an open breaker on a deny-on-error hook keeps denying', async () => {
    const engine = createEngine({
      hooks: [fnHook('strict', () => Promise.reject(new Error('down')))],
      limits: { breaker: { failures: 2, windowMs: 60_000 } },
    })
    await engine.dispatch(toolEvent())
    await engine.dispatch(toolEvent())
    const decision = await engine.dispatch(toolEvent())
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/circuit breaker is open .* after 2 failures/)
  })
})

describe('non-blocking events and the recorder', () => {
  it('answers allow at once while hooks run in the background; drain waits; the recorder gets the outcome', async () => {
    const records: DecisionRecord[] = []
    let finished = false
    const engine = createEngine({
      hooks: [
        {
          name: 'slow-observer',
          event: 'session.start',
          handler: {
            type: 'fn',
            fn: () =>
              new Promise((r) =>
                setTimeout(() => {
                  finished = true
                  r({ decision: 'deny', reason: 'observed', additionalContext: 'welcome back' })
                }, 150),
              ),
          },
        },
      ],
      recorder: { record: (r) => void records.push(r) },
    })
    const started = performance.now()
    const decision = await engine.dispatch({
      event: 'SessionStart',
      payload: { session: { source: 'startup' } },
    })
    expect(performance.now() - started).toBeLessThan(100)
    expect(decision).toMatchObject({ decision: 'allow', blocking: false })
    expect(finished).toBe(false)
    await engine.drain()
    expect(finished).toBe(true)
    expect(records).toHaveLength(1)
    expect(records[0]?.decision).toMatchObject({
      decision: 'deny',
      blocking: false,
      additionalContext: ['welcome back'],
    })
  })

  it('records every blocking decision, and denies when a recorder fails', async () => {
    const records: Decision[] = []
    const engine = createEngine({
      hooks: [fnHook('x', () => undefined)],
      recorder: { record: (r) => void records.push(r.decision) },
    })
    const d = await engine.dispatch(toolEvent())
    expect(records.map((r) => r.id)).toEqual([d.id])
    const failing = createEngine({
      hooks: [fnHook('x', () => undefined)],
      recorder: { record: () => Promise.reject(new Error('disk full')) },
    })
    const denied = await failing.dispatch(toolEvent())
    expect(denied).toMatchObject({ decision: 'deny', reasonCode: ['audit'] })
    expect(denied.reason).toMatch(/could not be recorded \(disk full\)/)
  })

  it('denies dispatches after close', async () => {
    const engine = createEngine({ hooks: [fnHook('x', () => undefined)] })
    await engine.close()
    expect((await engine.dispatch(toolEvent())).reason).toBe('the engine is closed')
  })
})

describe('matchers', () => {
  it('an evil regex does not hang the process', async () => {
    const engine = createEngine({
      hooks: [fnHook('evil', () => ({ decision: 'deny', reason: 'matched' }), { matcher: '(a+)+$' })],
    })
    const started = performance.now()
    const decision = await engine.dispatch(toolEvent(`${'a'.repeat(5000)}!`))
    expect(performance.now() - started).toBeLessThan(2000)
    expect(decision.decision).toBe('allow')
    expect((await engine.dispatch(toolEvent('aaaa'))).decision).toBe('deny')
    const nested = createEngine({ hooks: [fnHook('evil2', () => undefined, { matcher: '^(a|a)*(b|b)*c$' })] })
    const t2 = performance.now()
    await nested.dispatch(toolEvent(`${'a'.repeat(20000)}`))
    expect(performance.now() - t2).toBeLessThan(2000)
  })

  it('plain names and lists match whole names; regexes search', async () => {
    const hits: string[] = []
    const engine = createEngine({
      hooks: [
        fnHook('exact', () => void hits.push('exact'), { matcher: 'Write' }),
        fnHook('list', () => void hits.push('list'), { matcher: 'Edit|Write' }),
        fnHook('regex', () => void hits.push('regex'), { matcher: 'Notebook.*' }),
      ],
    })
    await engine.dispatch(toolEvent('WriteAll'))
    expect(hits).toEqual([])
    await engine.dispatch(toolEvent('Write'))
    expect(hits.sort()).toEqual(['exact', 'list'])
    hits.length = 0
    await engine.dispatch(toolEvent('NotebookEdit'))
    expect(hits).toEqual(['regex'])
  })
})
