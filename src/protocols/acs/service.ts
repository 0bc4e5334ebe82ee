// The ACS Guardian as a function from a request body to the response body (§3): JSON-RPC
// 2.0 with batches, the handshake, `system/ping`, and for every hook the checks in the
// spec's order (envelope, handshake, timestamp window, signature, replay, chain cross-check),
// then the engine's decision, the session chain entry and a signed response. The params are
// canonicalized once per request (signature check and request hash), and a response's JSON
// text is the canonical form it was signed over, kept for `replyText`.

import type { Engine, JsonObject } from '../../core/index.js'
import { decodeBody, errorResponse, type RpcError } from '../aos/index.js'
import { deriveSessionKey, sha256Hex, signEnvelope } from './crypto.js'
import { decisionResult, deferReason } from './decisions.js'
import { type AcsRequest, checkEnvelope, checkShell } from './envelope.js'
import { ACS_ERRORS, AcsError, acsErrorResponse } from './errors.js'
import { ACS_VERSION, type Negotiated, serverHello } from './handshake.js'
import { jcsWithout } from './jcs.js'
import { type AcsLedger, createChainAppender, createMemoryLedger, ReplayMemoryFull } from './ledger.js'
import { acsMethod } from './methods.js'
import { type AnswerCorrection, boundedLedger, LedgerUnavailable, postureAnswer } from './outage.js'
import { signatureCheck, timestampCheck } from './request-checks.js'
import { type AcsSettings, settingsWith } from './settings.js'

/** Settings of the ACS service; every one but the engine has a default. */
export interface AcsServiceOptions {
  engine: Engine
  settings?: AcsSettings
  ledger?: AcsLedger
  /** Reported as `metadata.evaluator_version`. */
  version?: string
  /** Most requests in one batch. Default 100. */
  maxBatch?: number
  /** Deepest JSON nesting accepted. Default 64. */
  maxDepth?: number
  /** The clock, in ms since the epoch. */
  now?: () => number
  onInternalError?: (error: unknown) => void
  /**
   * Longest wait for one ledger call (replay memory, session chain), in ms; past it the
   * session's failure posture answers, naming the cause. Default `defaultTimeoutMs`.
   */
  ledgerTimeoutMs?: number
  /** Told when the answer given differs from the recorded decision (so the record is corrected). */
  onAnswerChanged?: (correction: AnswerCorrection) => void
}

/** Who sent the body, beyond the body itself. */
export interface AcsCaller {
  tenant?: string
}

/** A response body: one response or a batch of them. */
export type AcsReply = JsonObject | JsonObject[]

/** The ACS Guardian service. */
export interface AcsService {
  /** `caller.tenant` pins the tenant (a token's); a request naming another is refused. */
  handleBody(body: Uint8Array, caller?: AcsCaller): Promise<AcsReply>
  handle(body: unknown, caller?: AcsCaller): Promise<AcsReply>
  /**
   * The JSON text of a reply: for a signed response of this service, the text composed when
   * it was signed (no second serialization); otherwise JSON.stringify.
   */
  replyText(reply: AcsReply): string
  readonly settings: AcsSettings
  readonly ledger: AcsLedger
}

const MAX_HANDSHAKES = 10_000
/** Most per-session keys kept derived (HKDF costs more than the HMAC it keys). */
const MAX_SESSION_KEYS = 10_000

/**
 * The tenant a request acts for: the caller's (a token's), else the `tenant_id` it names.
 * @throws AcsError when a caller pinned to a tenant names another.
 */
function tenantOf(params: JsonObject, caller: AcsCaller): string | undefined {
  const named = typeof params.tenant_id === 'string' ? params.tenant_id : undefined
  if (caller.tenant !== undefined && named !== undefined && named !== caller.tenant) {
    throw new AcsError(
      ACS_ERRORS.sessionRefused,
      `this caller belongs to tenant "${caller.tenant}"; tenant_id cannot name another tenant`,
    )
  }
  return caller.tenant ?? named
}

