// The per-request checks of ACS that need no state but the settings and the clock: the
// timestamp window (§10.3) and the request signature (§10), each refusing with the ACS error
// that says what to fix.

import type { JsonObject } from '../../core/index.js'
import { HMAC_ALGORITHM, hmacMatches, requestSignedInput } from './crypto.js'
import type { AcsRequest } from './envelope.js'
import { ACS_ERRORS, AcsError } from './errors.js'
import type { AcsKey, AcsSettings } from './settings.js'

/** §10.3: the request's timestamp within the skew window of the Guardian's clock. */
export function timestampCheck(request: AcsRequest, settings: AcsSettings, now: number): void {
  const skew = Math.abs(now - request.timestamp)
  if (skew > settings.skewWindowMs) {
    throw new AcsError(
      ACS_ERRORS.timestampOutOfWindow,
      `timestamp is ${Math.round(skew / 1000)} s from the Guardian's clock, outside the ${settings.skewWindowMs} ms window; correct the clock and send a fresh request`,
      { skew_window_ms: settings.skewWindowMs },
    )
  }
}

/** §10: the request's HMAC-SHA256 signature under a current key's session key. */
export function signatureCheck(
  request: AcsRequest,
  message: JsonObject,
  canonicalParams: string,
  settings: AcsSettings,
  now: number,
  keyFor: (key: AcsKey, sessionId: string) => Buffer,
): void {
  const signature = request.params.signature
  if (signature === undefined) {
    if (!settings.requireSignatures) return
    throw new AcsError(
      ACS_ERRORS.signatureInvalid,
      'this Guardian requires signed requests: add params.signature {algorithm: "HMAC-SHA256", value, key_id}',
    )
  }
  if (typeof signature !== 'object' || signature === null || Array.isArray(signature)) {
    throw new AcsError(
      ACS_ERRORS.signatureInvalid,
      'params.signature must be an object {algorithm, value, key_id}',
    )
  }
  const { algorithm, value, key_id: keyId } = signature as JsonObject
  if (algorithm !== HMAC_ALGORITHM) {
    throw new AcsError(
      ACS_ERRORS.signatureInvalid,
      `signature algorithm ${JSON.stringify(algorithm).slice(0, 40)} is not supported; sign with HMAC-SHA256`,
    )
  }
  if (typeof value !== 'string' || typeof keyId !== 'string') {
    throw new AcsError(
      ACS_ERRORS.signatureInvalid,
      'signature.value (base64) and signature.key_id (string) are required',
    )
  }
  const t = now
  const key = settings.keys.find((k) => k.id === keyId && (k.notAfter === undefined || k.notAfter > t))
  if (!key) {
    throw new AcsError(
      ACS_ERRORS.signatureInvalid,
      `key_id ${JSON.stringify(keyId).slice(0, 80)} is not a current key of this Guardian; re-resolve the key id`,
    )
  }
  if (!hmacMatches(keyFor(key, request.sessionId), requestSignedInput(message, canonicalParams), value)) {
    throw new AcsError(
      ACS_ERRORS.signatureInvalid,
      'the signature does not match the RFC 8785 canonical envelope (without signature) under the session key; re-sign the request',
    )
  }
}
