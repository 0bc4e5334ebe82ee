// HMAC-SHA256 under a prepared key (the session keys' MAC): the same bytes as node:crypto's
// HMAC for keys shorter than, equal to and longer than a block, for empty, non-ASCII and
// long messages (past the kept scratch buffer), RFC 4231's vectors, and a constant-time
// check that refuses any other value.

import { createHmac, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { prepareHmacSha256 } from '../../src/protocols/acs/index.js'

const reference = (key: Uint8Array, input: string) => createHmac('sha256', key).update(input).digest('base64')

describe('prepared HMAC-SHA256', () => {
  it('computes RFC 4231 test cases 1, 2 and 6 (a key longer than a block)', () => {
    const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex')
    expect(hex(prepareHmacSha256(Buffer.alloc(20, 0x0b)).base64('Hi There'))).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    )
    expect(hex(prepareHmacSha256(Buffer.from('Jefe')).base64('what do ya want for nothing?'))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    )
    expect(
      hex(
        prepareHmacSha256(Buffer.alloc(131, 0xaa)).base64(
          'Test Using Larger Than Block-Size Key - Hash Key First',
        ),
      ),
    ).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54')
  })

  it('matches node:crypto for every key length and message kind, one key after another', () => {
    const messages = [
      '',
      'a',
      '{"é":"€ 𝄞"}',
      'x'.repeat(63),
      'y'.repeat(70_000),
      'z'.repeat(200),
      '\u0000\u00ff',
    ]
    for (const length of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(length)
      const mac = prepareHmacSha256(key)
      for (const message of messages) expect(mac.base64(message)).toBe(reference(key, message))
    }
  })

  it('accepts exactly the MAC: a changed message, key or value is refused', () => {
    const key = randomBytes(32)
    const mac = prepareHmacSha256(key)
    const value = reference(key, 'the signed input')
    expect(mac.matches('the signed input', value)).toBe(true)
    expect(mac.matches('the signed input!', value)).toBe(false)
    expect(prepareHmacSha256(randomBytes(32)).matches('the signed input', value)).toBe(false)
    const flipped = Buffer.from(value, 'base64')
    flipped[0] = (flipped[0] as number) ^ 1
    expect(mac.matches('the signed input', flipped.toString('base64'))).toBe(false)
    expect(mac.matches('the signed input', value.slice(0, 20))).toBe(false)
    expect(mac.matches('the signed input', '')).toBe(false)
  })
})
