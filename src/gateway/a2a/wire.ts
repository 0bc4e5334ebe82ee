// The wire shapes of what the gateway says in a peer's place. A deny is a JSON-RPC error
// with Warden's own code (-32090) and the reason in `message` and `data.warden`, or, on the
// HTTP+JSON binding, an A2A REST error body (HTTP 403, `PERMISSION_DENIED`, an ErrorInfo
// detail with reason `WARDEN_DENIED`). A failure of the upstream (down, slow, garbage) is
// -32091 / HTTP 502 or 504, naming the cause. Bad input keeps the JSON-RPC codes.

import type { Decision, Json, JsonObject } from '../../core/index.js'
import type { UpstreamErrorKind } from '../kit/index.js'

/** The JSON-RPC error code of a call Warden denied. */
export const A2A_DENIED_CODE = -32090
/** The JSON-RPC error code of a call the gateway could not complete (upstream failure). */
export const A2A_UPSTREAM_ERROR_CODE = -32091

export const RPC_PARSE_ERROR = -32700
export const RPC_INVALID_REQUEST = -32600
export const RPC_METHOD_NOT_FOUND = -32601
export const RPC_INVALID_PARAMS = -32602

/** Why the gateway answers instead of the upstream: a denial or a failure. */
export interface Refusal {
  kind: 'denied' | 'upstream' | 'invalid'
  message: string
  /** HTTP status on the REST binding (and for JSON-RPC answers that are not 200). */
  status: number
  /** JSON-RPC code. */
  code: number
  data?: JsonObject
}

/** A refusal for a denying decision (the decision's facts, no payload). */
export function denial(decision: Decision, what: string): Refusal {
  const reason = decision.reason || `${what} denied`
  return {
    kind: 'denied',
    message: `Denied by Warden: ${reason}`,
    status: 403,
    code: A2A_DENIED_CODE,
    data: {
      warden: {
        decision: 'deny',
        reason,
        decisionId: decision.id,
        event: decision.event,
        reasonCode: (decision.reasonCode ?? []) as Json,
      },
    },
  }
}

/** A refusal the gateway decides itself (no decision: a policy check or a limit). */
export function refusedBy(reason: string, status = 403): Refusal {
  return {
    kind: 'denied',
    message: `Denied by Warden: ${reason}`,
    status,
    code: A2A_DENIED_CODE,
    data: { warden: { decision: 'deny', reason } },
  }
}

/** A refusal for an upstream failure. */
export function upstreamFailure(kind: UpstreamErrorKind, message: string): Refusal {
  return {
    kind: 'upstream',
    message: `Upstream agent failed: ${message}`,
    status: kind === 'timeout' ? 504 : 502,
    code: A2A_UPSTREAM_ERROR_CODE,
    data: { warden: { cause: kind } },
  }
}

/** A refusal for bad input. */
export function invalid(code: number, message: string, status = 400): Refusal {
  return { kind: 'invalid', message, status, code }
}

/** The JSON-RPC error response of a refusal. */
export function rpcError(id: Json, refusal: Refusal): JsonObject {
  const error: JsonObject = { code: refusal.code, message: refusal.message }
  if (refusal.data) error.data = refusal.data
  return { jsonrpc: '2.0', id, error }
}

const REST_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

/** The A2A REST error body of a refusal. */
export function restError(refusal: Refusal): JsonObject {
  const reason =
    refusal.kind === 'denied'
      ? 'WARDEN_DENIED'
      : refusal.kind === 'upstream'
        ? 'WARDEN_UPSTREAM'
        : 'WARDEN_INVALID'
  const metadata: JsonObject = {}
  const warden = refusal.data?.warden
  if (warden && typeof warden === 'object' && !Array.isArray(warden)) {
    for (const [key, value] of Object.entries(warden)) if (typeof value === 'string') metadata[key] = value
  }
  return {
    error: {
      code: refusal.status,
      status: REST_STATUS[refusal.status] ?? 'INTERNAL',
      message: refusal.message,
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'warden', metadata }],
    },
  }
}
