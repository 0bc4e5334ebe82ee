// The turn a per-turn cap counts: the turn id within its session and tenant (else the
// session within the tenant), so the same turn id elsewhere has its own count, and no two
// different (tenant, session, turn) triples share a key, whatever characters they hold.

import { describe, expect, it } from 'vitest'
import { type CheckedEvent, TurnCap, turnKeyOf } from '../../src/core/index.js'

function event(context: { tenantId?: string; session?: string; turnId?: string }): CheckedEvent {
  return {
    event: 'tool.pre',
    payload: { tool: { name: 'exec', input: {} } },
    context: {
      ...(context.tenantId !== undefined ? { tenantId: context.tenantId } : {}),
      ...(context.session !== undefined ? { session: { id: context.session } } : {}),
      ...(context.turnId !== undefined ? { turnId: context.turnId } : {}),
    },
  } as CheckedEvent
}

describe('turnKeyOf', () => {
  it('tells apart the same turn id in two sessions and in two tenants', () => {
    const keys = [
      turnKeyOf(event({ tenantId: 'acme', session: 's-1', turnId: 't-1' })),
      turnKeyOf(event({ tenantId: 'acme', session: 's-2', turnId: 't-1' })),
      turnKeyOf(event({ tenantId: 'globex', session: 's-1', turnId: 't-1' })),
      turnKeyOf(event({ session: 's-1', turnId: 't-1' })),
      turnKeyOf(event({ tenantId: 'acme', session: 's-1' })),
    ]
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('never lets one tenant or session spell its way into another’s key', () => {
    const a = turnKeyOf(event({ tenantId: 'a', session: 'b:c', turnId: 't' }))
    const b = turnKeyOf(event({ tenantId: 'a1:b', session: 'c', turnId: 't' }))
    const c = turnKeyOf(event({ tenantId: 'a', session: 'bsession', turnId: undefined }))
    const d = turnKeyOf(event({ tenantId: 'a', session: 'b', turnId: 'session' }))
    expect(new Set([a, b, c, d]).size).toBe(4)
  })

  it('caps nothing when the event names neither a turn nor a session', () => {
    expect(turnKeyOf(event({ tenantId: 'acme' }))).toBeUndefined()
  })

  it('counts each turn on its own', () => {
    const cap = new TurnCap(1)
    const one = turnKeyOf(event({ tenantId: 'acme', session: 's-1', turnId: 't-1' })) as string
    const two = turnKeyOf(event({ tenantId: 'acme', session: 's-2', turnId: 't-1' })) as string
    expect(cap.take(one)).toBeUndefined()
    expect(cap.take(one)).toBe(1)
    expect(cap.take(two)).toBeUndefined()
  })
})
