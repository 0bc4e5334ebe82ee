// The sessions a Guardian has negotiated (§4): one `handshake/hello` opens one session of one
// tenant, verified like any request, and v0.1 has no renegotiation (§4.1), so no hello can
// change a session another party opened. Hook requests are checked against their own
// session's handshake only (CAPABILITY_NOT_NEGOTIATED otherwise).

import type { Engine, JsonObject } from '../../../core/index.js'
import type { AcsRequest } from '../core/index.js'
import { ACS_ERRORS, AcsError, jcsWithout, tenantKey } from '../core/index.js'
import { type AcsTransport, clientHelloOf, type Negotiated, serverHello } from './handshake.js'
import type { AcsSettings } from './settings.js'
import type { SignatureCheck } from './signatures.js'

/** Most sessions whose handshake is kept (oldest dropped first; such a session re-handshakes). */
const MAX_HANDSHAKES = 10_000

/**
 * The tenant a request acts for: the caller's (a token's), else the `tenant_id` it names.
 * @throws AcsError when a caller pinned to a tenant names another.
 */
export function tenantOf(params: JsonObject, caller: { tenant?: string }): string | undefined {
  const named = typeof params.tenant_id === 'string' ? params.tenant_id : undefined
  if (caller.tenant !== undefined && named !== undefined && named !== caller.tenant) {
    throw new AcsError(
      ACS_ERRORS.sessionRefused,
      `this caller belongs to tenant "${caller.tenant}"; tenant_id cannot name another tenant`,
    )
  }
  return caller.tenant ?? named
}

/** Sets `key` in `map` as its newest entry, dropping the oldest past `max` entries. */
export function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key)
  map.set(key, value)
  if (map.size > max) {
    const oldest = map.keys().next().value
    if (oldest !== undefined) map.delete(oldest)
  }
}

/** The negotiated sessions of one Guardian. */
export interface Handshakes {
  /**
   * Answers a `handshake/hello` for the tenant: the ServerHello.
   * @throws AcsError -32602 without metadata.session_id, -32004 for a missing or forged
   * signature, -32000 for a hello that would renegotiate, and the refusals of serverHello.
   */
  accept(message: JsonObject, params: JsonObject, tenant: string | undefined): JsonObject
  /**
   * @returns the session's negotiated terms (undefined without a handshake, when none is required).
   * @throws AcsError -32003 when the request's session did not negotiate its method.
   */
  check(request: AcsRequest, tenant: string | undefined): Negotiated | undefined
}

/** Creates the handshake registry of a Guardian. */
export function createHandshakes(
  engine: Engine,
  settings: AcsSettings,
  transport: AcsTransport,
  signatures: SignatureCheck,
): Handshakes {
  const negotiatedSessions = new Map<string, Negotiated>()

  function accept(message: JsonObject, params: JsonObject, tenant: string | undefined): JsonObject {
    const meta = params.metadata
    const sessionId =
      typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta.session_id : undefined
    if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > 256) {
      throw new AcsError(
        ACS_ERRORS.invalidParams,
        'handshake/hello needs params.metadata.session_id (1 to 256 characters): a handshake opens one session',
      )
    }
    signatures.verify(sessionId, message, jcsWithout(params, 'signature'))
    const { hello, negotiated } = serverHello(clientHelloOf(params), engine, settings, transport)
    const key = tenantKey(tenant, sessionId)
    const before = negotiatedSessions.get(key)
    if (before && before.terms !== negotiated.terms) {
      throw new AcsError(
        ACS_ERRORS.sessionRefused,
        `session ${JSON.stringify(sessionId).slice(0, 80)} is already negotiated with other terms; ACS v0.1 has no renegotiation: start a new session`,
        { reason: 'session_already_negotiated' },
      )
    }
    if (!before) {
      negotiatedSessions.set(key, negotiated)
      if (negotiatedSessions.size > MAX_HANDSHAKES) {
        const oldest = negotiatedSessions.keys().next().value
        if (oldest !== undefined) negotiatedSessions.delete(oldest)
      }
    }
    return hello
  }

  function check(request: AcsRequest, tenant: string | undefined): Negotiated | undefined {
    const negotiated = negotiatedSessions.get(tenantKey(tenant, request.sessionId))
    if (!negotiated) {
      if (!settings.requireHandshake) return undefined
      throw new AcsError(
        ACS_ERRORS.capabilityNotNegotiated,
        'no handshake for this session: send handshake/hello first, with this metadata.session_id',
        { method: request.method },
      )
    }
    const methods = negotiated.methods
    if (!methods || methods.has(request.method)) return negotiated
    if (request.method.startsWith('protocols/MCP/') || request.method.startsWith('wrapped:')) {
      for (const m of methods)
        if (m.startsWith('protocols/MCP/') || m.startsWith('wrapped:')) return negotiated
    }
    throw new AcsError(
      ACS_ERRORS.capabilityNotNegotiated,
      `${request.method} was not in methods_implemented at handshake; re-handshake declaring it`,
      { method: request.method },
    )
  }

  return { accept, check }
}
