// The fast RFC 8785 walk behind ACS signatures and the chain (src/protocols/acs/jcs.ts) gives
// the `canonicalize` package's text and errors on every value, and the signed inputs and
// response texts composed from it equal the canonical forms computed whole.

import { randomUUID } from 'node:crypto'
import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import {
  acsRequest,
  canonicalJson,
  clientHello,
  composedCanonical,
  createAcsService,
  hmacMatches,
  jcs,
  jcsWithout,
  responseSigned,
  settingsWith,
  signEnvelope,
  signedInput,
} from '../../src/protocols/acs/index.js'
import { KEY } from './helper.js'

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PIECES = ['a', 'Z', '1', ' ', '"', '\\', '/', '\n', '\u0000', '\u001f', '\u007f', 'é', '€', '\u2028']
const NUMBERS = [0, -0, 1, -1, 0.1, 4.5, 1e21, 1e-7, 333333333.3333333, 2 ** 53, -1.5e-300, 5e-324]

function text(next: () => number): string {
  let out = ''
  const length = Math.floor(next() * 8)
  for (let i = 0; i < length; i++) {
    const r = next()
    out += r < 0.05 ? '\ud83d\ude00' : (PIECES[Math.floor(next() * PIECES.length)] as string)
  }
  return out
}

function value(next: () => number, depth: number): unknown {
  const r = next()
  if (depth > 3 || r < 0.3) {
    const kind = Math.floor(next() * 5)
    if (kind === 0) return text(next)
    if (kind === 1) return NUMBERS[Math.floor(next() * NUMBERS.length)]
    if (kind === 2) return next() < 0.5
    if (kind === 3) return null
    return next() * 1e6 - 5e5
  }
  if (r < 0.55) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1))
  const object: Record<string, unknown> = {}
  for (let i = Math.floor(next() * 5); i > 0; i--) object[text(next)] = value(next, depth + 1)
  return object
}

describe('the RFC 8785 walk', () => {
  it('writes the canonicalize package text for 2000 generated JSON values', () => {
    const next = random(8785)
    for (let i = 0; i < 2000; i++) {
      const v = value(next, 0)
      expect(jcs(v), JSON.stringify(v)).toBe(canonicalize(v))
    }
  })

  it('agrees on the values it hands over: undefined members, toJSON, surrogates', () => {
    const cases: unknown[] = [
      { a: undefined, b: [undefined, 1], c: new Date(0) },
      { emoji: '\ud83d\ude00', nested: { z: 1, a: [{ y: 2, b: 3 }] } },
      ['\u2028', '\u0007', 'tab\there'],
      { '\ud83d\ude00': 1, '\ufb33': 2, '\u20ac': 3, '\r': 4, '1': 5, '\u0080': 6 },
    ]
    for (const v of cases) expect(jcs(v)).toBe(canonicalize(v))
  })

  it('refuses what has no canonical form, as the package does', () => {
    for (const bad of [undefined, Number.NaN, Number.POSITIVE_INFINITY, { a: '\ud800' }, ['\udc00x']]) {
      expect(() => jcs(bad)).toThrow()
      expect(() => canonicalJson(bad)).toThrow()
    }
    expect(() => jcs({ '\ud800': 1 })).toThrow()
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(() => jcs(cycle)).toThrow()
  })

  it('leaves one member out without copying the object', () => {
    const params = { b: 1, signature: { value: 'x' }, a: { d: [1, 2], c: 'é' } }
    const { signature: _s, ...rest } = params
    expect(jcsWithout(params, 'signature')).toBe(canonicalize(rest))
    expect(jcsWithout({ d: new Date(0), signature: 1 }, 'signature')).toBe(canonicalize({ d: new Date(0) }))
    expect(() => jcsWithout({ s: '\ud800', signature: 1 }, 'signature')).toThrow()
  })
})

describe('signed inputs composed from the canonical params or result', () => {
  const key = Buffer.alloc(32, 9)

  it('equal the whole message canonicalized', () => {
    const message = {
      method: 'steps/x',
      params: { z: 1, signature: { v: 1 }, a: 'b' },
      jsonrpc: '2.0',
      id: 7,
    }
    const { signature: _s, ...params } = message.params
    expect(signedInput(message, 'params')).toBe(canonicalize({ ...message, params }))
    expect(composedCanonical(message, 'params', jcs(params))).toBe(canonicalize({ ...message, params }))
  })

  it('a response signed by signEnvelope verifies, and its text is the response as JSON', () => {
    const response: JsonObject = {
      jsonrpc: '2.0',
      id: 'r-1',
      result: { type: 'final', decision: 'allow', metadata: { evaluator: 'deterministic', n: 0.25 } },
    }
    const wire = signEnvelope(response, 'result', key, 'k1')
    expect(JSON.parse(wire)).toEqual(response)
    const signature = (response.result as JsonObject).signature as JsonObject
    expect(hmacMatches(key, signedInput(JSON.parse(wire), 'result'), String(signature.value))).toBe(true)
    const empty: JsonObject = { jsonrpc: '2.0', id: 1, result: {} }
    expect(JSON.parse(signEnvelope(empty, 'result', key, 'k1'))).toEqual(empty)
  })
})

describe('the service with its session key kept', () => {
  it('verifies every message, and replyText is the signed response as JSON', async () => {
    const engine = createEngine({ hooks: [] })
    const acs = createAcsService({ engine, settings: settingsWith({ keys: [{ ...KEY }] }) })
    const sessionId = randomUUID()
    await acs.handle(clientHello(sessionId, {}, { key: KEY }))
    const tool = { tool: { id: 'send_sms' }, arguments: { to: { value: '+1-555-0100' } } }
    const good = acsRequest('steps/toolCallRequest', tool, { sessionId, key: KEY, nonce: true })
    const reply = (await acs.handle(good)) as JsonObject
    expect(responseSigned(reply, KEY, sessionId)).toBe(true)
    const text = acs.replyText(reply)
    expect(JSON.parse(text)).toEqual(reply)
    expect(responseSigned(JSON.parse(text), KEY, sessionId)).toBe(true)
    const forged = structuredClone(
      acsRequest('steps/toolCallRequest', tool, { sessionId, key: KEY, nonce: true }),
    )
    ;((forged.params as JsonObject).payload as JsonObject).tool = { id: 'exec' }
    const refused = (await acs.handle(forged)) as JsonObject
    expect((refused.error as JsonObject).code).toBe(-32004)
    const again = (await acs.handle(good)) as JsonObject
    expect(again).toMatchObject({ error: { code: -32005 } })
    const batch = await acs.handle([acsRequest('steps/toolCallRequest', tool, { sessionId, key: KEY })])
    expect(JSON.parse(acs.replyText(batch))).toEqual(batch)
    await engine.close()
  })
})
