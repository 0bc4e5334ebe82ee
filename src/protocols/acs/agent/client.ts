// The Observed Agent's side of the wire, for the conformance client, tests and benchmarks:
// builds ACS request envelopes, signs them with the per-session key, and verifies a
// Guardian's signed response.

import { randomBytes, randomUUID } from 'node:crypto'
import type { JsonObject } from '../../../core/index.js'
import {
  ACS_VERSION,
  deriveSessionKey,
  type EnvelopeSigner,
  hmacMatches,
  signEnvelopeWith,
  signedInput,
  signMessage,
} from '../core/index.js'
import type { VerifyingKey } from '../profiles/index.js'

/** A key the client signs with. */
export interface ClientKey {
  id: string
  material: Uint8Array
}

/** Options of {@link acsRequest}. */
export interface RequestOptions {
  sessionId: string
  agentId?: string
  id?: string | number
  key?: ClientKey
  /** Overrides for envelope fields (request_id, timestamp, nonce, chain_hash, ...). */
  params?: JsonObject
  nonce?: boolean
  /** Signs with an ACS-Crypto key instead of (not besides) the HMAC `key`. */
  signer?: EnvelopeSigner
}

/** A complete ACS request for `method` with `payload`, signed when a key is given. */
export function acsRequest(method: string, payload: JsonObject, options: RequestOptions): JsonObject {
  const params: JsonObject = {
    acs_version: ACS_VERSION,
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    metadata: { agent_id: options.agentId ?? 'agent-1', session_id: options.sessionId },
    payload,
    ...(options.nonce ? { nonce: randomBytes(16).toString('hex') } : {}),
    ...options.params,
  }
  const message: JsonObject = { jsonrpc: '2.0', id: options.id ?? randomUUID(), method, params }
  if (options.signer) signEnvelopeWith(message, 'params', options.signer)
  else if (options.key)
    signMessage(message, 'params', deriveSessionKey(options.key.material, options.sessionId), options.key.id)
  return message
}

/** Options of {@link clientHello}: the envelope around the ClientHello. */
export interface HelloOptions {
  /** Signs the hello under the session key (a Guardian with keys requires it). */
  key?: ClientKey
  agentId?: string
  /** Overrides for envelope fields (tenant_id, timestamp, metadata, ...). */
  params?: JsonObject
  /** Signs with an ACS-Crypto key instead of the HMAC `key`. */
  signer?: EnvelopeSigner
}

/**
 * A `handshake/hello` request for a session: the ClientHello (§4) in `params.payload`, with
 * `hello` overriding its fields, in a request envelope signed when a key is given.
 */
export function clientHello(
  sessionId: string,
  hello: JsonObject = {},
  options: HelloOptions = {},
): JsonObject {
  const params: JsonObject = {
    acs_version: ACS_VERSION,
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    metadata: { agent_id: options.agentId ?? 'agent-1', session_id: sessionId },
    payload: {
      acs_versions_supported: [ACS_VERSION],
      transports_supported: ['http', 'stdio'],
      provenance_producer: 'none',
      profiles_supported: ['acs-core'],
      ...hello,
    },
    ...options.params,
  }
  const message: JsonObject = { jsonrpc: '2.0', id: randomUUID(), method: 'handshake/hello', params }
  if (options.signer) signEnvelopeWith(message, 'params', options.signer)
  else if (options.key)
    signMessage(message, 'params', deriveSessionKey(options.key.material, sessionId), options.key.id)
  return message
}

/** Whether a response's `result.signature` verifies under the session key. */
export function responseSigned(response: JsonObject, key: ClientKey, sessionId: string): boolean {
  const result = response.result as JsonObject | undefined
  const signature = result?.signature as JsonObject | undefined
  if (!signature || typeof signature.value !== 'string' || signature.key_id !== key.id) return false
  return hmacMatches(
    deriveSessionKey(key.material, sessionId),
    signedInput(response, 'result'),
    signature.value,
  )
}

/** Whether a response's `result.signature` is a valid signature of `key` (an ACS-Crypto key). */
export function responseVerifies(response: JsonObject, key: VerifyingKey): boolean {
  const result = response.result as JsonObject | undefined
  const signature = result?.signature as JsonObject | undefined
  if (!signature || typeof signature.value !== 'string') return false
  if (signature.key_id !== key.id || signature.algorithm !== key.algorithm) return false
  return key.verify(signedInput(response, 'result'), signature.value)
}
