// GoClaw's circuit breaker on a real SQLite store: with `disableOnTrip`, a trip also sets
// the stored hook's `enabled` to false (what hooks.list shows), reported once; turning the
// hook back on and resetting the breaker runs it again.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { BreakerTrip } from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import { openStore, openStoreBreakerState } from '../../src/store/index.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-goclaw-breaker-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('GoClaw breaker', () => {
  it('switches the stored hook off on a trip, once, until it is turned back on', async () => {
    const store = await openStore(join(dir, 'breaker.db'))
    const disabled: BreakerTrip[] = []
    const state = await openStoreBreakerState(store, {
      breaker: { failures: 2, windowMs: 60_000 },
      disableOnTrip: true,
      onDisabled: (trip) => disabled.push(trip),
    })
    await store.putHook({ name: 'flaky', event: 'tool.pre', handler: { type: 'command', command: 'exit 1' } })
    const engine = createEngine({
      hooks: [
        {
          name: 'flaky',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: () => {
              throw new Error('down')
            },
          },
        },
      ],
      breaker: state,
    })
    const event = { event: 'tool.pre', payload: { tool: { name: 'exec', input: {} } } }
    for (let i = 0; i < 4; i++) await engine.dispatch(event)
    await state.flush()
    expect((await store.getHook('flaky'))?.enabled).toBe(false)
    expect((await store.listHooks()).find((h) => h.name === 'flaky')?.enabled).toBe(false)
    expect(disabled.map((t) => t.hookId)).toEqual(['flaky'])

    await store.setHookEnabled('flaky', true)
    engine.resetBreaker('flaky')
    await state.flush()
    expect(state.openTrip('flaky')).toBeUndefined()
    expect((await store.getHook('flaky'))?.enabled).toBe(true)
    await engine.close()
    await state.close()
    await store.close()
  })
})
