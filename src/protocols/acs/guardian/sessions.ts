// The sessions a Guardian has negotiated (§4): one `handshake/hello` opens one session of one
// tenant, verified like any request, and v0.1 has no renegotiation (§4.1), so no hello can
// change a session another party opened. Hook requests are checked against their own
// session's handshake only (CAPABILITY_NOT_NEGOTIATED otherwise). The handshakes are kept in
// the session state (on a database, every instance sees every session's handshake).

import type { Engine, JsonObject } from '../../../core/index.js'
import type { AcsRequest, AcsSessionState, HandshakeRecord, SessionSnapshot } from '../core/index.js'
import { ACS_ERRORS, AcsError, jcsWithout } from '../core/index.js'
import { type AcsTransport, clientHelloOf, type Negotiated, serverHello } from './handshake.js'
import type { AcsSettings } from './settings.js'
import type { SignatureCheck } from './signatures.js'

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

/** The negotiated sessions of one Guardian. */
export interface Handshakes {
  /**
   * Answers a `handshake/hello` for the tenant: the ServerHello.
   * @throws AcsError -32602 without metadata.session_id, -32004 for a missing or forged
   * signature, -32000 for a hello that would renegotiate, and the refusals of serverHello.
   */
  accept(message: JsonObject, params: JsonObject, tenant: string | undefined): Promise<JsonObject>
  /**
   * @param session the request's session state, as loaded for this request.
   * @returns the session's negotiated terms (undefined without a handshake, when none is required).
   * @throws AcsError -32003 when the request's session did not negotiate its method.
   */
  check(request: AcsRequest, session: SessionSnapshot): Negotiated | undefined
}

/** The negotiated terms of a kept handshake (each record read once into its Set). */
const NEGOTIATED = new WeakMap<HandshakeRecord, Negotiated>()

function negotiatedOf(record: HandshakeRecord): Negotiated {
  let negotiated = NEGOTIATED.get(record)
  if (!negotiated) {
    negotiated = { methods: record.methods ? new Set(record.methods) : undefined, terms: record.terms }
    if (record.answerAlgorithm !== undefined) negotiated.answerAlgorithm = record.answerAlgorithm
    NEGOTIATED.set(record, negotiated)
  }
  return negotiated
}

/** Creates the handshake registry of a Guardian. */
export function createHandshakes(
  engine: Engine,
  settings: AcsSettings,
  transport: AcsTransport,
  signatures: SignatureCheck,
  state: AcsSessionState,
): Handshakes {
  async function accept(
    message: JsonObject,
    params: JsonObject,
    tenant: string | undefined,
  ): Promise<JsonObject> {
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
    const record: HandshakeRecord = {
      methods: negotiated.methods ? [...negotiated.methods] : null,
      terms: negotiated.terms,
    }
    if (negotiated.answerAlgorithm !== undefined) record.answerAlgorithm = negotiated.answerAlgorithm
    const kept = await state.claimHandshake({ tenant: tenant ?? '', session: sessionId }, record)
    if (kept.terms !== negotiated.terms) {
      throw new AcsError(
        ACS_ERRORS.sessionRefused,
        `session ${JSON.stringify(sessionId).slice(0, 80)} is already negotiated with other terms; ACS v0.1 has no renegotiation: start a new session`,
        { reason: 'session_already_negotiated' },
      )
    }
    return hello
  }

  function check(request: AcsRequest, session: SessionSnapshot): Negotiated | undefined {
    const negotiated = session.handshake && negotiatedOf(session.handshake)
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
