// Waiting for a non-blocking event: the hooks run before the answer, their added context and
// trace come back, and a hook's deny or rewrite never turns into a denial or a rewrite.

import { describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/core/index.js'
import { fnHandler } from '../../src/handlers/index.js'

function engineWith(run: () => unknown): Engine {
  return createEngine({
    handlers: [fnHandler],
    hooks: [{ name: 'loader', event: 'session.start', handler: { type: 'fn', fn: run } }],
  })
}

describe('dispatch with wait', () => {
  it('returns the context a session.start hook adds, with its trace', async () => {
    const engine = engineWith(() => ({ decision: 'allow', additionalContext: 'house rules: be brief' }))
    const waited = await engine.dispatch({ event: 'session.start', payload: {}, wait: true })
    expect(waited.decision).toBe('allow')
    expect(waited.additionalContext).toEqual(['house rules: be brief'])
    expect(waited.trace.map((t) => t.hook)).toEqual(['loader'])
    const unwaited = await engine.dispatch({ event: 'session.start', payload: {} })
    expect(unwaited.additionalContext).toEqual([])
    await engine.close()
  })

  it('never denies or rewrites, and says what the hook answered', async () => {
    const engine = engineWith(() => ({ decision: 'deny', reason: 'no sessions on Sunday' }))
    const waited = await engine.dispatch({ event: 'session.start', payload: {}, wait: true })
    expect(waited.decision).toBe('allow')
    expect(waited.reason).toContain('cannot block')
    expect(waited.reason).toContain('no sessions on Sunday')
    expect(waited.payload).toBeUndefined()
    await engine.close()
  })

  it('changes nothing for a blocking event', async () => {
    const engine = createEngine({
      handlers: [fnHandler],
      hooks: [{ name: 'no', event: 'tool.pre', handler: { type: 'fn', fn: () => ({ decision: 'deny' }) } }],
    })
    const waited = await engine.dispatch({ event: 'tool.pre', payload: { tool: { name: 'x' } }, wait: true })
    expect(waited.decision).toBe('deny')
    await engine.close()
  })
})
