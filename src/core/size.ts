// Payload size checks: the UTF-8 size of a payload as JSON, counted by walking the value
// (no serialisation: a 1 MB tool input is not copied to be measured). A first walk counts
// characters, which settles every payload under a sixth of the cap; only bigger ones have
// their strings counted byte by byte. The result is remembered per payload object, so that
// metrics can report it without counting again.

import type { JsonObject } from './events.js'

/** Deeper than this, the walk hands over to JSON.stringify (which also catches cycles). */
const MAX_WALK_DEPTH = 64

/** Sizes measured, by payload object (payloads are not changed after dispatch: a modify makes a new one). */
const measured = new WeakMap<object, number>()

/**
 * The payload's size as JSON, for the cap: its exact UTF-8 size when that could come near
 * `cap` (within a factor 6), else its size in characters, which is exact for ASCII and at
 * most 6 times under. Infinity when it cannot be serialised (a cycle, a BigInt). Always
 * counted afresh (a caller may have changed the object since), then remembered for
 * {@link knownPayloadBytes}.
 */
export function payloadBytes(payload: JsonObject, cap: number): number {
  let size = valueBytes(payload, 0, charCount)
  if (size >= 0 && size * 6 > cap) size = valueBytes(payload, 0, stringBytes)
  if (size < 0) size = stringifiedBytes(payload)
  measured.set(payload, size)
  return size
}

/** The size {@link payloadBytes} measured last for this payload object, if it did (for reports). */
export function knownPayloadBytes(payload: object): number | undefined {
  return measured.get(payload)
}

/** Measures by serialising: for what the walk does not follow (deep values, toJSON). */
function stringifiedBytes(value: unknown): number {
  let json: string | undefined
  try {
    json = JSON.stringify(value)
  } catch {
    return Number.POSITIVE_INFINITY
  }
  return json === undefined ? 0 : utf8Bytes(json)
}

/** UTF-8 bytes of a value's JSON, or -1 when the walk should hand over to JSON.stringify. */
function valueBytes(value: unknown, depth: number, text: (s: string) => number): number {
  switch (typeof value) {
    case 'string':
      return text(value)
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4
    case 'boolean':
      return value ? 4 : 5
    case 'object':
      break
    default:
      return -1
  }
  if (value === null) return 4
  if (depth >= MAX_WALK_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return -1
  if (Array.isArray(value)) {
    let total = 2 + Math.max(0, value.length - 1)
    for (const item of value) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        total += 4
        continue
      }
      const size = valueBytes(item, depth + 1, text)
      if (size < 0) return -1
      total += size
    }
    return total
  }
  let total = 2
  let entries = 0
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const item = (value as Record<string, unknown>)[key]
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
    const size = valueBytes(item, depth + 1, text)
    if (size < 0) return -1
    total += text(key) + 1 + size
    entries++
  }
  return total + Math.max(0, entries - 1)
}

/** A string's length plus its quotes: its JSON size in characters, escapes aside. */
function charCount(text: string): number {
  return text.length + 2
}

/** Printable ASCII other than `"` and `\`: one byte each in JSON. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/** UTF-8 bytes of a string as a JSON string literal, quotes included. */
function stringBytes(text: string): number {
  const length = text.length
  if (length < 64 ? PLAIN.test(text) : plainLong(text)) return length + 2
  if (length >= LONG && length <= MAX_SCRATCH / 3 && isWellFormed(text)) return longStringBytes(text)
  let total = 2
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) total += ASCII_BYTES[code] as number
    else if (code < 0x800) total += 2
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        total += 4
        i++
      } else total += 6
    } else if (code >= 0xdc00 && code <= 0xdfff) total += 6
    else total += 3
  }
  return total
}

/** Bytes each ASCII character takes in a JSON string: 1, 2 when escaped by a letter, 6 as \\u00XX. */
const ASCII_BYTES = Uint8Array.from({ length: 128 }, (_, code) => {
  if (code === 0x22 || code === 0x5c) return 2
  if (code >= 0x20) return 1
  return code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6
})

/** From this length on, strings are counted through their UTF-8 encoding, a word at a time. */
const LONG = 4096
/** The largest scratch buffer kept for that (bytes). */
const MAX_SCRATCH = 12 * 1024 * 1024

const encoder = new TextEncoder()
let scratch = new Uint8Array(0)
let words = new Uint32Array(0)

/** Extra bytes each byte of UTF-8 takes once escaped in a JSON string. */
const ESCAPE_EXTRA = Uint8Array.from({ length: 256 }, (_, byte) => {
  if (byte === 0x22 || byte === 0x5c) return 1
  if (byte >= 0x20) return 0
  return byte === 8 || byte === 9 || byte === 10 || byte === 12 || byte === 13 ? 1 : 5
})

/**
 * The JSON size of a long well-formed string: the encoder gives its UTF-8 bytes natively,
 * then four bytes at a time are tested for any that needs an escape (below 0x20, `"` or
 * `\\`, found with word arithmetic); only words that may hold one are looked at byte by byte.
 */
function longStringBytes(text: string): number {
  const needed = (text.length * 3 + 3) & ~3
  if (scratch.length < needed) {
    scratch = new Uint8Array(needed)
    words = new Uint32Array(scratch.buffer)
  }
  const written = encoder.encodeInto(text, scratch).written
  // Pad the last word with a letter, which needs no escape.
  for (let i = written; i < ((written + 3) & ~3); i++) scratch[i] = 0x41
  let extra = 0
  const count = (written + 3) >>> 2
  for (let i = 0; i < count; i++) {
    const word = words[i] as number
    const control = (word - 0x20202020) & ~word & 0x80808080
    const quote = word ^ 0x22222222
    const backslash = word ^ 0x5c5c5c5c
    const hit =
      control |
      ((quote - 0x01010101) & ~quote & 0x80808080) |
      ((backslash - 0x01010101) & ~backslash & 0x80808080)
    if (hit !== 0) {
      const at = i << 2
      extra +=
        (ESCAPE_EXTRA[scratch[at] as number] as number) +
        (ESCAPE_EXTRA[scratch[at + 1] as number] as number) +
        (ESCAPE_EXTRA[scratch[at + 2] as number] as number) +
        (ESCAPE_EXTRA[scratch[at + 3] as number] as number)
    }
  }
  return written + 2 + extra
}

/** Whether a string has no lone surrogate (which the encoder would replace, and JSON escapes). */
function isWellFormed(text: string): boolean {
  const check = (text as { isWellFormed?: () => boolean }).isWellFormed
  return check ? check.call(text) : false
}

/** UTF-8 bytes of a text as it is (JSON.stringify's output: lone surrogates already escaped). */
function utf8Bytes(text: string): number {
  let total = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) total += 1
    else if (code >= 0xd800 && code <= 0xdbff) {
      total += 2 // a pair: 4 bytes for its 2 units
      i++
    } else total += 2
  }
  return total
}

/** Whether a long string is plain, without running a regex over all of it when it is not. */
function plainLong(text: string): boolean {
  // A look at the start settles most strings that need the slow count.
  return PLAIN.test(text.slice(0, 64)) && PLAIN.test(text)
}
