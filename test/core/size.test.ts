// Payload size: counted by walking the value, near the cap it must equal the UTF-8 length of
// JSON.stringify for every kind of value (escapes, non-ASCII, surrogates, holes, toJSON,
// deep nesting), and the engine must apply the cap with it.

import { describe, expect, it } from 'vitest'
import { knownPayloadBytes, payloadBytes } from '../../src/core/size.js'
import { createEngine, type JsonObject } from '../../src/index.js'

const utf8 = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

const CHARS = [
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '\n',
  '\t',
  '\u0001',
  '\u001f',
  '\u007f',
  'é',
  '€',
  '😀',
  '\ud800',
  '\udc00',
  '/',
]

function randomString(next: () => number): string {
  let text = ''
  const length = Math.floor(next() * 90)
  for (let i = 0; i < length; i++) text += CHARS[Math.floor(next() * CHARS.length)]
  return text
}

function randomValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 3 ? 5 : 8))
  switch (kind) {
    case 0:
      return randomString(next)
    case 1:
      return [0, -0, 1.5, -3e-7, 1e21, 123456789, Number.NaN, Number.POSITIVE_INFINITY][
        Math.floor(next() * 8)
      ]
    case 2:
      return next() < 0.5
    case 3:
      return null
    case 4:
      return randomString(next).repeat(3)
    case 5:
      return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1))
    default: {
      const object: Record<string, unknown> = {}
      const keys = Math.floor(next() * 5)
      for (let i = 0; i < keys; i++) object[randomString(next)] = randomValue(next, depth + 1)
      if (next() < 0.1) object.skipped = undefined
      return object
    }
  }
}

describe('payload size', () => {
  it('equals the UTF-8 length of JSON.stringify over random values', () => {
    let state = 7
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648
      return state / 2147483648
    }
    for (let i = 0; i < 2000; i++) {
      const payload = { value: randomValue(next, 0) } as JsonObject
      expect(payloadBytes(payload, 0), JSON.stringify(payload)).toBe(utf8(payload))
    }
  })

  it('counts long strings (the word-at-a-time path) exactly, whatever they hold', () => {
    let state = 11
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648
      return state / 2147483648
    }
    for (let i = 0; i < 60; i++) {
      const length = 4096 + Math.floor(next() * 5000)
      let text = ''
      const wellFormed = CHARS.filter((c) => c !== '\ud800' && c !== '\udc00')
      const pool = i % 3 === 0 ? ['a', 'b', ' ', '"'] : i % 3 === 1 ? wellFormed : CHARS
      while (text.length < length) text += pool[Math.floor(next() * pool.length)]
      const payload = { text }
      expect(payloadBytes(payload, 0), `case ${i}`).toBe(utf8(payload))
    }
  })

  it('handles holes, undefined, functions, toJSON, long strings and deep nesting like JSON.stringify', () => {
    let deep: unknown = 'bottom'
    for (let i = 0; i < 100; i++) deep = { d: [deep] }
    const cases: unknown[] = [
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is being measured
      { list: [1, , undefined, () => 1, 'x'] },
      { when: new Date(0), fn: () => 1, u: undefined, text: 'é€😀\ud800"' },
      { big: `${'plain text '.repeat(20_000)}é` },
      { big: 'plain text '.repeat(20_000) },
      { deep },
    ]
    for (const payload of cases) expect(payloadBytes(payload as JsonObject, 0)).toBe(utf8(payload))
  })

  it('says Infinity for what cannot be serialised, and remembers what it measured', () => {
    const cyclic: Record<string, unknown> = {}
    let at = cyclic
    for (let i = 0; i < 70; i++) {
      const inner: Record<string, unknown> = {}
      at.next = inner
      at = inner
    }
    at.back = cyclic
    expect(payloadBytes(cyclic as JsonObject, 0)).toBe(Number.POSITIVE_INFINITY)
    expect(payloadBytes({ n: 10n } as unknown as JsonObject, 0)).toBe(Number.POSITIVE_INFINITY)
    const payload = { tool: { name: 'x', input: {} } }
    expect(knownPayloadBytes(payload)).toBeUndefined()
    expect(payloadBytes(payload, 0)).toBe(utf8(payload))
    expect(knownPayloadBytes(payload)).toBe(utf8(payload))
    // Far under the cap, characters are counted: exact for ASCII, under for the rest.
    const accented = { text: 'é"\n' }
    expect(payloadBytes(accented, 1_000_000)).toBe(JSON.stringify({ text: 'xxx' }).length)
    expect(payloadBytes(accented, 60)).toBe(utf8(accented))
  })

  it('lets the engine deny a payload one byte over the cap and allow one at the cap', async () => {
    const engine = createEngine({
      hooks: [{ name: 'any', event: 'tool.pre', handler: { type: 'allow' } }],
      limits: { maxPayloadBytes: 1000 },
    })
    const payload = (text: string) => ({ tool: { name: 'w', input: { text } } })
    const fixed = utf8(payload(''))
    // "é" is two bytes in UTF-8: the cap counts bytes, not characters.
    const pad = (1000 - fixed) % 2 === 1 ? 'a' : ''
    const atCap = payload(`${pad}${'é'.repeat(Math.floor((1000 - fixed) / 2))}`)
    expect(utf8(atCap)).toBe(1000)
    expect((await engine.dispatch({ event: 'tool.pre', payload: atCap })).decision).toBe('allow')
    const over = payload(`${pad}${'é'.repeat(Math.floor((1000 - fixed) / 2))}a`)
    const denied = await engine.dispatch({ event: 'tool.pre', payload: over })
    expect(denied).toMatchObject({ decision: 'deny', reasonCode: ['payload-too-large'] })
    expect(denied.reason).toContain('1001 bytes')
    // Changed in place after a dispatch: counted again, not taken from memory.
    const reused = payload('a')
    expect((await engine.dispatch({ event: 'tool.pre', payload: reused })).decision).toBe('allow')
    reused.tool.input.text = 'a'.repeat(2000)
    expect((await engine.dispatch({ event: 'tool.pre', payload: reused })).decision).toBe('deny')
  })
})
