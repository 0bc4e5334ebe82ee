// IBAC on one ACS step: before the hooks run, the session's Intent is established (at
// `sessionStart` or its first `agentTrigger`), a later different Intent is refused, an
// approver's answer in `params.approval` is verified, and hooks get `context.intent`; after
// the hooks, a request outside `Intent.parsed` is answered per the session's `scope_mode`
// (strict: deny; ask: ASK naming an approver, or §9.2's deny without one; permissive: the
// hooks' answer, marked). What is written to the chain: the Intent established, a refused
// change, and each granted `intent_extension` as its own ContextEntry (§9.1). The Intents,
// their extensions and the ASKs awaiting an answer live in the session state.

import type { Approver, JsonObject } from '../../../core/index.js'
import type {
  AcsRequest,
  AcsSessionState,
  ChainAppender,
  SessionRef,
  SessionSnapshot,
  StepRecord,
} from '../core/index.js'
import { sha256Hex } from '../core/index.js'
import {
  type AcsApprover,
  askHuman,
  covers,
  createApprovals,
  grantedCapabilities,
  type HumanHold,
  type Intent,
  type IntentExtension,
  intentCanonical,
  intentOf,
  intentView,
  requestedCapability,
  type SessionIntent,
  UNDETERMINED_CAPABILITY,
} from '../profiles/index.js'
import type { AnswerCorrection } from './outage.js'
import type { AcsSettings } from './settings.js'

/** What IBAC found for one step before the hooks ran. */
export interface IbacStep {
  ref: SessionRef
  session: SessionIntent | undefined
  capability: string | undefined
  /** `context.intent` for the hooks. */
  view: JsonObject | undefined
  /** Why the step is refused whatever the hooks say. */
  refusal?: { codes: string[]; reasoning: string }
  /** The approver's grant this step carries. */
  granted?: IntentExtension
  /** The request is to be put to the human approver (no other may grant it). */
  hold?: { capability: string; reason: string }
  /** An ASK to remember for `approver`, whose `ask_details` the answer carries. */
  raise?: { capability: string; approver: AcsApprover }
  /** Fields added to the step's own chain entry. */
  entryFields: JsonObject
}

/** IBAC for a Guardian's sessions. */
export interface Ibac {
  /**
   * Sets `context.intent` for the hooks when the session has an Intent.
   * @param session the session's state as loaded for this request.
   * @throws AcsError -32602 for a malformed Intent.
   */
  before(
    request: AcsRequest,
    ref: SessionRef,
    session: SessionSnapshot,
    context: JsonObject,
  ): IbacStep | Promise<IbacStep>
  /**
   * Applies the Intent to the hooks' result (in place); when that makes a deny of what the
   * audit recorded otherwise, `correct` is told (the audit record is set to the deny).
   * @returns the decision the chain entry records (`recorded`, or that deny).
   */
  after(
    step: IbacStep,
    request: AcsRequest,
    result: JsonObject,
    denyEligible: boolean,
    recorded: string,
    correct: (answer: Omit<AnswerCorrection, 'id'>) => void,
    hold?: HumanHold,
  ): string | Promise<string>
  /** The chain entry of a granted extension (written before the step's own). */
  extensionEntry(step: IbacStep): JsonObject | undefined
  /** Keeps a session-scoped extension once the step is chained. */
  commit(step: IbacStep): Promise<void> | undefined
}

/** The Intents of kept records (each record read once). */
const INTENTS = new WeakMap<object, SessionIntent>()

/** A session's Intent from its kept record: the established Intent and the extensions since. */
function sessionIntentOf(record: NonNullable<SessionSnapshot['intent']>): SessionIntent {
  let session = INTENTS.get(record)
  if (!session) {
    session = {
      intent: JSON.parse(record.canonical) as Intent,
      canonical: record.canonical,
      extensions: record.extensions as unknown as IntentExtension[],
    }
    INTENTS.set(record, session)
  }
  return session
}

const ESTABLISHING = new Set(['steps/sessionStart', 'steps/agentTrigger'])

/** The entry of `capabilities` sharing the longest dotted prefix with `capability`. */
function closestMatch(capabilities: readonly string[], capability: string): string | null {
  let best: string | null = null
  let bestLength = 0
  for (const entry of capabilities) {
    let n = 0
    while (n < entry.length && n < capability.length && entry[n] === capability[n]) n++
    if (n > bestLength) {
      best = entry
      bestLength = n
    }
  }
  return best
}

