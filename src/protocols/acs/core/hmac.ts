// HMAC-SHA256 (RFC 2104) under a key prepared once: the key's inner and outer padded
// blocks are computed when the key is first used, and each message is then two one-shot
// SHA-256 calls over a reused buffer, instead of an HMAC object (and its key set-up) per
// message. The result is the same as node:crypto's createHmac; the comparison of a given
// signature stays in constant time.

import { hash, timingSafeEqual } from 'node:crypto'

/** SHA-256's block size: keys are padded (or first hashed) to it. */
const BLOCK = 64
/** Bytes of a SHA-256 digest. */
const DIGEST = 32
/** The scratch buffer kept between messages; a longer message gets a buffer of its own. */
const KEPT_SCRATCH = 64 * 1024

/** HMAC-SHA256 under one key. */
export interface HmacSha256Key {
  /** The MAC of a string's UTF-8 bytes, base64. */
  base64(input: string): string
  /** Whether `value` (base64) is the MAC of `input`, compared in constant time. */
  matches(input: string, value: string): boolean
}

let scratch = Buffer.allocUnsafe(4096)

/** The key's block XOR a pad byte (a key longer than a block is hashed first). */
function padded(key: Uint8Array, pad: number): Buffer {
  const block = Buffer.alloc(BLOCK, pad)
  const bytes = key.length > BLOCK ? hash('sha256', key, 'buffer') : key
  for (let i = 0; i < bytes.length; i++) block[i] = (block[i] as number) ^ (bytes[i] as number)
  return block
}

/**
 * Prepares HMAC-SHA256 under `key`.
 * @returns the MAC and its constant-time check, each as node:crypto's HMAC computes it.
 */
export function prepareHmacSha256(key: Uint8Array): HmacSha256Key {
  const inner = padded(key, 0x36)
  const outer = Buffer.allocUnsafe(BLOCK + DIGEST)
  padded(key, 0x5c).copy(outer, 0)

  /** Writes the inner digest after the outer pad; `outer` then holds the outer hash's input. */
  function innerInto(input: string): Buffer {
    const needed = BLOCK + Buffer.byteLength(input, 'utf8')
    let buffer = scratch
    if (needed > buffer.length) {
      buffer = Buffer.allocUnsafe(needed)
      if (needed <= KEPT_SCRATCH) scratch = buffer
    }
    inner.copy(buffer, 0)
    const written = buffer.write(input, BLOCK, 'utf8')
    outer.write(hash('sha256', buffer.subarray(0, BLOCK + written), 'hex'), BLOCK, 'hex')
    return outer
  }

  return {
    base64: (input) => hash('sha256', innerInto(input), 'base64'),
    matches(input, value) {
      const expected = hash('sha256', innerInto(input), 'buffer') as unknown as Buffer
      const given = Buffer.from(value, 'base64')
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
  }
}
