// The ACS Guardian as a function from a request body to the response body (§3): JSON-RPC
// 2.0 with batches, the handshake, `system/ping`, and for every hook the checks in the
// spec's order (envelope, handshake, timestamp window, signature, replay, chain cross-check),
// then the engine's decision, the session chain entry and a signed response. The params are
// canonicalized once per request (signature check and request hash), and a response's JSON
// text is the canonical form it was signed over, kept for `replyText`. A single request is
// answered at once, with no promise, when nothing on its way waits (./step.ts).

import type { JsonObject, Soon } from '../../../core/index.js'
import { decodeBody, errorResponse, type RpcError } from '../../aos/index.js'
import {
  ACS_ERRORS,
  ACS_VERSION,
  AcsError,
  type AcsRequest,
  acsErrorResponse,
  checkEnvelope,
  checkShell,
  createChainAppender,
  createMemoryLedger,
  createMemorySessionState,
  isoAt,
  jcsWithout,
  type SessionRef,
  sha256Hex,
  signEnvelopeWith,
  syncFormOf,
} from '../core/index.js'
import { createTraceEmitter } from '../profiles/index.js'
import { createIbac } from './ibac.js'
import { boundedLedger, LedgerUnavailable, postureAnswer } from './outage.js'
import { createReplayCheck } from './replay.js'
import { batchRefusal, pingResult, timestampCheck } from './request-checks.js'
import type { AcsCaller, AcsReply, AcsService, AcsServiceOptions } from './service-types.js'
import { createHandshakes, tenantOf } from './sessions.js'
import { settingsWith } from './settings.js'
import { createSignatureCheck } from './signatures.js'
import { createStepEvaluator, thenSoon } from './step.js'

