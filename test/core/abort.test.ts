// Stopping hooks: a timeout or a closing engine reaches a hook through its AbortSignal and
// through `onAbort` listeners alike; listeners of finished hooks never fire.

import { describe, expect, it } from 'vitest'
import { createEngine, type HookCall, type HookDefinition } from '../../src/index.js'

const toolEvent = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }

function fnHook(name: string, fn: (call: HookCall) => unknown, extra: Partial<HookDefinition> = {}) {
  return { name, event: 'tool.pre', handler: { type: 'fn', fn }, ...extra } satisfies HookDefinition
}

/** A hook that never answers until it is told to stop, then says so. */
function waitsForAbort(seen: string[], via: 'onAbort' | 'signal' | 'both') {
  return (call: HookCall) =>
    new Promise((resolve) => {
      if (via !== 'signal') {
        call.onAbort?.((reason) => {
          seen.push(`onAbort: ${reason.message}`)
          resolve(undefined)
        })
      }
      if (via !== 'onAbort') {
        call.signal.addEventListener('abort', () => {
          seen.push(`signal: ${(call.signal.reason as Error).message}`)
          resolve(undefined)
        })
      }
    })
}

describe('aborting hooks', () => {
  it('a timeout tells onAbort listeners and aborts the signal, then applies onTimeout', async () => {
    for (const via of ['onAbort', 'signal', 'both'] as const) {
      const seen: string[] = []
      const engine = createEngine({ hooks: [fnHook('slow', waitsForAbort(seen, via), { timeoutMs: 30 })] })
      const decision = await engine.dispatch(toolEvent)
      expect(decision.decision).toBe('deny')
      expect(decision.reason).toBe('hook "slow" failed closed: timed out after 30 ms')
      expect(decision.trace[0]?.error).toEqual({ kind: 'timeout', message: 'timed out after 30 ms' })
      const expected = {
        onAbort: ['onAbort: hook "slow" timed out after 30 ms'],
        signal: ['signal: hook "slow" timed out after 30 ms'],
        both: ['signal: hook "slow" timed out after 30 ms', 'onAbort: hook "slow" timed out after 30 ms'],
      }[via]
      expect(seen).toEqual(expected)
      const lenient = createEngine({
        hooks: [fnHook('slow', waitsForAbort([], via), { timeoutMs: 30, onTimeout: 'allow' })],
      })
      expect((await lenient.dispatch(toolEvent)).decision).toBe('allow')
    }
  })

  it('closing the engine stops hooks in flight through either channel', async () => {
    const seen: string[] = []
    const engine = createEngine({
      hooks: [
        fnHook('a', waitsForAbort(seen, 'onAbort')),
        fnHook('b', waitsForAbort(seen, 'signal'), { event: 'user.message' }),
      ],
    })
    const first = engine.dispatch(toolEvent)
    const second = engine.dispatch({
      event: 'user.message',
      payload: { message: { role: 'user', text: 'hi' } },
    })
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(seen).toEqual([])
    await engine.close()
    expect(seen.sort()).toEqual(['onAbort: the engine is closing', 'signal: the engine is closing'])
    expect((await first).trace[0]).toMatchObject({ hook: 'a', outcome: 'abstain' })
    expect((await second).trace[0]).toMatchObject({ hook: 'b', outcome: 'abstain' })
  })

  it('drops listeners once a hook is done; removed and throwing listeners do no harm', async () => {
    const calls: HookCall[] = []
    let removedFired = false
    const engine = createEngine({
      hooks: [
        fnHook('quick', (call) => {
          calls.push(call)
          call.onAbort?.(() => {
            throw new Error('listener failed')
          })
          const off = call.onAbort?.(() => {
            removedFired = true
          })
          off?.()
          return Promise.resolve({ decision: 'allow', reason: 'fine' })
        }),
      ],
    })
    const decision = await engine.dispatch(toolEvent)
    expect(decision).toMatchObject({ decision: 'allow', reason: 'allowed: 1 hook raised no objection' })
    let late = false
    calls[0]?.onAbort?.(() => {
      late = true
    })
    await engine.close()
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(late).toBe(false)
    expect(removedFired).toBe(false)
    expect(calls[0]?.signal.aborted).toBe(false)

    const thrower = createEngine({
      hooks: [
        fnHook(
          'slow',
          (call) =>
            new Promise((resolve) => {
              call.onAbort?.(() => {
                throw new Error('listener failed')
              })
              call.onAbort?.(() => resolve(undefined))
            }),
          { timeoutMs: 20 },
        ),
      ],
    })
    expect((await thrower.dispatch(toolEvent)).reason).toBe(
      'hook "slow" failed closed: timed out after 20 ms',
    )
  })

  it('tells a listener added after the timeout at once, in a microtask', async () => {
    let call: HookCall | undefined
    let release: () => void = () => undefined
    const engine = createEngine({
      hooks: [
        fnHook(
          'slow',
          (c) => {
            call = c
            return new Promise<void>((resolve) => {
              release = resolve
            })
          },
          { timeoutMs: 20 },
        ),
      ],
    })
    await engine.dispatch(toolEvent)
    const told: string[] = []
    call?.onAbort?.((reason) => told.push(reason.message))
    expect(told).toEqual([])
    await Promise.resolve()
    expect(told).toEqual(['hook "slow" timed out after 20 ms'])
    expect(call?.signal.aborted).toBe(true)
    release()
  })
})
