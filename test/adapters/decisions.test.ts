// What adapters read out of decisions and build into events: `toJson` copies plain values in
// one walk and must give exactly what the JSON round trip gives, for generated values and
// for the awkward ones (class instances, `toJSON`, cycles, throwing getters, `__proto__`);
// `contextReminder` says nothing for a plain allow.

import { describe, expect, it } from 'vitest'
import { contextReminder, systemReminder, toJson } from '../../src/adapters/decisions.js'
import { createEngine } from '../../src/index.js'

/** The reference: what `toJson` did before it walked plain values itself. */
function roundTrip(value: unknown): unknown {
  if (value === undefined) return null
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null)
    return value
  try {
    return JSON.parse(JSON.stringify(value))
  } catch {
    return String(value)
  }
}

/** A small deterministic generator (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const LEAVES: unknown[] = [
  'text',
  '',
  '\ud800 lone surrogate',
  0,
  -0,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
  undefined,
  () => 1,
  Symbol('s'),
  new Date(0),
  new URL('https://example.com/a?b=1'),
  new Uint8Array([1, 2]),
  new Map([['a', 1]]),
  { toJSON: () => 'custom' },
  Object.create(null),
]

function generate(next: () => number, depth: number): unknown {
  const roll = next()
  if (depth > 4 || roll < 0.4) return LEAVES[Math.floor(next() * LEAVES.length)]
  if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => generate(next, depth + 1))
  const object: Record<string, unknown> = {}
  for (let i = 0; i < Math.floor(next() * 4); i++)
    object[`k${Math.floor(next() * 5)}`] = generate(next, depth + 1)
  return object
}

describe('toJson', () => {
  it('gives what the JSON round trip gives, for generated values', () => {
    const next = random(7)
    for (let i = 0; i < 3000; i++) {
      const value = generate(next, 0)
      expect(toJson(value)).toStrictEqual(roundTrip(value))
    }
  })

  it('gives what the JSON round trip gives for the awkward values, and always a copy', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const throwing = {
      get boom(): never {
        throw new Error('no')
      },
    }
    class Point {
      x = 1
    }
    const sparse: unknown[] = [1]
    sparse[2] = 3
    const deep = JSON.parse(`${'['.repeat(60)}1${']'.repeat(60)}`)
    const proto = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')
    const nested = { list: [{ a: 1 }] }
    for (const value of [cyclic, throwing, new Point(), sparse, deep, proto, 10n, { n: 10n }, [undefined]]) {
      expect(toJson(value)).toStrictEqual(roundTrip(value))
    }
    expect(Object.hasOwn(toJson(proto) as object, '__proto__')).toBe(true)
    const copy = toJson(nested) as typeof nested
    expect(copy).toEqual(nested)
    expect(copy).not.toBe(nested)
    expect(copy.list[0]).not.toBe(nested.list[0])
  })
})

describe('contextReminder', () => {
  it('is empty for a plain allow and the trace-less reminder otherwise', async () => {
    const allow = await createEngine().dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'ls', input: {} } },
    })
    expect(contextReminder(allow)).toBe('')
    const engine = createEngine({
      hooks: [
        {
          name: 'note',
          event: 'tool.pre',
          handler: { type: 'fn', fn: () => ({ decision: 'allow', additionalContext: 'be careful' }) },
        },
        { name: 'no', event: 'tool.pre', matcher: '^rm$', handler: { type: 'deny', reason: 'no rm' } },
      ],
    })
    for (const name of ['ls', 'rm']) {
      const decision = await engine.dispatch({ event: 'tool.pre', payload: { tool: { name, input: {} } } })
      expect(contextReminder(decision)).toBe(systemReminder({ ...decision, trace: [] }))
      expect(contextReminder(decision)).not.toBe('')
    }
  })
})
