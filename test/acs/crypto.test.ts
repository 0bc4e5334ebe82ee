// Spec §10 and §8.2: the canonical JSON, HKDF and HMAC underneath ACS signatures and the
// session chain, checked against published vectors (RFC 8785, RFC 5869, RFC 4231).

import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  canonicalJson,
  deriveSessionKey,
  entryHash,
  hkdfSha256,
  hmacMatches,
  hmacSha256,
  signedInput,
  signMessage,
} from '../../src/protocols/acs/index.js'

const hex = (text: string) => Buffer.from(text, 'hex')

describe('RFC 8785 canonical JSON (§10 signed input, §8.2 chain)', () => {
  it('RFC 8785 §3.2.2 example: numbers, escapes and literals', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    )
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    )
  })

  it('RFC 8785 §3.2.3 example: properties sorted by UTF-16 code units', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    )
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']
    const expected = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k])}`).join(',')}}`
    expect(canonicalJson(input)).toBe(expected)
  })

  it('refuses values with no JSON form instead of signing something else', () => {
    expect(() => canonicalJson(undefined)).toThrow(/canonical/)
  })
})

describe('RFC 5869 HKDF-SHA256 (§10 per-session key)', () => {
  it('test case 1', () => {
    const okm = hkdfSha256(
      hex('0b'.repeat(22)),
      hex('000102030405060708090a0b0c'),
      hex('f0f1f2f3f4f5f6f7f8f9'),
      42,
    )
    expect(okm.toString('hex')).toBe(
      '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
    )
  })

  it('derives a different key per session from the same material', () => {
    const material = Buffer.from('secret')
    expect(deriveSessionKey(material, 's1').equals(deriveSessionKey(material, 's2'))).toBe(false)
    expect(deriveSessionKey(material, 's1').equals(deriveSessionKey(material, 's1'))).toBe(true)
  })
})

describe('RFC 4231 HMAC-SHA256 (§10.1 HMAC-SHA256)', () => {
  it('test case 1', () => {
    expect(hmacSha256(hex('0b'.repeat(20)), 'Hi There').toString('hex')).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    )
  })
  it('test case 2', () => {
    expect(hmacSha256(Buffer.from('Jefe'), 'what do ya want for nothing?').toString('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    )
  })
})

describe('§10 signed input covers the whole envelope except signature', () => {
  const key = Buffer.alloc(32, 7)
  const message = () => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'steps/toolCallRequest',
    params: { metadata: { session_id: 's', agent_id: 'a' }, payload: { b: 1, a: 2 } },
  })

  it('is the same whatever the key order, and ignores the signature field', () => {
    const m = message()
    signMessage(m, 'params', key, 'k')
    const reordered = {
      params: { payload: { a: 2, b: 1 }, metadata: { agent_id: 'a', session_id: 's' } },
      method: m.method,
      id: 1,
      jsonrpc: '2.0',
    }
    const value = (m.params as unknown as { signature: { value: string } }).signature.value
    expect(hmacMatches(key, signedInput(reordered, 'params'), value)).toBe(true)
  })

  it('breaks when the method or session id is lifted into another envelope', () => {
    const m = message()
    signMessage(m, 'params', key, 'k')
    const value = (m.params as unknown as { signature: { value: string } }).signature.value
    expect(hmacMatches(key, signedInput({ ...m, method: 'steps/toolCallResult' }, 'params'), value)).toBe(
      false,
    )
    const moved = { ...m, params: { ...m.params, metadata: { session_id: 'other', agent_id: 'a' } } }
    expect(hmacMatches(key, signedInput(moved, 'params'), value)).toBe(false)
  })
})

describe('§8.2 chain hashing', () => {
  it('hashes the first entry alone and later ones with the raw previous hash bytes', () => {
    const first = {
      entry_id: 'e1',
      step_id: 's1',
      step_type: 'steps/sessionStart',
      previous_hash: null,
      entry_hash: 'x',
    }
    const h1 = entryHash(first, null)
    expect(h1).toBe(
      createHash('sha256')
        .update('{"entry_id":"e1","step_id":"s1","step_type":"steps/sessionStart"}')
        .digest('hex'),
    )
    const second = { entry_id: 'e2', step_id: 's2', step_type: 'steps/turnStart' }
    const expected = createHash('sha256')
      .update(
        Buffer.concat([
          Buffer.from('{"entry_id":"e2","step_id":"s2","step_type":"steps/turnStart"}'),
          Buffer.from(h1, 'hex'),
        ]),
      )
      .digest('hex')
    expect(entryHash({ ...second, previous_hash: h1 }, h1)).toBe(expected)
  })
})
