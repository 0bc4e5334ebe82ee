// Script state is kept per tenant: a run's cache is its tenant's and session's, counters
// are its tenant's (snapshot lists no other tenant's), turn logs are its tenant's, session's
// and turn's, and no two (tenant, session) pairs share a key whatever they spell.

import { describe, expect, it } from 'vitest'
import type { CheckedEvent } from '../../src/core/index.js'
import { runKey, ScriptState, StagedWrites, turnKey } from '../../src/handlers/script-state.js'

function event(tenantId: string | undefined, session: string, turnId?: string): CheckedEvent {
  return {
    event: 'tool.pre',
    payload: { tool: { name: 'exec', input: {} } },
    context: {
      ...(tenantId !== undefined ? { tenantId } : {}),
      session: { id: session },
      ...(turnId !== undefined ? { turnId } : {}),
    },
  } as CheckedEvent
}

describe('script state keys', () => {
  it('tell tenants and sessions apart, with no spelling that meets another pair', () => {
    const keys = [
      runKey(event('acme', 's-1')),
      runKey(event('globex', 's-1')),
      runKey(event(undefined, 's-1')),
      runKey(event('a', '1:b')),
      runKey(event('a1:', 'b')),
    ]
    expect(new Set(keys).size).toBe(keys.length)
    expect(turnKey(event('acme', 's-1', 't-1'))).not.toBe(turnKey(event('globex', 's-1', 't-1')))
  })
})

describe('ScriptState', () => {
  it('keeps caches and counters per tenant', () => {
    const state = new ScriptState()
    const acme = new StagedWrites(state, 'acme', runKey(event('acme', 's-1')))
    acme.cacheSet('approved', true)
    acme.incr('acme_orders', 2)
    acme.commit()
    const globex = new StagedWrites(state, 'globex', runKey(event('globex', 's-1')))
    expect(globex.cacheGet('approved')).toBeUndefined()
    expect(globex.snapshot()).toEqual({})
    globex.incr('globex_refunds', 1)
    globex.commit()
    const again = new StagedWrites(state, 'acme', runKey(event('acme', 's-1')))
    expect(again.cacheGet('approved')).toBe(true)
    expect(again.snapshot()).toEqual({ acme_orders: 2 })
  })

  it('keeps turn logs per tenant, session and turn', () => {
    const state = new ScriptState()
    state.addTurnLogs(turnKey(event('acme', 's-1', 't-1')), ['acme line'])
    expect(state.turnLogsOf(turnKey(event('globex', 's-1', 't-1')))).toEqual([])
    expect(state.turnLogsOf(turnKey(event('acme', 's-1', 't-1')))).toEqual(['acme line'])
  })
})
