// One ACS hook step once its request passed the envelope, handshake, timestamp, signature
// and replay checks: the chain cross-check, IBAC, the engine's decision, the session chain
// entry and the Intent's extension. Each part answers at once when it can (a memory ledger,
// hooks that answered synchronously, no Intent offered), so a step on one instance's memory
// costs no promise and no tick; a database ledger, an async hook or an approval continue
// as promises, with the same checks in the same order.

import {
  type Decision,
  dispatchSoon,
  type Engine,
  type EventName,
  type JsonObject,
  type OnCallerGone,
  type Soon,
} from '../../../core/index.js'
import {
  ACS_ERRORS,
  AcsError,
  type AcsRequest,
  type AcsSessionState,
  acsMethod,
  type ChainAppender,
  decisionResult,
  deferReason,
  jcsWithout,
  type SessionRef,
  type SessionSnapshot,
  type StepRecord,
  sha256Hex,
} from '../core/index.js'
import { appendAfter, type Ibac, type IbacStep } from './ibac.js'
import { type AnswerCorrection, LedgerUnavailable } from './outage.js'
import type { AcsSettings } from './settings.js'

/** Applies `next` to a value now, or once its promise settles. */
export function thenSoon<T, U>(value: Soon<T>, next: (value: T) => Soon<U>): Soon<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}

/** What a step needs of the service around it. */
export interface StepParts {
  engine: Engine
  settings: AcsSettings
  version: string
  state: AcsSessionState
  ibac: Ibac
  /** The session's chain head, at once on a memory ledger. */
  headOf(ref: SessionRef): Soon<string | null>
  appendEntry: ChainAppender
  /** Emits the step's trace event (ACS-Trace). */
  traceStep(request: AcsRequest, result: JsonObject, tenant: string | undefined, intent?: JsonObject): void
  onAnswerChanged?: ((correction: AnswerCorrection) => void) | undefined
}

/** Evaluates a checked request of a session: the result to sign, at once when nothing waited. */
export type StepEvaluator = (
  request: AcsRequest,
  ref: SessionRef,
  session: SessionSnapshot,
  onCallerGone: OnCallerGone | undefined,
) => Soon<JsonObject>

function chainMismatch(sent: string, head: string | null): string {
  return `the chain_hash sent (${sent.slice(0, 12)}…) is not this session's head (${head?.slice(0, 12) ?? 'none'}); re-fetch session state`
}

/** Creates the evaluator of checked hook requests. */
export function createStepEvaluator(parts: StepParts): StepEvaluator {
  const { engine, settings, state, ibac, headOf, appendEntry } = parts

  return (request, ref, session, onCallerGone) => {
    const { mapping, event } = acsMethod(request.method, request.payload)
    const sent = request.chainHash
    if (sent !== undefined && !mapping.denyEligible) {
      // §8.6, §17.1: a hook that cannot be denied (sessionEnd) cannot carry the deny form of
      // a chain mismatch, so it gets the error form, before anything is evaluated or chained.
      return thenSoon(headOf(ref), (head) => {
        if (sent !== head) {
          throw new AcsError(ACS_ERRORS.chainMismatch, chainMismatch(sent, head), {
            chain_hash: head ?? null,
          })
        }
        return decide()
      })
    }
    return decide()

    function decide(): Soon<JsonObject> {
      const payload = mapping.toEvent(request.payload, request.method)
      const context: JsonObject = {
        agent: { id: request.agentId },
        session: { id: request.sessionId },
        requestId: request.requestId,
      }
      const tenant = request.tenant
      if (tenant !== undefined) context.tenantId = tenant
      return thenSoon(ibac.before(request, ref, session, context), (intent) => {
        const metadata = request.params.metadata as JsonObject
        if (typeof metadata.turn_id === 'string') context.turnId = metadata.turn_id
        const decision = dispatchSoon(
          engine,
          onCallerGone
            ? { event, payload, context, wait: true, onCallerGone }
            : { event, payload, context, wait: true },
        )
        return thenSoon(decision, (made) => decided(made, payload, context, intent))
      })
    }

    function decided(
      decision: Decision,
      payload: JsonObject,
      context: JsonObject,
      intent: IbacStep,
    ): Soon<JsonObject> {
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
        evaluatorVersion: parts.version,
        deferTimeoutMs: settings.deferTimeoutMs,
        denyEligible: mapping.denyEligible,
        deferralsExhausted: session.deferrals >= settings.maxDeferralsPerSession,
      })
      const hold = { decisionId: decision.id, event: { event: event as EventName, payload, context } }
      const marked = (error: unknown): never => {
        if (error instanceof LedgerUnavailable) error.decisionId = decision.id
        throw error
      }
      try {
        const counted = deferred && result.decision === 'defer' ? state.countDeferral(ref) : undefined
        const settled = thenSoon(counted, () =>
          ibac.after(
            intent,
            request,
            result,
            mapping.denyEligible,
            recorded,
            (answer) => parts.onAnswerChanged?.({ id: decision.id, ...answer }),
            onCallerGone ? { ...hold, onCallerGone } : hold,
          ),
        )
        const done = thenSoon(settled, (chainedAs) =>
          thenSoon(chained(result, decision.id, chainedAs, intent), () =>
            thenSoon(result.decision !== 'deny' ? ibac.commit(intent) : undefined, () => {
              parts.traceStep(request, result, request.tenant, intent.view)
              return result
            }),
          ),
        )
        return done instanceof Promise ? done.catch(marked) : done
      } catch (error) {
        return marked(error)
      }
    }

    /** Checks the chain_hash sent (a mismatch denies) and appends the session's entry. */
    function chained(result: JsonObject, decisionId: string, recorded: string, intent: IbacStep): Soon<void> {
      const head = sent === undefined ? undefined : headOf(ref)
      return thenSoon(head, (h) => chainOn(h, result, decisionId, recorded, intent))
    }

    function chainOn(
      head: string | null | undefined,
      result: JsonObject,
      decisionId: string,
      recorded: string,
      intent: IbacStep,
    ): Soon<void> {
      let chainedDecision = recorded
      if (sent !== undefined && sent !== head && result.decision !== 'deny') {
        result.decision = 'deny'
        result.reasoning = chainMismatch(sent, head ?? null)
        result.reason_codes = ['chain_mismatch']
        delete result.modifications
        delete result.defer_details
        if (recorded !== 'deny') {
          // The audit record is corrected to this deny, so the chain entry records it too.
          chainedDecision = 'deny'
          parts.onAnswerChanged?.({
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
      if (Object.keys(intent.entryFields).length > 0) step.fields = intent.entryFields
      const extension = result.decision !== 'deny' ? ibac.extensionEntry(intent) : undefined
      // §9.1: an approver's grant is its own ContextEntry, before the step it let through.
      const appended = extension
        ? appendAfter(appendEntry, ref, { ...step, step_type: 'intent_extension', fields: extension }, step)
        : appendEntry(ref, step)
      return thenSoon(appended, (hash) => {
        result.chain_hash = hash
      })
    }
  }
}
