// The decision on a tool call as a ToolCall runtime resource, the way Joch reflects its
// Guardian's decisions: `result.data.toolCall` of a `steps/toolCallRequest` or
// `steps/toolCallResult` answer is `{apiVersion, kind: "ToolCall", metadata, spec, status}`,
// its status carrying the phase the decision puts the call in, the deciding policy, and a
// HookDecision for every hook that ran, allow included. Its `spec.arguments` echoes the
// call's arguments only while the payload is small: a large one (over
// TOOL_CALL_ECHO_LIMIT_BYTES) is not serialised and sent back to the caller who holds it,
// and `spec.argumentsOmitted` says so.

import {
  type Decision,
  type Json,
  type JsonObject,
  knownPayloadBytes,
  payloadBytes,
} from '../../core/index.js'
import { isObject } from './fields.js'

/** The API version of the resource. */
export const TOOL_CALL_API_VERSION = 'warden.dev/v1'

/** Above this payload size (bytes of JSON) the arguments are not echoed in `spec`. */
export const TOOL_CALL_ECHO_LIMIT_BYTES = 64 * 1024

/** The phase a final AOS decision puts a tool call in, before it runs and after. */
function phaseOf(event: string, decision: string): string {
  if (event === 'tool.post') return decision === 'deny' ? 'ResultBlocked' : 'Completed'
  if (decision === 'deny') return 'Denied'
  return decision === 'modify' ? 'Modified' : 'Allowed'
}

/**
 * The ToolCall resource of a tool event's decision, or undefined for other events.
 * @param final the AOS decision answered (a modify AOS cannot express is answered deny)
 */
export function toolCallResource(
  decision: Decision,
  payload: JsonObject,
  final: string,
): JsonObject | undefined {
  if (decision.event !== 'tool.pre' && decision.event !== 'tool.post') return undefined
  const tool = isObject(payload.tool) ? payload.tool : {}
  const metadata: JsonObject = { uid: decision.id }
  if (typeof tool.id === 'string') metadata.name = tool.id
  const spec: JsonObject = { tool: typeof tool.name === 'string' ? tool.name : '' }
  // Measured at dispatch when a hook applied; measured here only when none did.
  const bytes = knownPayloadBytes(payload) ?? payloadBytes(payload, TOOL_CALL_ECHO_LIMIT_BYTES)
  if (bytes > TOOL_CALL_ECHO_LIMIT_BYTES) spec.argumentsOmitted = true
  else spec.arguments = tool.input ?? {}
  const hookDecisions: Json[] = []
  for (const step of decision.trace) {
    if (step.outcome === 'skipped') continue
    const entry: JsonObject = { hook: step.hook, decision: step.outcome, durationMs: step.durationMs }
    if (step.reason !== undefined) entry.reason = step.reason
    if (step.policy) {
      entry.policyId = step.policy.id
      if (step.policy.version !== undefined) entry.policyVersion = step.policy.version
    }
    if (step.shadow) entry.shadow = true
    hookDecisions.push(entry)
  }
  const status: JsonObject = {
    phase: phaseOf(decision.event, final),
    decision: final,
    reason: decision.reason,
    decisionId: decision.id,
    hookDecisions,
  }
  const policy = decision.policies[0]
  if (policy) {
    status.policyId = policy.id
    if (policy.version !== undefined) status.policyVersion = policy.version
  }
  return { apiVersion: TOOL_CALL_API_VERSION, kind: 'ToolCall', metadata, spec, status }
}