/** Creates the ACS service over an engine. */
export function createAcsService(options: AcsServiceOptions): AcsService {
  const { engine } = options
  const settings = options.settings ?? settingsWith()
  const now = options.now ?? Date.now
  const ledger = boundedLedger(
    options.ledger ?? createMemoryLedger(),
    options.ledgerTimeoutMs ?? settings.defaultTimeoutMs,
  )
  const maxBatch = options.maxBatch ?? 100
  const maxDepth = options.maxDepth ?? 64
  const version = options.version ?? '0.1.0'
  const handshakes = new Map<string, Negotiated>()
  const deferrals = new Map<string, number>()
  const sessionKeys = new Map<string, Buffer>()
  const texts = new WeakMap<JsonObject, string>()

  /** The session key under a key's material, derived once and kept (oldest dropped first). */
  function keyFor(material: { id: string; material: Uint8Array }, sessionId: string): Buffer {
    const cacheKey = `${material.id}\u0000${sessionId}`
    let key = sessionKeys.get(cacheKey)
    if (!key) {
      key = deriveSessionKey(material.material, sessionId)
      remember(sessionKeys, cacheKey, key, MAX_SESSION_KEYS)
    }
    return key
  }

  function remember<K, V>(map: Map<K, V>, key: K, value: V, max = MAX_HANDSHAKES): void {
    map.delete(key)
    map.set(key, value)
    if (map.size > max) {
      const oldest = map.keys().next().value
      if (oldest !== undefined) map.delete(oldest)
    }
  }

  /** The key of a tenant's handshake or deferral count (length-prefixed, so no two meet). */
  function tenantKey(tenant: string | undefined, key: string): string {
    const name = tenant ?? ''
    return `${name.length}:${name}${key}`
  }

  function negotiatedFor(request: AcsRequest, tenant: string | undefined): Negotiated | undefined {
    return (
      handshakes.get(tenantKey(tenant, `session:${request.sessionId}`)) ??
      handshakes.get(tenantKey(tenant, `agent:${request.agentId}`)) ??
      handshakes.get(tenantKey(tenant, '*'))
    )
  }

  function checkNegotiated(request: AcsRequest, tenant: string | undefined): void {
    const negotiated = negotiatedFor(request, tenant)
    if (!negotiated) {
      if (!settings.requireHandshake) return
      throw new AcsError(
        ACS_ERRORS.capabilityNotNegotiated,
        'no handshake for this session: send handshake/hello first (with metadata.session_id or agent_id)',
        { method: request.method },
      )
    }
    const methods = negotiated.methods
    if (!methods || methods.has(request.method)) return
    if (request.method.startsWith('protocols/MCP/') || request.method.startsWith('wrapped:')) {
      for (const m of methods) if (m.startsWith('protocols/MCP/') || m.startsWith('wrapped:')) return
    }
    throw new AcsError(
      ACS_ERRORS.capabilityNotNegotiated,
      `${request.method} was not in methods_implemented at handshake; re-handshake declaring it`,
      { method: request.method },
    )
  }

  const checkTimestamp = (request: AcsRequest) => timestampCheck(request, settings, now())
  const checkSignature = (request: AcsRequest, message: JsonObject, canonicalParams: string) =>
    signatureCheck(request, message, canonicalParams, settings, now(), keyFor)

  /** Remembers an id; a replay memory that is full refuses the request, naming the cause. */
  async function rememberOnce(key: string, until: number, t: number): Promise<boolean> {
    try {
      return await ledger.remember(key, until, t)
    } catch (error) {
      if (error instanceof ReplayMemoryFull) throw new AcsError(ACS_ERRORS.internal, error.message)
      throw error
    }
  }

  async function checkReplay(request: AcsRequest): Promise<void> {
    const t = now()
    const until = t + settings.skewWindowMs * 2
    if (!(await rememberOnce(`r:${request.sessionId}:${request.requestId}`, until, t))) {
      throw new AcsError(
        ACS_ERRORS.replayDetected,
        'this request_id was already used in this session; send a new request_id (and nonce)',
      )
    }
    if (
      request.nonce !== undefined &&
      !(await rememberOnce(`n:${request.sessionId}:${request.nonce}`, until, t))
    ) {
      throw new AcsError(
        ACS_ERRORS.replayDetected,
        'this nonce was already used in this session; send a new nonce',
      )
    }
  }

  const appendEntry = createChainAppender(ledger, now)

  async function evaluate(request: AcsRequest, caller: AcsCaller): Promise<JsonObject> {
    const { mapping, event } = acsMethod(request.method, request.payload)
    const payload = mapping.toEvent(request.payload, request.method)
    const context: JsonObject = {
      agent: { id: request.agentId },
      session: { id: request.sessionId },
      requestId: request.requestId,
    }
    const tenant = tenantOf(request.params, caller)
    if (tenant !== undefined) context.tenantId = tenant
    const metadata = request.params.metadata as JsonObject
    if (typeof metadata.turn_id === 'string') context.turnId = metadata.turn_id
    const decision = await engine.dispatch({ event, payload, context, wait: true })
    const recorded = decision.decision
    if (decision.trace.length === 0 && decision.reasonCode[0] === 'invalid-event') {
      throw new AcsError(ACS_ERRORS.invalidParams, `params.payload: ${decision.reason}`)
    }
    // A non-blocking event (sessionStart) answers allow; a hook's deny there still counts.
    const denier =
      decision.decision === 'allow' ? decision.trace.find((t) => t.outcome === 'deny') : undefined
    if (denier) {
      decision.decision = 'deny'
      decision.reason = denier.reason ?? `denied by hook "${denier.hook}"`
      decision.reasonCode = [denier.policy?.id ?? denier.hook]
    }
    const after =
      decision.decision === 'modify' && decision.payload
        ? mapping.toPayload(request.payload, decision.payload)
        : undefined
    const deferred = deferReason(decision) !== undefined
    const deferralKey = tenantKey(tenant, request.sessionId)
    const used = deferrals.get(deferralKey) ?? 0
    const result = decisionResult(decision, request.payload, after, {
      evaluatorVersion: version,
      deferTimeoutMs: settings.deferTimeoutMs,
      denyEligible: mapping.denyEligible,
      deferralsExhausted: used >= settings.maxDeferralsPerSession,
    })
    if (deferred && result.decision === 'defer') remember(deferrals, deferralKey, used + 1)
    try {
      await chained(request, result, decision.id, recorded)
    } catch (error) {
      if (error instanceof LedgerUnavailable) error.decisionId = decision.id
      throw error
    }
    return result
  }

  /** Checks the chain_hash sent (a mismatch denies) and appends the session's entry. */
  async function chained(
    request: AcsRequest,
    result: JsonObject,
    decisionId: string,
    recorded: string,
  ): Promise<void> {
    const head = request.chainHash === undefined ? undefined : await ledger.head(request.sessionId)
    if (request.chainHash !== undefined && request.chainHash !== head && result.decision !== 'deny') {
      result.decision = 'deny'
      result.reasoning = `the chain_hash sent (${request.chainHash.slice(0, 12)}…) is not this session's head (${head?.slice(0, 12) ?? 'none'}); re-fetch session state`
      result.reason_codes = ['chain_mismatch']
      delete result.modifications
      delete result.defer_details
      if (recorded !== 'deny') {
        options.onAnswerChanged?.({
          id: decisionId,
          decision: 'deny',
          reason: result.reasoning,
          reasonCode: ['chain_mismatch'],
        })
      }
    }
    result.chain_hash = await appendEntry(request.sessionId, {
      step_id: request.requestId,
      step_type: request.method,
      request_hash: request.requestHash ?? sha256Hex(jcsWithout(request.params, 'signature')),
      decision: String(result.decision),
      decision_id: decisionId,
      recorded_decision: recorded,
    })
  }

  /** The failure posture's answer to a request whose ledger step failed. */
  function ledgerFailed(id: string | number, request: AcsRequest, failure: LedgerUnavailable): JsonObject {
    const answer = postureAnswer(settings, failure)
    if ('error' in answer) return acsErrorResponse(id, answer.error)
    if (answer.correction) options.onAnswerChanged?.(answer.correction)
    return respond(request, answer.result)
  }

  function respond(
    request: { id: string | number; sessionId?: string; requestId?: string },
    result: JsonObject,
  ): JsonObject {
    result.acs_version = ACS_VERSION
    if (request.requestId) result.request_id = request.requestId
    result.timestamp = new Date(now()).toISOString()
    const response: JsonObject = { jsonrpc: '2.0', id: request.id, result }
    const current = settings.keys[0]
    if (current && request.sessionId !== undefined)
      texts.set(response, signEnvelope(response, 'result', keyFor(current, request.sessionId), current.id))
    return response
  }

  async function one(message: unknown, caller: AcsCaller): Promise<JsonObject> {
    let shell: ReturnType<typeof checkShell>
    try {
      shell = checkShell(message)
    } catch (error) {
      const id =
        typeof message === 'object' && message !== null && 'id' in message ? (message as JsonObject).id : null
      return acsErrorResponse(typeof id === 'string' || typeof id === 'number' ? id : null, error as AcsError)
    }
    const meta = shell.params.metadata as JsonObject | undefined
    const sessionId = typeof meta?.session_id === 'string' ? meta.session_id : undefined
    if (shell.method === 'system/ping') {
      // §13: always allow, never an ACS error, no signature needed, not chained.
      const echo =
        typeof (shell.params.payload as JsonObject | undefined)?.echo === 'string'
          ? (shell.params.payload as JsonObject).echo
          : undefined
      const payload: JsonObject = { status: 'ok', server_timestamp: new Date(now()).toISOString() }
      if (echo !== undefined) payload.echo = echo
      return respond(
        { id: shell.id, ...(sessionId ? { sessionId } : {}) },
        { type: 'final', decision: 'allow', payload },
      )
    }
    let checked: AcsRequest | undefined
    try {
      if (shell.method === 'handshake/hello') {
        const { hello, negotiated } = serverHello(shell.params, engine, settings)
        const agentId = typeof meta?.agent_id === 'string' ? meta.agent_id : undefined
        remember(
          handshakes,
          tenantKey(
            tenantOf(shell.params, caller),
            sessionId ? `session:${sessionId}` : agentId ? `agent:${agentId}` : '*',
          ),
          negotiated,
        )
        return respond({ id: shell.id, ...(sessionId ? { sessionId } : {}) }, hello)
      }
      const request = checkEnvelope(shell)
      checked = request
      checkNegotiated(request, tenantOf(request.params, caller))
      checkTimestamp(request)
      const canonicalParams = jcsWithout(request.params, 'signature')
      request.requestHash = sha256Hex(canonicalParams)
      checkSignature(request, message as JsonObject, canonicalParams)
      await checkReplay(request)
      return respond(request, await evaluate(request, caller))
    } catch (error) {
      if (error instanceof AcsError) return acsErrorResponse(shell.id, error)
      if (error instanceof LedgerUnavailable && checked) return ledgerFailed(shell.id, checked, error)
      options.onInternalError?.(error)
      return acsErrorResponse(
        shell.id,
        new AcsError(ACS_ERRORS.internal, 'an internal error occurred; the request was not evaluated'),
      )
    }
  }

  async function handle(body: unknown, caller: AcsCaller = {}): Promise<AcsReply> {
    if (!Array.isArray(body)) return one(body, caller)
    if (body.length === 0)
      return acsErrorResponse(
        null,
        new AcsError(ACS_ERRORS.invalidRequest, 'an empty batch; send at least one request'),
      )
    if (body.length > maxBatch) {
      return acsErrorResponse(
        null,
        new AcsError(
          ACS_ERRORS.invalidRequest,
          `a batch of ${body.length} requests is over the limit of ${maxBatch}`,
        ),
      )
    }
    // §3: each request in a batch is evaluated independently, in declared order.
    const replies: JsonObject[] = []
    for (const message of body) replies.push(await one(message, caller))
    return replies
  }

  function textOf(response: JsonObject): string {
    return texts.get(response) ?? JSON.stringify(response)
  }

  return {
    settings,
    ledger,
    handle,
    replyText: (reply) => (Array.isArray(reply) ? `[${reply.map(textOf).join(',')}]` : textOf(reply)),
    handleBody(raw, caller = {}) {
      let body: unknown
      try {
        body = decodeBody(raw, maxDepth)
      } catch (error) {
        return Promise.resolve(errorResponse(null, error as RpcError))
      }
      return handle(body, caller)
    },
  }
}
