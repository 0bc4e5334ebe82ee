// The ACS request envelope checked at the boundary (§3, hooks.md "Common envelope"):
// JSON-RPC 2.0 with `params.acs_version`, `request_id` (UUID), `timestamp` (ISO 8601),
// `metadata.{agent_id, session_id}`, a `payload` object, optional `nonce` and `signature`.

import type { JsonObject } from '../../../core/index.js'
import { ACS_ERRORS, AcsError } from './errors.js'
import { sameMajor } from './version.js'

/** A checked ACS hook request. */
export interface AcsRequest {
  id: string | number
  method: string
  params: JsonObject
  requestId: string
  timestamp: number
  sessionId: string
  agentId: string
  payload: JsonObject
  nonce?: string
  chainHash?: string
  /** Lowercase-hex SHA-256 of the JCS params without signature (§8.1 request_hash). */
  requestHash?: string
  /** The algorithm the session's answers are signed with, as negotiated at handshake. */
  answerAlgorithm?: string
  /** The tenant the request acts for (the caller's, else the `tenant_id` it names); set once checked. */
  tenant?: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(message: string): AcsError {
  return new AcsError(ACS_ERRORS.invalidParams, message)
}

/** The JSON-RPC shell: an object with `jsonrpc: "2.0"`, a string method and an id. */
export function checkShell(message: unknown): { id: string | number; method: string; params: JsonObject } {
  if (!isObject(message))
    throw new AcsError(ACS_ERRORS.invalidRequest, 'a request must be a JSON-RPC 2.0 object')
  if (message.jsonrpc !== '2.0') throw new AcsError(ACS_ERRORS.invalidRequest, 'jsonrpc must be "2.0"')
  if (typeof message.method !== 'string' || message.method.length === 0) {
    throw new AcsError(
      ACS_ERRORS.invalidRequest,
      'method must be a non-empty string such as "steps/toolCallRequest"',
    )
  }
  const id = message.id
  if (id === undefined) {
    throw new AcsError(
      ACS_ERRORS.invalidRequest,
      'ACS v0.1 has no notifications: give the request an id and wait for its decision',
    )
  }
  if (typeof id !== 'string' && typeof id !== 'number') {
    throw new AcsError(ACS_ERRORS.invalidRequest, 'id must be a string or a number')
  }
  const params = message.params ?? {}
  if (!isObject(params)) throw invalid('params must be an object (the ACS envelope)')
  return { id, method: message.method, params }
}

/**
 * The envelope fields every hook request carries.
 * @throws AcsError -32602 naming the field, -32001 for another major version.
 */
export function checkEnvelope(shell: {
  id: string | number
  method: string
  params: JsonObject
}): AcsRequest {
  const p = shell.params
  if (p.acs_version === undefined) throw invalid('params.acs_version is required, e.g. "0.1.0"')
  if (!sameMajor(p.acs_version)) {
    throw new AcsError(
      ACS_ERRORS.unsupportedVersion,
      `acs_version ${JSON.stringify(p.acs_version).slice(0, 40)} is not a 0.y.z version`,
      {
        supported_versions: ['0.1.0'],
      },
    )
  }
  if (typeof p.request_id !== 'string' || !UUID.test(p.request_id)) {
    throw invalid('params.request_id must be a UUID, new for every request')
  }
  if (typeof p.timestamp !== 'string' || !ISO.test(p.timestamp) || Number.isNaN(Date.parse(p.timestamp))) {
    throw invalid('params.timestamp must be an ISO 8601 time with a zone, e.g. 2026-01-01T12:00:00Z')
  }
  const metadata = p.metadata
  if (!isObject(metadata)) throw invalid('params.metadata must be an object with agent_id and session_id')
  if (
    typeof metadata.session_id !== 'string' ||
    metadata.session_id.length === 0 ||
    metadata.session_id.length > 256
  ) {
    throw invalid('params.metadata.session_id must be a string of 1 to 256 characters')
  }
  if (
    typeof metadata.agent_id !== 'string' ||
    metadata.agent_id.length === 0 ||
    metadata.agent_id.length > 256
  ) {
    throw invalid('params.metadata.agent_id must be a string of 1 to 256 characters')
  }
  const payload = p.payload ?? {}
  if (!isObject(payload)) throw invalid('params.payload must be an object')
  const request: AcsRequest = {
    id: shell.id,
    method: shell.method,
    params: p,
    requestId: p.request_id.toLowerCase(),
    timestamp: Date.parse(p.timestamp),
    sessionId: metadata.session_id,
    agentId: metadata.agent_id,
    payload,
  }
  if (p.nonce !== undefined) {
    if (typeof p.nonce !== 'string' || p.nonce.length < 16 || p.nonce.length > 128) {
      throw invalid('params.nonce must be a string of 16 to 64 bytes (up to 128 characters encoded)')
    }
    request.nonce = p.nonce
  }
  const chainHash = p.chain_hash ?? metadata.chain_hash
  if (chainHash !== undefined) {
    if (typeof chainHash !== 'string' || !/^[0-9a-f]{64}$/.test(chainHash)) {
      throw invalid('chain_hash must be 64 lowercase hex characters (the last chain_hash Warden returned)')
    }
    request.chainHash = chainHash
  }
  return request
}
