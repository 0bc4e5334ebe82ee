// The client-routed ASK of the approver model (§9, §9.1): a request outside the session's
// Intent is answered `ask` with `ask_details.approver = {type, id, endpoint}`; the approver
// receives the ACS-shaped request and returns an ACS-shaped decision, signed with its own
// key; the agent re-sends the step with that answer in `params.approval`. The answer is
// verified against policy here: the approver the ASK named, its signature under its key for
// this session, the ASK it answers (once, in time, from the agent that asked, for the same
// request: method, capability and arguments by canonical hash), single hop (no `ask`), what
// the approver may grant, and `strict` sessions' limits.

import type { JsonObject } from '../../../core/index.js'
import type { AcsRequest, AcsSessionState, PendingAskRecord, SessionRef } from '../core/index.js'
import {
  ACS_ERRORS,
  AcsError,
  canonicalJson,
  deriveSessionKey,
  HMAC_ALGORITHM,
  hmacMatches,
  type KeyDerivation,
  sha256Hex,
  signedInput,
} from '../core/index.js'
import type { AcsApprover, AcsIntentSettings } from './approver-settings.js'
import { capabilityList, covers, type IntentExtension, type ScopeMode } from './intent.js'

/** An ASK awaiting its approver's answer, with the approver it names. */
type PendingAsk = PendingAskRecord & { approver: AcsApprover }

/** What an approver's answer amounts to. */
export type ApprovalOutcome =
  | { granted: IntentExtension }
  | { refused: { codes: string[]; reasoning: string } }

