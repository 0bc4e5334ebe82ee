// The ACS Guardian as a function from a request body to the response body (§3): JSON-RPC
// 2.0 with batches, the handshake, `system/ping`, and for every hook the checks in the
// spec's order (envelope, handshake, timestamp window, signature, replay, chain cross-check),
// then the engine's decision, the session chain entry and a signed response. The params are
// canonicalized once per request (signature check and request hash), and a response's JSON
// text is the canonical form it was signed over, kept for `replyText`.

import type { EventName, JsonObject } from '../../../core/index.js'
import { decodeBody, errorResponse, type RpcError } from '../../aos/index.js'
import {
  ACS_ERRORS,
  ACS_VERSION,
  AcsError,
  type AcsRequest,
  acsErrorResponse,
  acsMethod,
  checkEnvelope,
  checkShell,
  createChainAppender,
  createMemoryLedger,
  createMemorySessionState,
  decisionResult,
  deferReason,
  isoAt,
  jcsWithout,
  type SessionRef,
  type SessionSnapshot,
  type StepRecord,
  sha256Hex,
  signEnvelopeWith,
  syncFormOf,
} from '../core/index.js'
import { createTraceEmitter } from '../profiles/index.js'
import { appendAfter, createIbac, type IbacStep } from './ibac.js'
import { boundedLedger, LedgerUnavailable, postureAnswer } from './outage.js'
import { createReplayCheck } from './replay.js'
import { batchRefusal, pingResult, timestampCheck } from './request-checks.js'
import type { AcsCaller, AcsReply, AcsService, AcsServiceOptions } from './service-types.js'
import { createHandshakes, tenantOf } from './sessions.js'
import { settingsWith } from './settings.js'
import { createSignatureCheck } from './signatures.js'

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

  async function evaluate(
    request: AcsRequest,
    ref: SessionRef,
    session: SessionSnapshot,
    caller: AcsCaller,
  ): Promise<JsonObject> {
    const { mapping, event } = acsMethod(request.method, request.payload)
    const tenant = request.tenant
    if (request.chainHash !== undefined && !mapping.denyEligible) {
      // §8.6, §17.1: a hook that cannot be denied (sessionEnd) cannot carry the deny form of
      // a chain mismatch, so it gets the error form, before anything is evaluated or chained.
      const head = await headOf(ref)
      if (request.chainHash !== head) {
        throw new AcsError(
          ACS_ERRORS.chainMismatch,
          `the chain_hash sent (${request.chainHash.slice(0, 12)}…) is not this session's head (${head?.slice(0, 12) ?? 'none'}); re-fetch session state`,
          { chain_hash: head ?? null },
        )
      }
    }
    const payload = mapping.toEvent(request.payload, request.method)
    const context: JsonObject = {
      agent: { id: request.agentId },
      session: { id: request.sessionId },
      requestId: request.requestId,
    }
    if (tenant !== undefined) context.tenantId = tenant
    const before = ibac.before(request, ref, session, context)
    const intent = before instanceof Promise ? await before : before
    const metadata = request.params.metadata as JsonObject
    if (typeof metadata.turn_id === 'string') context.turnId = metadata.turn_id
    const decision = await engine.dispatch(
      caller.onCallerGone
        ? { event, payload, context, wait: true, onCallerGone: caller.onCallerGone }
        : { event, payload, context, wait: true },
    )
    const recorded = decision.decision
    if (decision.trace.length === 0 && decision.reasonCode[0] === 'invalid-event') {
      throw new AcsError(ACS_ERRORS.invalidParams, `params.payload: ${decision.reason}`)
    }
    // A non-blocking event (sessionStart) answers allow; a hook's deny there still counts.
    const denier =
      decision.decision === 'allow'
        ? decision.trace.find((t) => t.outcome === 'deny' && !t.shadow)
        : undefined
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
    const result = decisionResult(decision, request.payload, after, {
      evaluatorVersion: version,
      deferTimeoutMs: settings.deferTimeoutMs,
      denyEligible: mapping.denyEligible,
      deferralsExhausted: session.deferrals >= settings.maxDeferralsPerSession,
    })
    const hold = { decisionId: decision.id, event: { event: event as EventName, payload, context } }
    try {
      if (deferred && result.decision === 'defer') await state.countDeferral(ref)
      const settled = ibac.after(
        intent,
        request,
        result,
        mapping.denyEligible,
        recorded,
        (answer) => options.onAnswerChanged?.({ id: decision.id, ...answer }),
        caller.onCallerGone ? { ...hold, onCallerGone: caller.onCallerGone } : hold,
      )
      const chainedAs = typeof settled === 'string' ? settled : await settled
      const appended = chained(ref, request, result, decision.id, chainedAs, intent)
      if (appended) await appended
      const committed = result.decision !== 'deny' ? ibac.commit(intent) : undefined
      if (committed) await committed
    } catch (error) {
      if (error instanceof LedgerUnavailable) error.decisionId = decision.id
      throw error
    }
    traceStep(request, result, tenant, intent.view)
    return result
  }

  /**
   * Checks the chain_hash sent (a mismatch denies) and appends the session's entry; a
   * promise only when the ledger is not in memory.
   */
  function chained(
    ref: SessionRef,
    request: AcsRequest,
    result: JsonObject,
    decisionId: string,
    recorded: string,
    intent?: IbacStep,
  ): Promise<void> | undefined {
    const head = request.chainHash === undefined ? undefined : headOf(ref)
    if (head instanceof Promise)
      return head.then((h) => chainOn(h, ref, request, result, decisionId, recorded, intent))
    return chainOn(head, ref, request, result, decisionId, recorded, intent)
  }

  function chainOn(
    head: string | null | undefined,
    ref: SessionRef,
    request: AcsRequest,
    result: JsonObject,
    decisionId: string,
    recorded: string,
    intent?: IbacStep,
  ): Promise<void> | undefined {
    let chainedDecision = recorded
    if (request.chainHash !== undefined && request.chainHash !== head && result.decision !== 'deny') {
      result.decision = 'deny'
      result.reasoning = `the chain_hash sent (${request.chainHash.slice(0, 12)}…) is not this session's head (${head?.slice(0, 12) ?? 'none'}); re-fetch session state`
      result.reason_codes = ['chain_mismatch']
      delete result.modifications
      delete result.defer_details
      if (recorded !== 'deny') {
        // The audit record is corrected to this deny, so the chain entry records it too.
        chainedDecision = 'deny'
        options.onAnswerChanged?.({
          id: decisionId,
          decision: 'deny',
          reason: result.reasoning,
          reasonCode: ['chain_mismatch'],
        })
      }
    }
    const step: StepRecord = {
      step_id: request.requestId,
      step_type: request.method,
      request_hash: request.requestHash ?? sha256Hex(jcsWithout(request.params, 'signature')),
      decision: String(result.decision),
      decision_id: decisionId,
      recorded_decision: chainedDecision,
    }
    if (intent && Object.keys(intent.entryFields).length > 0) step.fields = intent.entryFields
    const extension = intent && result.decision !== 'deny' ? ibac.extensionEntry(intent) : undefined
    // §9.1: an approver's grant is its own ContextEntry, before the step it let through.
    const appended = extension
      ? appendAfter(appendEntry, ref, { ...step, step_type: 'intent_extension', fields: extension }, step)
      : appendEntry(ref, step)
    if (typeof appended === 'string') {
      result.chain_hash = appended
      return undefined
    }
    return appended.then((hash) => {
      result.chain_hash = hash
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
    let checked: AcsRequest | undefined
    try {
      if (shell.method === 'handshake/hello') {
        const hello = await handshakes.accept(
          message as JsonObject,
          shell.params,
          tenantOf(shell.params, caller),
        )
        const selected = hello.selected_signature_algorithm
        return respond(
          {
            id: shell.id,
            ...(sessionId ? { sessionId } : {}),
            ...(typeof selected === 'string' ? { answerAlgorithm: selected } : {}),
          },
          hello,
        )
      }
      const request = checkEnvelope(shell)
      checked = request
      request.tenant = tenantOf(request.params, caller)
      const ref: SessionRef = { tenant: request.tenant ?? '', session: request.sessionId }
      const session = state.loadNow?.(ref) ?? (await state.load(ref))
      const negotiated = handshakes.check(request, session)
      if (negotiated?.answerAlgorithm) request.answerAlgorithm = negotiated.answerAlgorithm
      checkTimestamp(request)
      const canonicalParams = jcsWithout(request.params, 'signature')
      request.requestHash = sha256Hex(canonicalParams)
      signatures.verify(request.sessionId, message as JsonObject, canonicalParams)
      const replay = checkReplay(request)
      if (replay) await replay
      return respond(request, await evaluate(request, ref, session, caller))
    } catch (error) {
      if (error instanceof AcsError) return acsErrorResponse(shell.id, error)
      if (error instanceof LedgerUnavailable && checked) return ledgerFailed(shell.id, checked, error)
      if (error instanceof LedgerUnavailable) {
        // A hello whose session state could not be kept: nothing was decided or chained.
        return acsErrorResponse(
          shell.id,
          new AcsError(ACS_ERRORS.internal, `${error.message}; the handshake was not kept: send it again`),
        )
      }
      options.onInternalError?.(error)
      return acsErrorResponse(
        shell.id,
        new AcsError(ACS_ERRORS.internal, 'an internal error occurred; the request was not evaluated'),
      )
    }
  }

  async function handle(body: unknown, caller: AcsCaller = {}): Promise<AcsReply> {
    if (!Array.isArray(body)) return one(body, caller)
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
