// ACS integrity primitives: RFC 8785 canonical JSON (./jcs.ts), the per-session HMAC key
// derived by HKDF-SHA256, envelope signing and verification (§10), and the session chain's
// entry hash (§8.2). Pure functions over node:crypto; no I/O. Signed inputs are composed
// from the canonical form of the params or result, computed once per message.

import { createHmac, hash, hkdfSync, timingSafeEqual } from 'node:crypto'
import { jcs, jcsWithout, LONE_SURROGATE, quote } from './jcs.js'

/** The only signature algorithm Warden signs and verifies (the ACS-Core baseline). */
export const HMAC_ALGORITHM = 'HMAC-SHA256'

/**
 * How the per-session HMAC key is derived from the deployment's key material (§10 leaves the
 * HKDF parameters open). `session-info` (the default) is the reference implementation's:
 * no salt, `info` = the UTF-8 session id. `session-salt` is Warden's earlier derivation:
 * salt = the UTF-8 session id, `info` = {@link HKDF_INFO}; a Guardian configured with it
 * names it in the ServerHello's `key_derivation`.
 */
export type KeyDerivation = 'session-info' | 'session-salt'

/** The key derivation used unless configured otherwise. */
export const DEFAULT_KEY_DERIVATION: KeyDerivation = 'session-info'

/** HKDF `info` of the `session-salt` derivation (the salt is the UTF-8 session id). */
export const HKDF_INFO = 'acs/v0.1 HMAC-SHA256 session key'

/**
 * The RFC 8785 (JCS) canonical form of a JSON value.
 * @throws Error when the value has no JSON form (undefined, a function, a non-finite number).
 */
export function canonicalJson(value: unknown): string {
  return jcs(value)
}

/** Lowercase-hex SHA-256 of a string's UTF-8 bytes (one-shot: no Hash object per call). */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex')
}

/**
 * HKDF-SHA256 (RFC 5869).
 * @returns `length` bytes of output keying material.
 */
export function hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, length))
}

/**
 * The per-session HMAC key, 32 bytes of HKDF-SHA256 over the key material: by default
 * (`session-info`) with an empty salt and `info` = the UTF-8 session id; with `session-salt`,
 * salt = the UTF-8 session id and `info` = {@link HKDF_INFO}.
 */