/**
 * Creates IBAC for a Guardian: its Intent settings and approvers, and the human approver (the
 * management plane's) when there is one. ASKs and held requests wait `deferTimeoutMs`.
 */
export function createIbac(
  acs: AcsSettings,
  now: () => number,
  state: AcsSessionState,
  human?: Approver,
): Ibac {
  const settings = acs.intent
  const approvals = createApprovals({ ...acs, timeoutMs: acs.deferTimeoutMs, now, state })

  /** At once when nothing is to be kept or looked up (no Intent offered, no approval carried). */
  function before(
    request: AcsRequest,
    ref: SessionRef,
    snapshot: SessionSnapshot,
    context: JsonObject,
  ): IbacStep | Promise<IbacStep> {
    const session = snapshot.intent && sessionIntentOf(snapshot.intent)
    const offered = request.payload.intent !== undefined && request.payload.intent !== null
    if ((offered && ESTABLISHING.has(request.method)) || (session && request.params.approval !== undefined))
      return establishing(request, ref, snapshot, context)
    const step: IbacStep = { ref, session, capability: undefined, view: undefined, entryFields: {} }
    if (!session) return step
    if (session.intent.parsed !== undefined)
      step.capability = requestedCapability(request.method, request.payload)
    step.view = intentView(session, step.capability)
    context.intent = step.view
    return step
  }

  /** {@link before} for a step that offers an Intent or carries an approver's answer. */
  async function establishing(
    request: AcsRequest,
    ref: SessionRef,
    snapshot: SessionSnapshot,
    context: JsonObject,
  ): Promise<IbacStep> {
    let session = snapshot.intent && sessionIntentOf(snapshot.intent)
    const step: IbacStep = { ref, session, capability: undefined, view: undefined, entryFields: {} }
    if (ESTABLISHING.has(request.method)) {
      const offered = intentOf(request.payload, settings.defaultScopeMode)
      let established = false
      if (offered && !session) {
        // Another instance may establish this session's Intent meanwhile: the first one kept wins.
        const canonical = intentCanonical(offered)
        const kept = await state.establishIntent(ref, canonical)
        established = kept === canonical
        session = established
          ? { intent: offered, canonical, extensions: [] }
          : sessionIntentOf({ canonical: kept, extensions: [] })
        step.session = session
        if (established) step.entryFields.intent = JSON.parse(canonical) as JsonObject
      }
      if (offered && session && !established && intentCanonical(offered) !== session.canonical) {
        step.refusal = {
          codes: ['intent_immutable'],
          reasoning:
            "this session's Intent was established earlier and cannot be changed; only an approver's intent_extension through ASK can widen Intent.parsed",
        }
        step.entryFields.intent_refused = sha256Hex(intentCanonical(offered))
      }
    }
    if (!session) return step
    if (session.intent.parsed !== undefined)
      step.capability = requestedCapability(request.method, request.payload)
    if (request.params.approval !== undefined && !step.refusal) {
      const outcome = await approvals.verify(ref, request, step.capability, session.intent.scope_mode)
      if ('refused' in outcome) step.refusal = outcome.refused
      else step.granted = outcome.granted
    }
    step.view = intentView(session, step.capability, step.granted?.capabilities)
    context.intent = step.view
    return step
  }

  function after(
    step: IbacStep,
    request: AcsRequest,
    result: JsonObject,
    denyEligible: boolean,
    recorded: string,
    correct: (answer: Omit<AnswerCorrection, 'id'>) => void,
    hold?: HumanHold,
  ): string | Promise<string> {
    const refused = decide(step, request, result, denyEligible)
    const finish = (reason: string | undefined): string => {
      if (reason === undefined) return recorded
      if (recorded !== 'deny')
        correct({ decision: 'deny', reason, reasonCode: result.reason_codes as string[] })
      return 'deny'
    }
    const raise = step.raise
    if (raise) {
      return approvals.raise(step.ref, request, raise.capability, raise.approver).then((details) => {
        result.ask_details = details
        return finish(refused)
      })
    }
    if (refused !== undefined || !step.hold || !human || !hold) return finish(refused)
    const { capability, reason } = step.hold
    return askHuman(human, hold, {
      capability,
      reason,
      stepId: request.requestId,
      timeoutMs: acs.deferTimeoutMs,
    }).then((outcome) => {
      if ('refused' in outcome) return finish(deny(result, outcome.refused.codes, outcome.refused.reasoning))
      step.granted = outcome.granted
      result.reasoning = `${reason}; approved by ${outcome.granted.approver.id} for this request`
      return recorded
    })
  }

  /** The IBAC answer; the reason when it became a deny. */
  function decide(
    step: IbacStep,
    request: AcsRequest,
    result: JsonObject,
    denyEligible: boolean,
  ): string | undefined {
    const { session, capability } = step
    if (step.refusal) {
      if (!denyEligible || result.decision === 'deny') return undefined
      return deny(result, step.refusal.codes, step.refusal.reasoning)
    }
    if (!session || capability === undefined || session.intent.parsed === undefined) return undefined
    const granted = grantedCapabilities(session, step.granted?.capabilities)
    if (covers(granted, capability)) return undefined
    const ibac: JsonObject = {
      requested_capability: capability,
      closest_match: closestMatch(granted, capability),
      intent_parsed: granted,
      scope_mode: session.intent.scope_mode,
    }
    const policyData = (result.policy_data ?? {}) as JsonObject
    policyData.ibac = ibac
    result.policy_data = policyData
    if (result.decision === 'deny' || !denyEligible) return undefined
    if (capability === UNDETERMINED_CAPABILITY && session.intent.scope_mode !== 'permissive') {
      return deny(
        result,
        ['ibac_intent_mismatch', 'ibac_capability_undetermined'],
        `the tool this ${request.method} step calls cannot be determined (no capability, tool name or MCP params.name), so it is outside this session's Intent.parsed; name the tool`,
      )
    }
    const outside = `the request uses "${capability}", which is outside this session's Intent.parsed`
    if (session.intent.scope_mode === 'permissive') {
      result.reason_codes = ['ibac_intent_mismatch', ...((result.reason_codes as string[]) ?? [])]
      result.reasoning = `${result.reasoning ?? 'allowed'}; ${outside} (scope_mode permissive: recorded, not refused)`
      return undefined
    }
    const approver = approvals.approverFor(capability, session.intent.scope_mode)
    if (approver) {
      result.decision = 'ask'
      result.reasoning = `${outside}; approver "${approver.id}" may extend it`
      result.reason_codes = ['ibac_intent_mismatch']
      step.raise = { capability, approver }
      delete result.modifications
      delete result.defer_details
      return undefined
    }
    if (human && approvals.extensible(capability, session.intent.scope_mode)) {
      step.hold = { capability, reason: outside }
      return undefined
    }
    if (session.intent.scope_mode === 'strict')
      return deny(
        result,
        ['ibac_intent_mismatch', 'ibac_scope_mode_strict'],
        `${outside} (scope_mode strict)`,
      )
    return deny(
      result,
      ['approver_unavailable', 'ibac_intent_mismatch'],
      `${outside}; approval capability missing: no approver that may grant it is configured for this Guardian`,
    )
  }

  function deny(result: JsonObject, codes: string[], reasoning: string): string {
    result.decision = 'deny'
    result.reasoning = reasoning
    result.reason_codes = codes
    delete result.modifications
    delete result.defer_details
    delete result.ask_details
    return reasoning
  }

  function extensionEntry(step: IbacStep): JsonObject | undefined {
    const granted = step.granted
    if (!granted) return undefined
    return {
      approver: granted.approver,
      capabilities: granted.capabilities,
      scope: granted.scope,
      origin_step_id: granted.origin_step_id,
      provenance: granted.provenance,
    }
  }

  function commit(step: IbacStep): Promise<void> | undefined {
    if (step.granted?.scope !== 'session') return undefined
    return state.extendIntent(step.ref, step.granted as unknown as Record<string, unknown>)
  }

  return { before, after, extensionEntry, commit }
}

/** Appends `first`, then `then`, with the chain appender `append`: the head after both. */
export function appendAfter(
  append: ChainAppender,
  ref: SessionRef,
  first: StepRecord,
  then: StepRecord,
): string | Promise<string> {
  const appended = append(ref, first)
  return typeof appended === 'string' ? append(ref, then) : appended.then(() => append(ref, then))
}
