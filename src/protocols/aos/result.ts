// Decisions as AOS results and back: a Warden decision becomes `{decision, message,
// reasonCode, data, modifiedRequest}` plus Joch's `reason`, `policyId` and `policyVersion`;
// a remote Guardian's answer becomes a verdict. A tool call's decision also comes as a
// ToolCall resource (tool-call.ts), as Joch reflects its decisions.

import type { Decision, HookTrace, Json, JsonObject, Verdict } from '../../core/index.js'
import { isObject } from './fields.js'
import type { RpcId, RpcRequest } from './jsonrpc.js'
import { createMappingState } from './mapping.js'
import { mapRequest, modifiedRequest } from './methods.js'
import { toolCallResource } from './tool-call.js'

/** The hook whose verdict decided: the denier, else the first modifier. */
function decidingTrace(decision: Decision): HookTrace | undefined {
  if (decision.decision === 'deny') return decision.trace.find((t) => t.outcome === 'deny' && !t.shadow)
  if (decision.decision === 'modify') return decision.trace.find((t) => t.outcome === 'modify' && !t.shadow)
  return undefined
}

/**
 * `result.data`: the decision id, the per-hook trace and the deciding policy. The values
 * hooks matched (`redact`) stay out: they are what the hooks redacted.
 */
function resultData(decision: Decision): JsonObject {
  const data: JsonObject = {
    decisionId: decision.id,
    event: decision.event,
    durationMs: Math.round(decision.durationMs * 1000) / 1000,
    trace: decision.trace.map(({ redact: _matched, ...rest }) => rest) as unknown as Json[],
  }
  const policy = decidingTrace(decision)?.policy ?? decision.policies[0]
  if (policy) {
    data.policyId = policy.id
    if (policy.version !== undefined) data.policyVersion = policy.version
  }
  if (decision.policies.length > 0) data.policies = decision.policies as unknown as Json[]
  if (decision.additionalContext.length > 0) data.additionalContext = decision.additionalContext
  if (decision.approval) data.approval = decision.approval as unknown as JsonObject
  return data
}

/**
 * Why a modify's payload cannot be put back into the AOS request, or undefined when it can:
 * given to the engine as the dispatch's `acceptModify`, so such a modify is recorded as the
 * deny the caller is answered.
 */
export function aosModifyProblem(
  request: RpcRequest & { id: RpcId },
  originalPayload: JsonObject,
  modified: JsonObject,
): string | undefined {
  try {
    modifiedRequest(request, originalPayload, modified)
    return undefined
  } catch (error) {
    return `the hooks modified the request into something AOS cannot express (${(error as Error).message})`
  }
}

/**
 * The AOS result for a decision on a request. A modify whose payload cannot be put back
 * into AOS shape is answered deny, with that as the reason (the engine has already
 * recorded it so when the dispatch carried {@link aosModifyProblem}).
 */
export function decisionResult(
  decision: Decision,
  request: RpcRequest & { id: RpcId },
  originalPayload: JsonObject,
): JsonObject {
  const result: JsonObject = { decision: decision.decision, message: decision.reason }
  if (decision.reasonCode.length > 0) result.reasonCode = decision.reasonCode
  result.data = resultData(decision)
  if (decision.decision === 'modify') {
    try {
      result.modifiedRequest = modifiedRequest(request, originalPayload, decision.payload ?? originalPayload)
    } catch (error) {
      result.decision = 'deny'
      result.message = `the hooks modified the request into something AOS cannot express (${(error as Error).message}), so it is denied`
      result.reasonCode = ['invalid-modify']
    }
  }
  if (result.decision === 'ask') {
    result.decision = 'deny'
    result.message = `${decision.reason}; the request was not approved`
  }
  const toolCall = toolCallResource(decision, originalPayload, String(result.decision))
  if (toolCall) (result.data as JsonObject).toolCall = toolCall
  return withJochFields(result)
}

/**
 * The fields a Joch client reads beside AOS's: `reason` (the `message`) and the deciding
 * `policyId` / `policyVersion` at the top of the result. Both AOS schemas allow extra result
 * fields, so the answer still validates against each.
 */
function withJochFields(result: JsonObject): JsonObject {
  result.reason = result.message as string
  const data = result.data as JsonObject
  if (data.policyId !== undefined) result.policyId = data.policyId
  if (data.policyVersion !== undefined) result.policyVersion = data.policyVersion
  return result
}

/** The `ping` result. */
export function pingResult(version: string): JsonObject {
  return { status: 'connected', version, timestamp: new Date().toISOString() }
}

/** Why a remote Guardian's answer could not be used. */
export class GuardianAnswerError extends Error {
  override readonly name = 'GuardianAnswerError'
}

/**
 * Turns a remote Guardian's JSON-RPC response into a verdict.
 * @throws GuardianAnswerError when the answer is an error, malformed, or for another id.
 */
export function answerToVerdict(answer: unknown, sent: RpcRequest & { id: RpcId }): Verdict {
  if (!isObject(answer))
    throw new GuardianAnswerError('the Guardian answered something other than a JSON object')
  if (answer.id !== sent.id) {
    throw new GuardianAnswerError(
      `the Guardian answered id ${JSON.stringify(answer.id)}, not ${JSON.stringify(sent.id)}`,
    )
  }
  if (isObject(answer.error)) {
    const { code, message } = answer.error
    throw new GuardianAnswerError(
      `the Guardian answered error ${String(code)}: ${String(message).slice(0, 300)}`,
    )
  }
  const result = answer.result
  if (!isObject(result)) throw new GuardianAnswerError('the Guardian answer has no result object')
  const reason = typeof result.message === 'string' ? result.message.slice(0, 2000) : undefined
  const reasonCode = Array.isArray(result.reasonCode)
    ? result.reasonCode.filter((c): c is string => typeof c === 'string')
    : undefined
  const extra = reasonCode && reasonCode.length > 0 ? { reasonCode } : {}
  switch (result.decision) {
    case 'allow':
      return reason === undefined ? { type: 'allow', ...extra } : { type: 'allow', reason, ...extra }
    case 'deny':
      return { type: 'deny', reason: reason ?? 'denied by the remote Guardian', ...extra }
    case 'modify':
      return {
        type: 'modify',
        payload: modifiedPayload(result.modifiedRequest, sent),
        ...extra,
        ...(reason ? { reason } : {}),
      }
    default:
      throw new GuardianAnswerError(
        `the Guardian answered decision ${JSON.stringify(result.decision)}; expected allow, deny or modify`,
      )
  }
}

function modifiedPayload(value: unknown, sent: RpcRequest & { id: RpcId }): JsonObject {
  if (!isObject(value))
    throw new GuardianAnswerError('the Guardian answered modify without a modifiedRequest')
  if (value.method !== sent.method) {
    throw new GuardianAnswerError(
      `the modifiedRequest is for ${JSON.stringify(value.method)}, not ${sent.method}`,
    )
  }
  if (!isObject(value.params)) throw new GuardianAnswerError('the modifiedRequest has no params object')
  try {
    const request: RpcRequest = { jsonrpc: '2.0', id: sent.id, method: sent.method, params: value.params }
    return mapRequest(request, {}, createMappingState(1)).payload
  } catch (error) {
    throw new GuardianAnswerError(
      `the modifiedRequest does not fit ${sent.method}: ${(error as Error).message}`,
    )
  }
}
