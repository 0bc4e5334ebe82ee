// Indexed hook selection against a plain scan: over randomized hook sets (events with
// wildcards, tenants, agents, priorities and names that tie, adds, replaces and removals),
// the index must pick the same hooks in the same order as filtering every hook would, both
// on its own and through the engine's trace.

import { describe, expect, it } from 'vitest'
import type { EventName, RegisteredHook } from '../../src/core/index.js'
import { isOpenEventName, parseHookDefinition, scopeCovers } from '../../src/core/index.js'
import { byPriorityThenName, HookIndex, inRegistrationOrder } from '../../src/core/selection.js'
import { createEngine, type EventContext, type HookDefinition } from '../../src/index.js'

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const EVENTS = ['tool.pre', 'tool.post', 'user.message', 'custom.deploy', 'custom.*', 'meta.audit', 'meta.*']
const DISPATCHED = ['tool.pre', 'tool.post', 'user.message', 'custom.deploy', 'custom.other', 'meta.audit']
const TENANTS = ['acme', 'globex', 'initech']
const AGENTS = ['triage', 'coder', 'Coder Bot']
const TOOLS = ['exec', 'write_file', 'read_file']

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T
}

function randomDefinition(next: () => number): HookDefinition {
  const definition: HookDefinition = {
    name: pick(next, ['a', 'b', 'c', 'd', 'e', 'f']),
    event: pick(next, EVENTS),
    priority: pick(next, [-1, 0, 0, 1, 2]),
    handler: { type: 'fn', fn: () => undefined },
  }
  const scope = next()
  if (scope < 0.3) definition.scope = { tenant: pick(next, TENANTS) }
  else if (scope < 0.45) definition.scope = { agents: [pick(next, AGENTS)] }
  else if (scope < 0.55)
    definition.scope = { tenant: pick(next, TENANTS), agents: [pick(next, AGENTS), pick(next, AGENTS)] }
  const matcher = next()
  if (matcher < 0.3) definition.matcher = pick(next, TOOLS)
  else if (matcher < 0.4) definition.matcher = '^(exec|read_.*)$'
  if (next() < 0.1) definition.enabled = false
  return definition
}

function randomContext(next: () => number): EventContext {
  const context: EventContext = {}
  const tenant = next()
  if (tenant < 0.7) context.tenantId = pick(next, [...TENANTS, 'umbrella'])
  const agent = next()
  if (agent < 0.25) context.agent = { id: pick(next, AGENTS) }
  else if (agent < 0.4) context.agent = { id: 'x-1', name: pick(next, AGENTS) }
  else if (agent < 0.5) context.agent = { name: pick(next, AGENTS) }
  return context
}

function prepared(definition: HookDefinition): RegisteredHook {
  return { spec: parseHookDefinition(definition), execute: () => undefined, handlerType: 'fn' }
}

/** What selection was before the index: every hook of the event, sorted, scope-filtered. */
function scan(
  registry: ReadonlyMap<string, RegisteredHook>,
  name: EventName,
  context: EventContext,
  order = byPriorityThenName,
): string[] | undefined {
  const of = (event: string) => [...registry.values()].filter((e) => e.spec.event === event)
  const exact = of(name)
  const wildcard = isOpenEventName(name) ? of(name.startsWith('custom.') ? 'custom.*' : 'meta.*') : []
  const all = [...exact.sort(order), ...wildcard.sort(order)].sort(order)
  if (all.length === 0) return undefined
  return all
    .filter((e) => scopeCovers(e.spec.scope, { event: name, payload: {}, context }))
    .map((e) => e.spec.id)
}