export function deriveSessionKey(
  material: Uint8Array,
  sessionId: string,
  derivation: KeyDerivation = DEFAULT_KEY_DERIVATION,
): Buffer {
  const id = Buffer.from(sessionId, 'utf8')
  return derivation === 'session-info'
    ? hkdfSha256(material, Buffer.alloc(0), id, 32)
    : hkdfSha256(material, id, Buffer.from(HKDF_INFO, 'utf8'), 32)
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
 * The canonical form of a message whose `holder` member's canonical form is already known:
 * the other members are canonicalized (they are small) and the known text is put in place.
 */
export function composedCanonical(
  message: Record<string, unknown>,
  holder: string,
  canonicalHolder: string,
): string {
  const around = canonicalAround(message, holder)
  return around ? `${around[0]}${canonicalHolder}${around[1]}` : jcs(message)
}

/**
 * The canonical form of a message before and after its `holder` member's value, or
 * undefined when the message has no such member.
 */
function canonicalAround(message: Record<string, unknown>, holder: string): [string, string] | undefined {
  let before = '{'
  let after: string | undefined
  for (const key of Object.keys(message).sort()) {
    const value = message[key]
    if (value === undefined || typeof value === 'symbol') continue
    if (key === holder) {
      before += `${before.length > 1 ? ',' : ''}${jcs(key)}:`
      after = ''
    } else if (after === undefined) before += `${before.length > 1 ? ',' : ''}${jcs(key)}:${jcs(value)}`
    else after += `,${jcs(key)}:${jcs(value)}`
  }
  return after === undefined ? undefined : [before, `${after}}`]
}

/**
 * The signed input of an envelope: JCS of the whole JSON-RPC message with the `signature`
 * inside `holder` (the request's params or the response's result) removed.
 */
export function signedInput(message: Record<string, unknown>, holder: 'params' | 'result'): string {
  const inner = message[holder]
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return canonicalJson(message)
  return composedCanonical(message, holder, jcsWithout(inner as Record<string, unknown>, 'signature'))
}

/**
 * The signed input of a request from the canonical form of its params without signature
 * (which the request hash needs too), so the params are canonicalized once.
 */
export function requestSignedInput(message: Record<string, unknown>, canonicalParams: string): string {
  return composedCanonical(message, 'params', canonicalParams)
}

/** Signs a message in place: sets `message[holder].signature`. */
export function signMessage(
  message: Record<string, unknown>,
  holder: 'params' | 'result',
  key: Uint8Array,
  keyId: string,
): void {
  signEnvelope(message, holder, key, keyId)
}

/**
 * Signs a message in place, as {@link signMessage}, and returns its JSON text, composed from
 * the canonical form just signed (the signature last in `holder`) rather than serialized
 * again.
 */
export function signEnvelope(
  message: Record<string, unknown>,
  holder: 'params' | 'result',
  key: Uint8Array,
  keyId: string,
): string {
  return signEnvelopeWith(message, holder, {
    id: keyId,
    algorithm: HMAC_ALGORITHM,
    sign: (input) => hmacSha256(key, input).toString('base64'),
  })
}

/** Signs canonical inputs under an algorithm: the HMAC baseline or an ACS-Crypto key. */
export interface EnvelopeSigner {
  id: string
  algorithm: string
  /** @returns the base64 signature value of the input. */
  sign(input: string): string
}

/**
 * Signs a message in place with any signer, as {@link signEnvelope} does with HMAC, and
 * returns its JSON text composed from the canonical form just signed.
 */
export function signEnvelopeWith(
  message: Record<string, unknown>,
  holder: 'params' | 'result',
  signer: EnvelopeSigner,
): string {
  const inner = message[holder] as Record<string, unknown>
  const canonicalInner = jcsWithout(inner, 'signature')
  const [before, after] = canonicalAround(message, holder) ?? ['', '']
  const value = signer.sign(`${before}${canonicalInner}${after}`)
  const signature: AcsSignature = { algorithm: signer.algorithm, value, key_id: signer.id }
  inner.signature = signature
  const comma = canonicalInner === '{}' ? '' : ','
  return `${before}${canonicalInner.slice(0, -1)}${comma}"signature":${jcs(signature)}}${after}`
}

/** Whether `value` (base64) is the HMAC of `input` under `key`, compared in constant time. */
export function hmacMatches(key: Uint8Array, input: string, value: string): boolean {
  const expected = hmacSha256(key, input)
  const given = Buffer.from(value, 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The buffer an entry's hash input is written to (entries are small; a larger one gets its own). */
const ENTRY_SCRATCH = Buffer.allocUnsafe(16 * 1024)

/**
 * The chain hash of a ContextEntry (§8.2): lowercase-hex SHA-256 of JCS(entry without
 * `entry_hash` and `previous_hash`) followed by the raw 32 bytes of the previous hash.
 */
export function entryHash(entry: Record<string, unknown>, previousHash: string | null): string {
  const text = stepEntryCanonical(entry) ?? jcsWithout(entry, 'entry_hash', 'previous_hash')
  if (previousHash === null) return sha256Hex(text)
  const needed = Buffer.byteLength(text, 'utf8') + Math.ceil(previousHash.length / 2)
  const input = needed <= ENTRY_SCRATCH.length ? ENTRY_SCRATCH : Buffer.allocUnsafe(needed)
  const length = input.write(text, 0, 'utf8')
  const end = length + input.write(previousHash, length, 'hex')
  return hash('sha256', input.subarray(0, end), 'hex')
}

/** The hashed members of a step's chain entry, in canonical (sorted) order. */
const STEP_ENTRY_MEMBERS = [
  'decision',
  'decision_id',
  'entry_id',
  'recorded_decision',
  'request_hash',
  'step_id',
  'step_type',
  'timestamp',
] as const

/**
 * The canonical form of a step's chain entry without its hashes, written member by member
 * (no key sort), or undefined when the entry has other members or a non-string value (then
 * the general canonicalization applies; both give the same text).
 */
function stepEntryCanonical(entry: Record<string, unknown>): string | undefined {
  if (Object.keys(entry).length !== STEP_ENTRY_MEMBERS.length + 2) return undefined
  if (!('entry_hash' in entry) || !('previous_hash' in entry)) return undefined
  let out = '{'
  for (const member of STEP_ENTRY_MEMBERS) {
    const value = entry[member]
    const text = typeof value === 'string' ? quote(value) : undefined
    if (text === undefined) return undefined
    out += `${out.length === 1 ? '' : ','}"${member}":${text}`
  }
  return `${out}}`
}

/**
 * JCS of an object whose values are all strings, or undefined otherwise (or when one holds
 * a lone surrogate, which has no canonical form).
 */
export function flatCanonical(object: Record<string, unknown>): string | undefined {
  for (const value of Object.values(object)) {
    if (typeof value !== 'string' || LONE_SURROGATE.test(value)) return undefined
  }
  return jcs(object)
}
