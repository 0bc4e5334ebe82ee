// ACS integrity primitives: RFC 8785 canonical JSON (the `canonicalize` package), the
// per-session HMAC key derived by HKDF-SHA256, envelope signing and verification (§10), and
// the session chain's entry hash (§8.2). Pure functions over node:crypto; no I/O.

import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'
import canonicalize from 'canonicalize'

/** The only signature algorithm Warden signs and verifies (the ACS-Core baseline). */
export const HMAC_ALGORITHM = 'HMAC-SHA256'

/** HKDF `info` for the per-session HMAC key; the salt is the UTF-8 session id. */
export const HKDF_INFO = 'acs/v0.1 HMAC-SHA256 session key'

/**
 * The RFC 8785 (JCS) canonical form of a JSON value.
 * @throws Error when the value has no JSON form (undefined, a function, a non-finite number).
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value)
  if (text === undefined) throw new Error('the value has no canonical JSON form')
  return text
}

/** Lowercase-hex SHA-256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/**
 * HKDF-SHA256 (RFC 5869).
 * @returns `length` bytes of output keying material.
 */
export function hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, length))
}

/** The per-session HMAC key: HKDF-SHA256(ikm = key material, salt = session id, info = HKDF_INFO). */
export function deriveSessionKey(material: Uint8Array, sessionId: string): Buffer {
  return hkdfSha256(material, Buffer.from(sessionId, 'utf8'), Buffer.from(HKDF_INFO, 'utf8'), 32)
}

/** HMAC-SHA256 of a string's UTF-8 bytes (RFC 4231). */
export function hmacSha256(key: Uint8Array, data: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(data).digest()
}

/** An ACS signature object (§10). */
export interface AcsSignature {
  algorithm: string
  value: string
  key_id: string
}

/**
 * The signed input of an envelope: JCS of the whole JSON-RPC message with the `signature`
 * inside `holder` (the request's params or the response's result) removed.
 */
export function signedInput(message: Record<string, unknown>, holder: 'params' | 'result'): string {
  const inner = message[holder]
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return canonicalJson(message)
  const { signature: _omit, ...rest } = inner as Record<string, unknown>
  return canonicalJson({ ...message, [holder]: rest })
}

/**
 * The signed input of a request from the canonical form of its params without signature,
 * when the message holds exactly `id`, `jsonrpc`, `method` and `params` (the usual case):
 * JCS sorts those keys in that order, so the form is composed rather than recomputed.
 */
export function requestSignedInput(message: Record<string, unknown>, canonicalParams: string): string {
  const keys = Object.keys(message)
  if (
    keys.length !== 4 ||
    !('id' in message && 'jsonrpc' in message && 'method' in message && 'params' in message)
  ) {
    return signedInput(message, 'params')
  }
  return `{"id":${canonicalJson(message.id)},"jsonrpc":${canonicalJson(message.jsonrpc)},"method":${canonicalJson(message.method)},"params":${canonicalParams}}`
}

/** Signs a message in place: sets `message[holder].signature`. */
export function signMessage(
  message: Record<string, unknown>,
  holder: 'params' | 'result',
  key: Uint8Array,
  keyId: string,
): void {
  const value = hmacSha256(key, signedInput(message, holder)).toString('base64')
  const inner = message[holder] as Record<string, unknown>
  inner.signature = { algorithm: HMAC_ALGORITHM, value, key_id: keyId } satisfies AcsSignature
}

/** Whether `value` (base64) is the HMAC of `input` under `key`, compared in constant time. */
export function hmacMatches(key: Uint8Array, input: string, value: string): boolean {
  const expected = hmacSha256(key, input)
  const given = Buffer.from(value, 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/**
 * The chain hash of a ContextEntry (§8.2): lowercase-hex SHA-256 of JCS(entry without
 * `entry_hash` and `previous_hash`) followed by the raw 32 bytes of the previous hash.
 */
export function entryHash(entry: Record<string, unknown>, previousHash: string | null): string {
  const { entry_hash: _h, previous_hash: _p, ...content } = entry
  const hash = createHash('sha256').update(flatCanonical(content) ?? canonicalJson(content), 'utf8')
  if (previousHash !== null) hash.update(Buffer.from(previousHash, 'hex'))
  return hash.digest('hex')
}

/**
 * JCS of an object whose values are all strings, or undefined otherwise. RFC 8785 sorts
 * keys by UTF-16 code units (JavaScript's default sort) and serializes strings exactly as
 * JSON.stringify does, so this equals `canonicalJson` for such objects, without recursion.
 */
export function flatCanonical(object: Record<string, unknown>): string | undefined {
  const keys = Object.keys(object).sort()
  let out = '{'
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    const value = object[key]
    if (typeof value !== 'string' || LONE_SURROGATE.test(value)) return undefined
    out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`
  }
  return `${out}}`
}

/** A UTF-16 surrogate without its pair, which has no canonical form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** An envelope's params without their `signature` (the §8.1 `request_hash` input). */
export function withoutSignature(params: Record<string, unknown>): Record<string, unknown> {
  const { signature: _omit, ...rest } = params
  return rest
}
