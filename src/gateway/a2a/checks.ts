// The checks of the A2A gateway: a request is its operation's event (`a2a.send`, ...)
// before it leaves, with push-notification URLs under the SSRF policy (registered as the
// last hook of the events that carry them, so a refusal is an audited deny); every answer and
// streamed event is `a2a.response` before it is passed on; the agent card is `a2a.card`.
// Requests and answers are seen as A2A JSON-RPC messages (see payload.ts). Each check
// answers what to forward (as modified) or the refusal to send instead.

import {
  type Decision,
  type Engine,
  type EventContext,
  type EventName,
  type Json,
  type JsonObject,
  type ModifyCheck,
  withArticle,
} from '../../core/index.js'
import type { A2aMethodInfo } from './methods.js'
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
import { denial, type Refusal, refusedBy } from './wire.js'

/** What the checks need. */
export interface A2aChecksOptions {
  engine: Engine
  /** Added to every event's context (agent, tenant). */
  context?: EventContext
  pushPolicy: PushUrlPolicy
  log?: (line: string) => void
}

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

  constructor(private readonly options: A2aChecksOptions) {
    this.log = options.log ?? (() => undefined)
    for (const hook of pushPolicyHooks(options.pushPolicy)) options.engine.register(hook, { replace: true })
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
  ): Promise<RequestCheck> {
    const context = callContext(this.options.context ?? {}, caller, target, params, requestId)
    let current = params
    if (info.operation !== 'extendedCard') {
      const original = rpcRequest(id, method, params)
      const decision = await this.dispatch(
        info.event,
        requestPayload(method, id, params, caller, target),
        context,
        (payload) => refusal(modifiedParams({ payload }, original)),
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

  /** Checks an answer or one streamed event (the `result` of response `id`) as `a2a.response`. */
  async response(
    method: string,
    id: RpcId,
    value: Json,
    context: EventContext,
    target: Target,
  ): Promise<ResponseCheck> {
    const kind = responseKind(value).kind
    const original = rpcResponse(id, value)
    const check = (payload: JsonObject): string | undefined => {
      const modified = modifiedResult({ payload }, original)
      if (!modified.ok) return modified.error
      if (!sameKind(value, modified.value))
        return `a modify may not turn ${withArticle(kind)} into another kind of answer`
      return undefined
    }
    const decision = await this.dispatch(
      RESPONSE_EVENT,
      responsePayload(method, id, kind, value, target),
      context,
      check,
    )
    const what = `the answer to ${method}`
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

  private dispatch(
    event: EventName,
    payload: JsonObject,
    context: EventContext,
    acceptModify?: ModifyCheck,
  ): Promise<Decision> {
    return this.options.engine.dispatch(
      acceptModify ? { event, payload, context, acceptModify } : { event, payload, context },
    )
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

/** The reason a checked modify is refused, or undefined when it can be applied. */
function refusal(modified: { ok: true } | { ok: false; error: string }): string | undefined {
  return modified.ok ? undefined : modified.error
}