describe('indexed hook selection', () => {
  for (const [label, order] of [
    ['priority then name', byPriorityThenName],
    ['registration', inRegistrationOrder],
  ] as const) {
    it(`picks what a plain scan picks, in the same order (${label})`, () => {
      for (let seed = 1; seed <= 40; seed++) {
        const next = random(seed)
        const index = new HookIndex(order)
        const registry = new Map<string, RegisteredHook>()
        for (let step = 0; step < 120; step++) {
          if (next() < 0.2 && registry.size > 0) {
            const id = pick(next, [...registry.keys()])
            expect(index.delete(id)).toBe(true)
            registry.delete(id)
          } else {
            const entry = prepared(randomDefinition(next))
            index.set(entry)
            registry.set(entry.spec.id, entry)
          }
          if (step % 10 !== 9) continue
          expect(index.size).toBe(registry.size)
          expect([...index.values()].map((e) => e.spec.id)).toEqual([...registry.keys()])
          for (let probe = 0; probe < 25; probe++) {
            const name = pick(next, DISPATCHED) as EventName
            const context = randomContext(next)
            const got = index.select(name, context)?.map((e) => e.spec.id)
            expect(got, `seed ${seed} step ${step} ${name} ${JSON.stringify(context)}`).toEqual(
              scan(registry, name, context, order),
            )
          }
        }
      }
    })
  }

  it('counts the hooks per event and forgets events left without hooks', () => {
    const index = new HookIndex()
    index.set(prepared({ name: 'a', event: 'PreToolUse', handler: { type: 'fn' } }))
    index.set(prepared({ name: 'a', event: 'tool.pre', scope: { tenant: 't' }, handler: { type: 'fn' } }))
    index.set(prepared({ name: 'b', event: 'custom.*', handler: { type: 'fn' } }))
    expect(Object.fromEntries(index.countsByEvent())).toEqual({ 'tool.pre': 2, 'custom.*': 1 })
    expect(index.select('custom.x', {})?.map((e) => e.spec.id)).toEqual(['b'])
    index.delete('b')
    expect(index.select('custom.x', {})).toBeUndefined()
    // Moving a hook to another event by replacing it leaves nothing behind.
    index.set(prepared({ name: 'a', event: 'tool.post', handler: { type: 'fn' } }))
    expect(Object.fromEntries(index.countsByEvent())).toEqual({ 'tool.pre': 1, 'tool.post': 1 })
    expect(index.select('tool.pre', {})).toEqual([])
    expect(index.select('tool.pre', { tenantId: 't' })?.map((e) => e.spec.id)).toEqual(['t/a'])
  })

  it('keeps tenants apart even when their names could run together in a cache key', () => {
    const index = new HookIndex()
    index.set(prepared({ name: 'h', event: 'tool.pre', scope: { tenant: 'a|b' }, handler: { type: 'fn' } }))
    index.set(prepared({ name: 'g', event: 'tool.pre', scope: { agents: ['x'] }, handler: { type: 'fn' } }))
    expect(index.select('tool.pre', { tenantId: 'a|b' })?.map((e) => e.spec.id)).toEqual(['a|b/h'])
    expect(index.select('tool.pre', { tenantId: 'a', agent: { id: 'b' } })).toEqual([])
    expect(index.select('tool.pre', { tenantId: 'a', agent: { id: 'x' } })?.map((e) => e.spec.id)).toEqual([
      'g',
    ])
  })
})

describe('the engine with many hooks', () => {
  it('runs exactly the hooks a scan selects, in order, as hooks come and go', async () => {
    for (let seed = 100; seed < 110; seed++) {
      const next = random(seed)
      const engine = createEngine({ hooks: [] })
      const registry = new Map<string, RegisteredHook>()
      for (let step = 0; step < 80; step++) {
        if (next() < 0.2 && registry.size > 0) {
          const id = pick(next, [...registry.keys()])
          expect(engine.unregister(id)).toBe(true)
          registry.delete(id)
        } else {
          const definition = randomDefinition(next)
          const spec = engine.register(definition, { replace: true })
          registry.set(spec.id, prepared(definition))
        }
        const name = pick(next, DISPATCHED) as EventName
        const context = randomContext(next)
        const payload = name.startsWith('tool.')
          ? { tool: { name: pick(next, TOOLS), input: {}, output: null } }
          : name === 'user.message'
            ? { message: { role: 'user', text: 'hi' } }
            : { any: 1 }
        const decision = await engine.dispatch({ event: name, payload, context, wait: true })
        expect(decision.reasonCode).not.toContain('invalid-event')
        const expected = scan(registry, name, context) ?? []
        expect(
          decision.trace.map((t) => t.id),
          `seed ${seed} step ${step}`,
        ).toEqual(expected)
      }
      await engine.close()
    }
  })
})
