// The dispatch fast path (no hook for the event): it still checks the event's shape,
// gives every decision a unique id and hands it to the recorder, and it sees hooks
// registered or removed after the event name was first resolved.

import { describe, expect, it } from 'vitest'
import { DecisionIds } from '../../src/core/ids.js'
import { createEngine, type DecisionRecord } from '../../src/index.js'

const toolEvent = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }

describe('dispatch without hooks', () => {
  it('allows, records, and still rejects malformed events and closed engines', async () => {
    const records: DecisionRecord[] = []
    const engine = createEngine({ recorder: { record: (r) => void records.push(r) } })
    const first = await engine.dispatch(toolEvent)
    const second = await engine.dispatch({ ...toolEvent, event: 'PreToolUse' })
    expect(first).toMatchObject({
      decision: 'allow',
      reason: 'no hook applied to this event',
      blocking: true,
    })
    expect(second.event).toBe('tool.pre')
    expect(first.id).not.toBe(second.id)
    expect(records.map((r) => r.decision.id)).toEqual([first.id, second.id])
    expect(records[0]?.event).toEqual({ event: 'tool.pre', payload: toolEvent.payload, context: {} })
    const bad = await engine.dispatch({ event: 'tool.pre', payload: { tool: { input: {} } } })
    expect(bad).toMatchObject({ decision: 'deny', reasonCode: ['invalid-event'] })
    expect(bad.reason).toMatch(/tool.name must be a string/)
    const deep = await engine.dispatch({ ...toolEvent, context: { depth: 4 } })
    expect(deep.reason).toBe('sub-agent depth 4 exceeds the cap of 3')
    await engine.close()
    expect((await engine.dispatch(toolEvent)).reason).toBe('the engine is closed')
    expect(records).toHaveLength(5)
  })

  it('sees hooks registered and removed after the name was resolved', async () => {
    const engine = createEngine()
    expect((await engine.dispatch(toolEvent)).decision).toBe('allow')
    engine.register({
      name: 'no-exec',
      event: 'PreToolUse',
      handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'no exec' }) },
    })
    expect(await engine.dispatch(toolEvent)).toMatchObject({ decision: 'deny', reason: 'no exec' })
    engine.unregister('no-exec')
    expect((await engine.dispatch(toolEvent)).decision).toBe('allow')
  })

  it('alternating event names each resolve to their own hooks', async () => {
    const engine = createEngine({
      hooks: [
        {
          name: 'x',
          event: 'user.message',
          handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'no' }) },
        },
      ],
    })
    const message = { event: 'UserPromptSubmit', payload: { message: { role: 'user', text: 'hi' } } }
    for (let i = 0; i < 3; i++) {
      expect((await engine.dispatch(toolEvent)).decision).toBe('allow')
      expect((await engine.dispatch(message)).decision).toBe('deny')
    }
    expect((await engine.dispatch({ event: 'tool.pree', payload: {} })).reason).toMatch(
      /did you mean "tool.pre"/,
    )
  })
})

describe('decision ids', () => {
  it('read as the prefix and a sequence number, across the thousands', () => {
    const ids = new DecisionIds('p-')
    const seen: string[] = []
    for (let n = 1; n <= 2100; n++) seen.push(ids.next())
    expect(seen.slice(0, 3)).toEqual(['p-1', 'p-2', 'p-3'])
    expect(seen.slice(997, 1002)).toEqual(['p-998', 'p-999', 'p-1000', 'p-1001', 'p-1002'])
    expect(seen[1999]).toBe('p-2000')
    expect(seen.every((id, i) => id === `p-${i + 1}`)).toBe(true)
  })
})
