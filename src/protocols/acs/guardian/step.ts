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
  return (request, ref, session, onCallerGone) =>
    new Step(parts, request, ref, session, onCallerGone).evaluate()
}

/** One request's step; its methods are the parts that may wait. */
class Step {
  readonly mapping: ReturnType<typeof acsMethod>['mapping']
  readonly event: string
  decisionId = ''

  constructor(
    readonly parts: StepParts,
    readonly request: AcsRequest,
    readonly ref: SessionRef,
    readonly session: SessionSnapshot,
    readonly onCallerGone: OnCallerGone | undefined,
  ) {
    const { mapping, event } = acsMethod(request.method, request.payload)
    this.mapping = mapping
    this.event = event
  }

  evaluate(): Soon<JsonObject> {
    const sent = this.request.chainHash
    if (sent !== undefined && !this.mapping.denyEligible) {
      // §8.6, §17.1: a hook that cannot be denied (sessionEnd) cannot carry the deny form of
      // a chain mismatch, so it gets the error form, before anything is evaluated or chained.
      return thenSoon(this.parts.headOf(this.ref), (head) => {
        if (sent !== head) {
          throw new AcsError(ACS_ERRORS.chainMismatch, chainMismatch(sent, head), {
            chain_hash: head ?? null,
          })
        }
        return this.decide()
      })
    }
    return this.decide()
  }

  decide(): Soon<JsonObject> {
    const request = this.request
    const payload = this.mapping.toEvent(request.payload, request.method)
    const context: JsonObject = {
      agent: { id: request.agentId },
      session: { id: request.sessionId },
      requestId: request.requestId,
    }
    if (request.tenant !== undefined) context.tenantId = request.tenant
    return thenSoon(this.parts.ibac.before(request, this.ref, this.session, context), (intent) => {
      const metadata = request.params.metadata as JsonObject
      if (typeof metadata.turn_id === 'string') context.turnId = metadata.turn_id
      const event = this.event
      const onCallerGone = this.onCallerGone
      const decision = dispatchSoon(
        this.parts.engine,
        onCallerGone
          ? { event, payload, context, wait: true, onCallerGone }
          : { event, payload, context, wait: true },
      )
      return thenSoon(decision, (made) => this.decided(made, payload, context, intent))
    })
  }

  decided(decision: Decision, payload: JsonObject, context: JsonObject, intent: IbacStep): Soon<JsonObject> {
    const { parts, request, mapping } = this
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
      deferTimeoutMs: parts.settings.deferTimeoutMs,
      denyEligible: mapping.denyEligible,
      deferralsExhausted: this.session.deferrals >= parts.settings.maxDeferralsPerSession,
    })
    this.decisionId = decision.id
    const hold = { decisionId: decision.id, event: { event: this.event as EventName, payload, context } }
    try {
      const counted =
        deferred && result.decision === 'defer' ? parts.state.countDeferral(this.ref) : undefined
      const settled = thenSoon(counted, () =>
        parts.ibac.after(
          intent,
          request,
          result,
          mapping.denyEligible,
          recorded,
          (answer) => parts.onAnswerChanged?.({ id: decision.id, ...answer }),
          this.onCallerGone ? { ...hold, onCallerGone: this.onCallerGone } : hold,
        ),
      )
      const done = thenSoon(settled, (chainedAs) =>
        thenSoon(this.chained(result, chainedAs, intent), () =>
          thenSoon(result.decision !== 'deny' ? parts.ibac.commit(intent) : undefined, () => {
            parts.traceStep(request, result, request.tenant, intent.view)
            return result
          }),
        ),
      )
      return done instanceof Promise ? done.catch((error: unknown) => this.failed(error)) : done
    } catch (error) {
      return this.failed(error)
    }
  }

  /** A ledger failure after the decision names it, so the audit record can be corrected. */
  failed(error: unknown): never {
    if (error instanceof LedgerUnavailable) error.decisionId = this.decisionId
    throw error
  }

  /** Checks the chain_hash sent (a mismatch denies) and appends the session's entry. */
  chained(result: JsonObject, recorded: string, intent: IbacStep): Soon<void> {
    if (this.request.chainHash === undefined) return this.chainOn(undefined, result, recorded, intent)
    return thenSoon(this.parts.headOf(this.ref), (head) => this.chainOn(head, result, recorded, intent))
  }

  chainOn(
    head: string | null | undefined,
    result: JsonObject,
    recorded: string,
    intent: IbacStep,
  ): Soon<void> {
    const { parts, request } = this
    const sent = request.chainHash
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
          id: this.decisionId,
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
      decision_id: this.decisionId,
      recorded_decision: chainedDecision,
    }
    if (Object.keys(intent.entryFields).length > 0) step.fields = intent.entryFields
    const extension = result.decision !== 'deny' ? parts.ibac.extensionEntry(intent) : undefined
    // §9.1: an approver's grant is its own ContextEntry, before the step it let through.
    const appended = extension
      ? appendAfter(
          parts.appendEntry,
          this.ref,
          { ...step, step_type: 'intent_extension', fields: extension },
          step,
        )
      : parts.appendEntry(this.ref, step)
    if (typeof appended === 'string') {
      result.chain_hash = appended
      return undefined
    }
    return appended.then((hash) => {
      result.chain_hash = hash
    })
  }
}
