// The ACS error registry (§17.1) and the JSON-RPC errors ACS answers, each with a message
// that says what to fix and the machine-readable `data.reason` the spec asks for.

import type { JsonObject } from '../../../core/index.js'

/** JSON-RPC and ACS error codes (§17, §17.1). */
export const ACS_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  sessionRefused: -32000,
  unsupportedVersion: -32001,
  provenanceRequired: -32002,
  capabilityNotNegotiated: -32003,
  signatureInvalid: -32004,
  replayDetected: -32005,
  timestampOutOfWindow: -32006,
  chainMismatch: -32007,
} as const

const REASONS: Record<number, string> = {
  [-32700]: 'parse_error',
  [-32600]: 'invalid_request',
  [-32601]: 'method_not_found',
  [-32602]: 'invalid_params',
  [-32603]: 'internal_error',
  [-32000]: 'session_refused',
  [-32001]: 'unsupported_version',
  [-32002]: 'provenance_required',
  [-32003]: 'capability_not_negotiated',
  [-32004]: 'signature_invalid',
  [-32005]: 'replay_detected',
  [-32006]: 'timestamp_out_of_window',
  [-32007]: 'chain_mismatch',
}

/** An error answered as a JSON-RPC error object. */
export class AcsError extends Error {
  override readonly name = 'AcsError'
  constructor(
    readonly code: number,
    message: string,
    readonly extra: JsonObject = {},
  ) {
    super(message)
  }
}

/** The JSON-RPC error response for an id. */
export function acsErrorResponse(id: string | number | null, error: AcsError): JsonObject {
  const data: JsonObject = { reason: REASONS[error.code] ?? 'error', message: error.message, ...error.extra }
  return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message, data } }
}