/** Creates the ACS service over an engine. */
export function createAcsService(options: AcsServiceOptions): AcsService {
  const { engine } = options
  const given = options.settings ?? settingsWith()
  const settings =
    options.ocsfEnabled === undefined
      ? given
      : { ...given, trace: { ...given.trace, ocsf: options.ocsfEnabled } }
  const now = options.now ?? Date.now
  const ledger = boundedLedger(
    options.ledger ?? createMemoryLedger(),
    options.ledgerTimeoutMs ?? settings.defaultTimeoutMs,
  )
  const maxBatch = options.maxBatch ?? 100
  const maxDepth = options.maxDepth ?? 64
  const version = options.version ?? '0.1.0'
  const transport = options.transport ?? 'http'
  const texts = new WeakMap<JsonObject, string>()
  // Handshakes, Intents, pending ASKs and deferral counts: with the ledger's chains (on a
  // database, shared by the cluster), else in this process's memory.
  const state = ledger.sessions ?? createMemorySessionState()
  const signatures = createSignatureCheck(settings, now)
  const handshakes = createHandshakes(engine, settings, transport, signatures, state)
  const ibac = createIbac(settings, now, state, options.approver)
  const traceStep = createTraceEmitter(settings.trace)

  const checkTimestamp = (request: AcsRequest) => timestampCheck(request, settings, now())
  const checkReplay = createReplayCheck(ledger, settings.skewWindowMs * 2, now)
  const sync = syncFormOf(ledger)
  /** The session's chain head, without waiting on a memory ledger. */
  const headOf = (ref: SessionRef) => (sync ? sync.head(ref) : ledger.head(ref))

  const appendEntry = createChainAppender(ledger, now)

  const evaluate = createStepEvaluator({
    engine,
    settings,
    version,
    state,
    ibac,
    headOf,
    appendEntry,
    traceStep,
    onAnswerChanged: options.onAnswerChanged,
  })

  /** The failure posture's answer to a request whose ledger step failed. */
  function ledgerFailed(id: string | number, request: AcsRequest, failure: LedgerUnavailable): JsonObject {
    const answer = postureAnswer(settings, failure)
    if ('error' in answer) return acsErrorResponse(id, answer.error)
    if (answer.correction) options.onAnswerChanged?.(answer.correction)
    return respond(request, answer.result)
  }

  function respond(
    request: { id: string | number; sessionId?: string; requestId?: string; answerAlgorithm?: string },
    result: JsonObject,
  ): JsonObject {
    result.acs_version = ACS_VERSION
    if (request.requestId) result.request_id = request.requestId
    result.timestamp = isoAt(now())
    const response: JsonObject = { jsonrpc: '2.0', id: request.id, result }
    if (request.sessionId === undefined) return response
    const signer = signatures.answerSigner(request.sessionId, request.answerAlgorithm)
    if (signer) texts.set(response, signEnvelopeWith(response, 'result', signer))
    return response
  }

  /** Answers one message; never throws nor rejects. At once when nothing had to wait. */
  function one(message: unknown, caller: AcsCaller): Soon<JsonObject> {
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
      // §13: always allow, never an ACS error, no signature needed, not chained. Signed only
      // for a ping that was signed and verifies: an anonymous caller gets no signature of the
      // session key over an answer it chose (the echo).
      return respond(
        {
          id: shell.id,
          ...(sessionId && signatures.signedAndValid(sessionId, message as JsonObject) ? { sessionId } : {}),
        },
        pingResult(shell.params, now()),
      )
    }
    const id = shell.id
    if (shell.method === 'handshake/hello') {
      return hello(message as JsonObject, shell.params, sessionId, id, caller).then(
        undefined,
        (error: unknown) => failure(id, undefined, error),
      )
    }
    let checked: AcsRequest | undefined
    try {
      const request = checkEnvelope(shell)
      checked = request
      request.tenant = tenantOf(request.params, caller)
      const ref: SessionRef = { tenant: request.tenant ?? '', session: request.sessionId }
      const answer = thenSoon(state.loadNow?.(ref) ?? state.load(ref), (session) => {
        const negotiated = handshakes.check(request, session)
        if (negotiated?.answerAlgorithm) request.answerAlgorithm = negotiated.answerAlgorithm
        checkTimestamp(request)
        const canonicalParams = jcsWithout(request.params, 'signature')
        request.requestHash = sha256Hex(canonicalParams)
        signatures.verify(request.sessionId, message as JsonObject, canonicalParams)
        return thenSoon(checkReplay(request), () =>
          thenSoon(evaluate(request, ref, session, caller.onCallerGone), (result) =>
            respond(request, result),
          ),
        )
      })
      return answer instanceof Promise
        ? answer.then(undefined, (error: unknown) => failure(id, request, error))
        : answer
    } catch (error) {
      return failure(id, checked, error)
    }
  }

  /** Answers `handshake/hello` with the signed ServerHello (§4). */
  async function hello(
    message: JsonObject,
    params: JsonObject,
    sessionId: string | undefined,
    id: string | number,
    caller: AcsCaller,
  ): Promise<JsonObject> {
    const accepted = await handshakes.accept(message, params, tenantOf(params, caller))
    const selected = accepted.selected_signature_algorithm
    return respond(
      {
        id,
        ...(sessionId ? { sessionId } : {}),
        ...(typeof selected === 'string' ? { answerAlgorithm: selected } : {}),
      },
      accepted,
    )
  }

  /** The answer to a request that failed: its ACS error, the failure posture, or an internal error. */
  function failure(id: string | number, checked: AcsRequest | undefined, error: unknown): JsonObject {
    if (error instanceof AcsError) return acsErrorResponse(id, error)
    if (error instanceof LedgerUnavailable && checked) return ledgerFailed(id, checked, error)
    if (error instanceof LedgerUnavailable) {
      // A hello whose session state could not be kept: nothing was decided or chained.
      return acsErrorResponse(
        id,
        new AcsError(ACS_ERRORS.internal, `${error.message}; the handshake was not kept: send it again`),
      )
    }
    try {
      options.onInternalError?.(error)
    } catch {
      // a failing reporter must not lose the answer
    }
    return acsErrorResponse(
      id,
      new AcsError(ACS_ERRORS.internal, 'an internal error occurred; the request was not evaluated'),
    )
  }

  /** A single request's answer as it comes (at once when it could be); a batch's as a promise. */
  function handleSoon(body: unknown, caller: AcsCaller): Soon<AcsReply> {
    return Array.isArray(body) ? batch(body, caller) : one(body, caller)
  }

  async function batch(body: unknown[], caller: AcsCaller): Promise<AcsReply> {
    const refused = batchRefusal(body, maxBatch)
    if (refused) return acsErrorResponse(null, refused)
    // §3: each request in a batch is evaluated independently, in declared order.
    const replies: JsonObject[] = []
    for (const message of body) replies.push(await one(message, caller))
    return replies
  }

  function textOf(response: JsonObject): string {
    return texts.get(response) ?? JSON.stringify(response)
  }

  function answerBody(raw: Uint8Array, caller: AcsCaller = {}): Soon<AcsReply> {
    let body: unknown
    try {
      body = decodeBody(raw, maxDepth)
    } catch (error) {
      return errorResponse(null, error as RpcError)
    }
    return handleSoon(body, caller)
  }

  return {
    settings,
    ledger,
    handle: async (body, caller = {}) => handleSoon(body, caller),
    replyText: (reply) => (Array.isArray(reply) ? `[${reply.map(textOf).join(',')}]` : textOf(reply)),
    answerBody,
    handleBody: async (raw, caller = {}) => answerBody(raw, caller),
  }
}
