// The checks of the A2A gateway: a request is its operation's event (`a2a.send`, ...)
// before it leaves, with push-notification URLs under the SSRF policy (registered as the
// last hook of the events that carry them, so a refusal is an audited deny); every answer and
// streamed event is `a2a.response` before it is passed on; the agent card is `a2a.card`.
// Requests and answers are seen as A2A JSON-RPC messages (see payload.ts). Before the hooks,
// and again on what a modify leaves, each request and answer is read strictly (shapes.ts:
// field types, part kinds, answer kinds) and held to the caller's tenant (tenancy.ts); a type
// the operator lets through is named in the event (`a2a.unchecked`) and logged. Each check
// answers what to forward (as modified) or the refusal to send instead.

import {
  type Decision,
  type Engine,
  type EventContext,
  type EventName,
  type Json,
  type JsonObject,
  type ModifyCheck,
  type OnCallerGone,
  type Recorder,
  withArticle,
} from '../../core/index.js'
import { LET_THROUGH_CODE, letThroughRecorder, type UnknownTypePolicy } from '../kit/index.js'
import { A2A_DEFAULTS, type A2aLimits } from './limits.js'
import type { A2aMethodInfo, A2aOperation } from './methods.js'
import {
  type Caller,
  callContext,
  isObject,
  modifiedParams,
  modifiedResult,
  type RpcId,
  requestPayload,
  responseKind,
  responsePayload,
  rpcRequest,
  rpcResponse,
  sameKind,
  type Target,
} from './payload.js'
import { type PushUrlPolicy, pushPolicyHooks } from './push-policy.js'
import { answerShape, requestShape, type ShapeVerdict } from './shapes.js'
import { a2aUnknownTypePolicy } from './tables.js'
import { contextTenant, TaskTenants, tenancyHooks } from './tenancy.js'
import { denial, invalid, type Refusal, RPC_INVALID_PARAMS, refusedBy } from './wire.js'

/** What the checks need. */
export interface A2aChecksOptions {
  engine: Engine
  /** Added to every event's context (agent, tenant). */
  context?: EventContext
  pushPolicy: PushUrlPolicy
  /** `maxTrackedTasks` and `allowUnknownTypes` (default: none let through). */
  limits?: Pick<A2aLimits, 'maxTrackedTasks' | 'allowUnknownTypes'>
  log?: (line: string) => void
}

/** The reason code an event carries when an unknown type was let through unchecked. */
export const LET_THROUGH_REASON_CODE = LET_THROUGH_CODE

/** A checked request: forward these params, or answer the refusal. */
export type RequestCheck =
  | { ok: true; params: JsonObject; context: EventContext }
  | { ok: false; refusal: Refusal }

/** A checked answer or event: forward this value, or answer the refusal. */
export type ResponseCheck = { ok: true; value: Json } | { ok: false; refusal: Refusal }

const RESPONSE_EVENT: EventName = 'a2a.response'
const CARD_EVENT: EventName = 'a2a.card'
const NO_CARD = 'the modified payload has no a2a.card object to serve'

/** The checks of one gateway. */
export class A2aChecks {
  private readonly log: (line: string) => void
  private readonly policy: UnknownTypePolicy
  /** Task ids and their tenants. */
  readonly tasks: TaskTenants

  constructor(private readonly options: A2aChecksOptions) {
    this.log = options.log ?? (() => undefined)
    const limits = options.limits ?? A2A_DEFAULTS
    this.tasks = new TaskTenants(limits.maxTrackedTasks)
    this.policy = a2aUnknownTypePolicy(limits.allowUnknownTypes, (key) =>
      this.log(
        `security: ${LET_THROUGH_REASON_CODE} ${key}: an unknown type passed unchecked (a2a.allowUnknownTypes)`,
      ),
    )
    for (const hook of pushPolicyHooks(options.pushPolicy)) options.engine.register(hook, { replace: true })
    for (const hook of tenancyHooks(this.tasks)) options.engine.register(hook, { replace: true })
  }

  /**
   * Checks a request before it leaves for the upstream; `id` is the JSON-RPC id the event's
   * `a2a.payload` carries, `requestId` the context's.
   */
  async request(
    info: A2aMethodInfo,
    method: string,
    id: RpcId,
    params: JsonObject,
    caller: Caller,
    target: Target,
    requestId: string,
    onCallerGone?: OnCallerGone,
  ): Promise<RequestCheck> {
    const context = callContext(this.options.context ?? {}, caller, target, params, requestId)
    const shape = this.requestProblem(info.operation, params, method)
    if (!shape.ok) return shape
    let current = params
    if (info.operation !== 'extendedCard') {
      const original = rpcRequest(id, method, params)
      const payload = withUnchecked(requestPayload(method, id, params, caller, target), shape.letThrough)
      const decision = await this.dispatch(
        info.event,
        payload,
        context,
        (modifiedPayload) => {
          const modified = modifiedParams({ payload: modifiedPayload }, original)
          if (!modified.ok) return modified.error
          const again = requestShape(info.operation, modified.value, this.policy)
          if (!again.ok) return `the modified params: ${again.reason}`
          return this.tasks.requestProblem(info.operation, modified.value, contextTenant(context))
        },
        onCallerGone,
      )
      if (decision.decision === 'deny') return { ok: false, refusal: this.denied(method, decision) }
      if (decision.decision === 'modify') {
        const modified = modifiedParams(decision, original)
        if (!modified.ok) return { ok: false, refusal: this.refused(method, modified.error) }
        current = modified.value
      }
    }
    return { ok: true, params: current, context }
  }