/** The approvers of one Guardian and the ASKs they have yet to answer. */
export interface Approvals {
  /** Whether any approver may add `capability` to a session of this scope_mode. */
  extensible(capability: string, mode: ScopeMode): boolean
  /** The approver a new ASK for `capability` names, if one may grant it. */
  approverFor(capability: string, mode: ScopeMode): AcsApprover | undefined
  /** Remembers an ASK of the tenant's session and gives its `ask_details`. */
  raise(ref: SessionRef, request: AcsRequest, capability: string, approver: AcsApprover): Promise<JsonObject>
  /** Verifies the approver's answer a re-sent step carries in `params.approval`. */
  verify(
    ref: SessionRef,
    request: AcsRequest,
    capability: string | undefined,
    mode: ScopeMode,
  ): Promise<ApprovalOutcome>
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** SHA-256 of the canonical {method, capability, payload}: what an approval is given for. */
export function approvedRequestHash(request: AcsRequest, capability: string | undefined): string {
  return sha256Hex(
    canonicalJson({ method: request.method, capability: capability ?? null, payload: request.payload }),
  )
}

function refused(code: string, reasoning: string): ApprovalOutcome {
  return { refused: { codes: [code], reasoning } }
}

/** Creates the approvals of a Guardian. */
export function createApprovals(options: {
  approvers: AcsApprover[]
  intent: AcsIntentSettings
  keyDerivation: KeyDerivation
  /** How long an ASK waits for its approver's answer, in ms. */
  timeoutMs: number
  now: () => number
  /** Where the ASKs awaiting an answer are kept (shared by a cluster's instances on a database). */
  state: AcsSessionState
}): Approvals {
  const { approvers, intent, now, state } = options

  function allowedUnder(mode: ScopeMode, capability: string): boolean {
    return mode !== 'strict' || covers(intent.strictExtensible, capability)
  }

  function approverFor(capability: string, mode: ScopeMode): AcsApprover | undefined {
    if (!allowedUnder(mode, capability)) return undefined
    return approvers.find((a) => a.grants === undefined || covers(a.grants, capability))
  }

  async function raise(
    ref: SessionRef,
    request: AcsRequest,
    capability: string,
    approver: AcsApprover,
  ): Promise<JsonObject> {
    await state.raiseAsk(ref, request.requestId, {
      method: request.method,
      capability,
      agentId: request.agentId,
      requestHash: approvedRequestHash(request, capability),
      approverId: approver.id,
      expiresAt: now() + options.timeoutMs,
    })
    return {
      approver: { type: approver.type, id: approver.id, endpoint: approver.endpoint },
      requested_capabilities: [capability],
      timeout_ms: options.timeoutMs,
      resubmit:
        "send the step again with a new request_id and the approver's signed answer in params.approval",
    }
  }

  /** The ASK `askedId` of the session with the approver it names, while that approver is configured. */
  async function pendingAsk(ref: SessionRef, askedId: string): Promise<PendingAsk | undefined> {
    const record = askedId === '' ? undefined : await state.pendingAsk(ref, askedId)
    const approver = record && approvers.find((a) => a.id === record.approverId)
    return record && approver ? { ...record, approver } : undefined
  }

  async function verify(
    ref: SessionRef,
    request: AcsRequest,
    capability: string | undefined,
    mode: ScopeMode,
  ): Promise<ApprovalOutcome> {
    const answer = request.params.approval
    const result = isObject(answer) ? answer.result : undefined
    if (!isObject(answer) || !isObject(result)) {
      return refused(
        'approval_invalid',
        "params.approval must be the approver's signed ACS response {jsonrpc, id, result: {request_id, decision, signature, ...}}",
      )
    }
    const askedId = typeof result.request_id === 'string' ? result.request_id.toLowerCase() : ''
    const ask = await pendingAsk(ref, askedId)
    if (!ask) {
      return refused(
        'approval_unknown',
        `params.approval answers request ${JSON.stringify(askedId).slice(0, 60)}, which is no ASK of this session awaiting an answer (each answer is used once)`,
      )
    }
    if (ask.agentId !== request.agentId) {
      throw new AcsError(
        ACS_ERRORS.capabilityNotNegotiated,
        `params.approval answers an ASK raised for agent ${JSON.stringify(ask.agentId).slice(0, 80)}; only that agent may re-send the step with it`,
        { reason: 'approval_agent_mismatch' },
      )
    }
    const signature = result.signature
    if (
      !isObject(signature) ||
      signature.algorithm !== HMAC_ALGORITHM ||
      signature.key_id !== ask.approver.id ||
      typeof signature.value !== 'string' ||
      !hmacMatches(
        deriveSessionKey(ask.approver.material, request.sessionId, options.keyDerivation),
        signedInput(answer, 'result'),
        signature.value,
      )
    ) {
      return refused(
        'approval_invalid',
        `params.approval is not signed by approver "${ask.approver.id}" (the approver the ASK named) for this session`,
      )
    }
    if (!(await state.takeAsk(ref, askedId))) {
      return refused(
        'approval_unknown',
        `params.approval answers request ${JSON.stringify(askedId).slice(0, 60)}, whose answer was used meanwhile (each answer is used once)`,
      )
    }
    if (ask.expiresAt < now())
      return refused('approval_expired', 'the approver answered after the ASK expired')
    if (
      ask.method !== request.method ||
      ask.capability !== capability ||
      ask.requestHash !== approvedRequestHash(request, capability)
    ) {
      return refused(
        'approval_mismatch',
        `the approval was given for ${ask.method} using "${ask.capability}" with other arguments, not for this request (an approval covers the exact request asked about: method, capability and payload)`,
      )
    }
    if (result.decision === 'ask') {
      return refused('approver_returned_ask', 'an approver must not answer ASK (single hop, §9)')
    }
    if (result.decision !== 'allow') {
      const why = typeof result.reasoning === 'string' ? `: ${result.reasoning.slice(0, 500)}` : ''
      return refused(
        'approver_denied',
        `approver "${ask.approver.id}" answered ${String(result.decision)}${why}`,
      )
    }
    return grant(result, ask, askedId, mode)
  }

  function grant(result: JsonObject, ask: PendingAsk, askedId: string, mode: ScopeMode): ApprovalOutcome {
    const details = isObject(result.ask_details) ? result.ask_details : undefined
    const offered = result.intent_extension ?? details?.intent_extension
    let capabilities = [ask.capability]
    let scope: IntentExtension['scope'] = 'this_request'
    let provenance: JsonObject = { origin: 'external', source_id: `approver:${ask.approver.id}` }
    if (offered !== undefined) {
      if (!isObject(offered)) return refused('approval_invalid', 'intent_extension must be an object')
      try {
        capabilities = capabilityList(offered.capabilities, 'intent_extension.capabilities')
      } catch (error) {
        return refused('approval_invalid', (error as Error).message)
      }
      if (offered.scope !== 'this_request' && offered.scope !== 'session')
        return refused('approval_invalid', 'intent_extension.scope must be "this_request" or "session"')
      scope = offered.scope
      if (isObject(offered.provenance)) provenance = offered.provenance
    }
    const beyond = capabilities.filter((c) => ask.approver.grants && !covers(ask.approver.grants, c))
    if (beyond.length > 0) {
      return refused(
        'approval_exceeds_policy',
        `approver "${ask.approver.id}" may not grant ${beyond.slice(0, 5).join(', ')}`,
      )
    }
    const forbidden = capabilities.filter((c) => !allowedUnder(mode, c))
    if (forbidden.length > 0) {
      return {
        refused: {
          codes: ['ibac_intent_mismatch', 'ibac_scope_mode_strict'],
          reasoning: `this session's scope_mode is strict: no approver may add ${forbidden.slice(0, 5).join(', ')}`,
        },
      }
    }
    return {
      granted: {
        capabilities,
        scope,
        approver: { id: ask.approver.id, type: ask.approver.type },
        origin_step_id: askedId,
        provenance,
      },
    }
  }

  return { extensible: (capability, mode) => allowedUnder(mode, capability), approverFor, raise, verify }
}
