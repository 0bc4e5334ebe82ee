// Request signatures of the ACS Guardian (§10): the per-session HMAC keys, derived once per
// key and session and kept, and the check every signed method passes (hooks and
// handshake/hello alike): a current key_id, HMAC-SHA256 over the canonical envelope without
// its signature, compared in constant time. Refusals are SIGNATURE_INVALID (-32004).

import type { JsonObject } from '../../../core/index.js'
import {
  ACS_ERRORS,
  AcsError,
  deriveSessionKey,
  type EnvelopeSigner,
  HMAC_ALGORITHM,
  type HmacSha256Key,
  jcsWithout,
  prepareHmacSha256,
  requestSignedInput,
} from '../core/index.js'
import { isAsymmetric } from '../profiles/index.js'
import type { AcsKey, AcsSettings } from './settings.js'

/** Most per-session keys kept derived (HKDF costs more than the HMAC it keys). */
const MAX_SESSION_KEYS = 10_000

/** Session keys and request signature checks under one set of settings. */
export interface SignatureCheck {
  /** The session key under a key's material (derived once, oldest dropped first). */
  keyFor(key: AcsKey, sessionId: string): Buffer
  /**
   * Checks the signature of a request whose params without signature canonicalize to
   * `canonicalParams`. An unsigned request passes only when signatures are not required.
   * @returns whether the request carried a signature that verified.
   * @throws AcsError -32004 naming what is missing, malformed or does not verify.
   */
  verify(sessionId: string, message: JsonObject, canonicalParams: string): boolean
  /**
   * What signs a session's answers: the signing key of the negotiated algorithm; else (no
   * handshake, or HMAC negotiated) HMAC-SHA256 under the current shared key; else the first
   * signing key. Undefined for a Guardian without keys.
   */
  answerSigner(sessionId: string, algorithm: string | undefined): EnvelopeSigner | undefined
  /** Whether a message carries a signature that verifies (never throws). */
  signedAndValid(sessionId: string, message: JsonObject): boolean
}

/** The algorithms this Guardian verifies on requests: HMAC with keys, and its agent keys'. */
export function verifiedAlgorithms(settings: AcsSettings): string[] {
  const names = settings.keys.length > 0 || settings.agentKeys.length === 0 ? [HMAC_ALGORITHM] : []
  for (const key of settings.agentKeys) if (!names.includes(key.algorithm)) names.push(key.algorithm)
  return names
}

/** A session's key under one of the Guardian's keys, and what it does. */
interface SessionKey {
  key: Buffer
  mac: HmacSha256Key
  signer: EnvelopeSigner
}

function refuse(message: string): AcsError {
  return new AcsError(ACS_ERRORS.signatureInvalid, message)
}

/** Creates the signature check of a Guardian. */
export function createSignatureCheck(settings: AcsSettings, now: () => number): SignatureCheck {
  /** Per key and session: the derived key, its HMAC prepared once, and its answer signer. */
  const sessionKeys = new Map<string, SessionKey>()

  function sessionKey(key: AcsKey, sessionId: string): SessionKey {
    const cacheKey = `${key.id}\u0000${sessionId}`
    let derived = sessionKeys.get(cacheKey)
    if (!derived) {
      const bytes = deriveSessionKey(key.material, sessionId, settings.keyDerivation)
      const mac = prepareHmacSha256(bytes)
      derived = { key: bytes, mac, signer: { id: key.id, algorithm: HMAC_ALGORITHM, sign: mac.base64 } }
      sessionKeys.set(cacheKey, derived)
      if (sessionKeys.size > MAX_SESSION_KEYS) {
        const oldest = sessionKeys.keys().next().value
        if (oldest !== undefined) sessionKeys.delete(oldest)
      }
    }
    return derived
  }

  const keyFor = (key: AcsKey, sessionId: string): Buffer => sessionKey(key, sessionId).key

  function verify(sessionId: string, message: JsonObject, canonicalParams: string): boolean {
    const signature = (message.params as JsonObject).signature
    if (signature === undefined) {
      if (!settings.requireSignatures) return false
      throw refuse(
        'this Guardian requires signed requests: add params.signature {algorithm: "HMAC-SHA256", value, key_id}',
      )
    }
    if (typeof signature !== 'object' || signature === null || Array.isArray(signature)) {
      throw refuse('params.signature must be an object {algorithm, value, key_id}')
    }
    const { algorithm, value, key_id: keyId } = signature as JsonObject
    if (typeof value !== 'string' || typeof keyId !== 'string') {
      throw refuse('signature.value (base64) and signature.key_id (string) are required')
    }
    if (isAsymmetric(algorithm)) {
      const agentKey = settings.agentKeys.find((k) => k.id === keyId && k.algorithm === algorithm)
      if (!agentKey) {
        throw refuse(
          `key_id ${JSON.stringify(keyId).slice(0, 80)} is not an ${algorithm} agent key of this Guardian (acs.agentKeys); re-resolve the key id`,
        )
      }
      if (!agentKey.verify(requestSignedInput(message, canonicalParams), value)) {
        throw refuse(
          `the ${algorithm} signature does not verify over the RFC 8785 canonical envelope (without signature) under agent key ${JSON.stringify(keyId).slice(0, 80)}; re-sign the request`,
        )
      }
      const owner = agentKey.agent ?? agentKey.id
      const claimed = ((message.params as JsonObject).metadata as JsonObject | undefined)?.agent_id
      if (claimed !== owner) {
        throw refuse(
          `agent key ${JSON.stringify(keyId).slice(0, 80)} belongs to agent ${JSON.stringify(owner).slice(0, 80)}, but the request claims agent_id ${JSON.stringify(claimed ?? null).slice(0, 80)}: an agent signs only for itself`,
        )
      }
      return true
    }
    if (algorithm !== HMAC_ALGORITHM) {
      throw refuse(
        `signature algorithm ${JSON.stringify(algorithm).slice(0, 40)} is not supported; sign with ${verifiedAlgorithms(settings).join(', ')}`,
      )
    }
    const t = now()
    const key = settings.keys.find((k) => k.id === keyId && (k.notAfter === undefined || k.notAfter > t))
    if (!key) {
      throw refuse(
        `key_id ${JSON.stringify(keyId).slice(0, 80)} is not a current key of this Guardian; re-resolve the key id`,
      )
    }
    if (!sessionKey(key, sessionId).mac.matches(requestSignedInput(message, canonicalParams), value)) {
      throw refuse(
        'the signature does not match the RFC 8785 canonical envelope (without signature) under the session key; re-sign the request',
      )
    }
    return true
  }

  function answerSigner(sessionId: string, algorithm: string | undefined): EnvelopeSigner | undefined {
    const chosen = algorithm ? settings.signingKeys.find((k) => k.algorithm === algorithm) : undefined
    if (chosen) return chosen
    const current = settings.keys[0]
    if (!current) return settings.signingKeys[0]
    return sessionKey(current, sessionId).signer
  }

  function signedAndValid(sessionId: string, message: JsonObject): boolean {
    const params = message.params as JsonObject | undefined
    if (params?.signature === undefined) return false
    try {
      return verify(sessionId, message, jcsWithout(params, 'signature'))
    } catch {
      return false
    }
  }

  return { keyFor, verify, answerSigner, signedAndValid }
}
