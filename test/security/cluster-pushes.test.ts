// Pushes relayed between instances keep the tenant wall: a push another instance made for
// one tenant reaches only connections whose token covers that tenant (decisions included),
// the same change pushed by two instances is delivered once, and a push too large for one
// notification is cut into pieces that each fit NOTIFY's limit and join back to the push.

import { describe, expect, it } from 'vitest'
import { PUSH_TOPICS, PushHub, type PushTopic, type Subscriber } from '../../src/server/index.js'
import { MAX_PAYLOAD, packNotices } from '../../src/server/management/cluster-bus.js'

function subscriber(
  tenant: string | undefined,
): Subscriber & { frames: { event: string; payload: unknown }[] } {
  const frames: { event: string; payload: unknown }[] = []
  return {
    ...(tenant === undefined ? {} : { tenant }),
    topics: new Map(PUSH_TOPICS.map((t: PushTopic) => [t, {}])),
    buffered: () => 0,
    send: (frame) => frames.push(JSON.parse(String(frame))),
    dropped: 0,
    frames,
  }
}

describe('pushes from other instances', () => {
  it('reach only the connections of the tenant they belong to', () => {
    const hub = new PushHub()
    const acme = subscriber('acme')
    const globex = subscriber('globex')
    const master = subscriber(undefined)
    for (const s of [acme, globex, master]) hub.add(s)
    hub.receive('approval.requested', 'globex', { id: 'ap-1', status: 'pending', input: { secret: 'g' } })
    hub.receive('decision', 'globex', {
      id: 'd-1',
      event: 'tool.pre',
      decision: 'deny',
      reason: 'globex only',
    })
    hub.receive('breaker.tripped', 'globex', { hookId: 'globex/h', openedAt: 1 })
    expect(acme.frames).toEqual([])
    expect(globex.frames.map((f) => f.event)).toEqual(['approval.requested', 'decision', 'breaker.tripped'])
    expect(master.frames).toHaveLength(3)
  })

  it('deliver the same change made on two instances once', () => {
    const hub = new PushHub()
    const viewer = subscriber('acme')
    hub.add(viewer)
    const resolved = { id: 'ap-2', status: 'approved' }
    hub.publish('approval.resolved', 'acme', resolved)
    hub.receive('approval.resolved', 'acme', resolved)
    expect(viewer.frames).toHaveLength(1)
  })

  it('are cut into notifications under the payload limit that join back to the push', () => {
    const big = {
      t: 'approval.requested' as const,
      n: 'acme',
      p: { id: 'x', input: '"é\u0001'.repeat(9000) },
    }
    const small = { t: 'decision' as const, n: 'acme', p: { id: 'd' } }
    const notices = packNotices('me', [small, big, small], () => 'c1')
    for (const notice of notices) expect(Buffer.byteLength(notice)).toBeLessThan(8000)
    expect(MAX_PAYLOAD).toBeLessThan(8000)
    const parsed = notices.map((n) => JSON.parse(n))
    const pieces = parsed.filter((n) => n.c === 'c1').sort((x, y) => x.i - y.i)
    expect(JSON.parse(pieces.map((n) => n.d).join(''))).toEqual(big)
    expect(parsed[0].m).toEqual([small])
    expect(parsed[parsed.length - 1].m).toEqual([small])
  })
})