  /** The request's shape, before any hook (its tenancy is the first hook: see tenancyHooks). */
  private requestProblem(
    operation: A2aOperation,
    params: JsonObject,
    method: string,
  ): { ok: true; letThrough: string[] } | { ok: false; refusal: Refusal } {
    const shape = requestShape(operation, params, this.policy)
    if (!shape.ok) {
      this.log(`refused ${method}: ${shape.reason}`)
      return { ok: false, refusal: invalid(RPC_INVALID_PARAMS, `Refused by Warden: ${shape.reason}`) }
    }
    return shape
  }

  /** Checks an answer or one streamed event (the `result` of response `id`) as `a2a.response`. */
  async response(
    call: { method: string; operation: A2aOperation; caller: Caller },
    id: RpcId,
    answer: Json,
    context: EventContext,
    target: Target,
  ): Promise<ResponseCheck> {
    const { method, operation } = call
    const tenant = contextTenant(context)
    const what = `the answer to ${method}`
    const value = operation === 'list' ? this.tasks.filterList(answer, tenant) : answer
    const shape = this.answerProblem(operation, value, tenant)
    if (!shape.ok) return { ok: false, refusal: this.refused(what, shape.reason) }
    const kind = responseKind(value).kind
    const original = rpcResponse(id, value)
    const check = (payload: JsonObject): string | undefined => {
      const modified = modifiedResult({ payload }, original)
      if (!modified.ok) return modified.error
      if (!sameKind(value, modified.value))
        return `a modify may not turn ${withArticle(kind)} into another kind of answer`
      const again = this.answerProblem(operation, modified.value, tenant)
      return again.ok ? undefined : `the modified answer: ${again.reason}`
    }
    const decision = await this.dispatch(
      RESPONSE_EVENT,
      withUnchecked(responsePayload(method, id, kind, value, target), shape.letThrough),
      context,
      check,
    )
    if (decision.decision === 'deny') return { ok: false, refusal: this.denied(what, decision) }
    if (decision.decision !== 'modify') return { ok: true, value }
    const modified = modifiedResult(decision, original)
    if (!modified.ok) return { ok: false, refusal: this.refused(what, modified.error) }
    return { ok: true, value: modified.value }
  }

  /** Checks the agent card given to a client (hooks may hide or rewrite skills). */
  async card(card: JsonObject, context: EventContext, target: Target): Promise<ResponseCheck> {
    const payload: JsonObject = {
      a2a: { method: 'agentCard', card, to: { agent: { name: target.name, url: target.url } } },
    }
    const decision = await this.dispatch(CARD_EVENT, payload, context, (modified) =>
      isObject(modified.a2a) && isObject(modified.a2a.card) ? undefined : NO_CARD,
    )
    if (decision.decision === 'deny') return { ok: false, refusal: this.denied('the agent card', decision) }
    if (decision.decision !== 'modify') return { ok: true, value: card }
    const a2a = decision.payload?.a2a
    if (!isObject(a2a) || !isObject(a2a.card)) {
      return { ok: false, refusal: refusedBy(NO_CARD) }
    }
    return { ok: true, value: a2a.card }
  }

  /** An answer's shape, then its tenancy (binding the task it reveals to the caller's tenant). */
  private answerProblem(operation: A2aOperation, value: Json, tenant: string): ShapeVerdict {
    const shape = answerShape(operation, value, this.policy)
    if (!shape.ok) return shape
    const tenancy = operation === 'list' ? undefined : this.tasks.answerProblem(value, tenant)
    return tenancy ? { ok: false, reason: tenancy } : shape
  }

  private dispatch(
    event: EventName,
    payload: JsonObject,
    context: EventContext,
    acceptModify?: ModifyCheck,
    onCallerGone?: OnCallerGone,
  ): Promise<Decision> {
    return this.options.engine.dispatch({
      event,
      payload,
      context,
      ...(acceptModify ? { acceptModify } : {}),
      ...(onCallerGone ? { onCallerGone } : {}),
    })
  }

  private refused(what: string, reason: string): Refusal {
    this.log(`denied ${what}: ${reason}`)
    return refusedBy(reason)
  }

  private denied(what: string, decision: Decision): Refusal {
    this.log(`denied ${what}: ${decision.reason}`)
    return denial(decision, what)
  }
}

/** A recorder that adds the let-through reason codes to the records of calls naming `a2a.unchecked` keys. */
export function a2aLetThroughRecorder(next: Recorder): Recorder {
  return letThroughRecorder(next, (record) => {
    const a2a = record.event.payload.a2a
    const unchecked = isObject(a2a) ? a2a.unchecked : undefined
    const keys = isObject(unchecked) ? unchecked.keys : undefined
    return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : []
  })
}

/** The payload naming the unknown types let through unchecked (`a2a.unchecked`), for the audit. */
function withUnchecked(payload: JsonObject, keys: string[]): JsonObject {
  if (keys.length === 0) return payload
  const a2a = payload.a2a as JsonObject
  a2a.unchecked = { reasonCode: LET_THROUGH_REASON_CODE, keys: [...new Set(keys)] }
  return payload
}
