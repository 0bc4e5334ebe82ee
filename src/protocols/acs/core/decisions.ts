// Warden decisions as ACS decision results (§6): the five dispositions with their required
// fields, `modifications` as disjoint redactions and overrides (or `modified_content` for a
// rewritten message), the §9.2 ASK substitution, DEFER from hooks that answer "not yet",
// `reason_codes`, `policy_references` and `metadata.evaluator`.

import type { Decision, Json, JsonObject } from '../../../core/index.js'

/** Settings of {@link decisionResult}. */
export interface DecisionSettings {
  evaluatorVersion: string
  /** How long a DEFER waits before `timeout_decision` applies, in ms. */
  deferTimeoutMs: number
  /** Whether this method may be denied (audit-only hooks cannot be, hooks.md). */
  denyEligible: boolean
  /** Whether the session already used up its deferrals (§6: bounded per session). */
  deferralsExhausted: boolean
}

/** The DEFER reasons the spec names (§6). */
export const DEFER_REASONS = [
  'insufficient_context',
  'conflicting_policies',
  'low_confidence',
  'pending_dependency',
]

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}

/**
 * The structured edits turning `before` into `after`: removed fields as `redactions` (JSON
 * pointers) and changed or added fields as `parameter_overrides` (pointer → value). The
 * paths are leaves of one walk, so they are disjoint as §6.3 requires.
 */
export function structuredEdits(
  before: Json,
  after: Json,
  path = '',
): { redactions: string[]; overrides: JsonObject } {
  const out = { redactions: [] as string[], overrides: {} as JsonObject }
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      const at = `${path}/${escapePointer(key)}`
      if (!(key in after)) out.redactions.push(at)
      else {
        const inner = structuredEdits(before[key] as Json, after[key] as Json, at)
        out.redactions.push(...inner.redactions)
        Object.assign(out.overrides, inner.overrides)
      }
    }
    for (const key of Object.keys(after)) {
      if (!(key in before)) out.overrides[`${path}/${escapePointer(key)}`] = after[key] as Json
    }
    return out
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.overrides[path === '' ? '/' : path] = after
  return out
}

/** `modifications` for a modified payload; a message whose content became a string uses `modified_content`. */
export function modificationsFor(original: JsonObject, modified: JsonObject): JsonObject {
  for (const key of ['message', 'content']) {
    if (
      typeof modified[key] === 'string' &&
      modified[key] !== original[key] &&
      typeof original[key] !== 'string'
    ) {
      return { modified_content: modified[key] as string }
    }
  }
  const edits = structuredEdits(original, modified)
  const result: JsonObject = {}
  if (edits.redactions.length > 0) result.redactions = edits.redactions.map((path) => ({ path }))
  if (Object.keys(edits.overrides).length > 0) result.parameter_overrides = edits.overrides
  return result
}

function policyReferences(decision: Decision): JsonObject[] {
  const refs: JsonObject[] = []
  for (const trace of decision.trace) {
    if (!trace.policy || trace.outcome === 'skipped' || trace.shadow) continue
    const ref: JsonObject = { policy_id: trace.policy.id, policy_name: trace.hook, rule_id: trace.id }
    if (trace.policy.version !== undefined) ref.policy_version = trace.policy.version
    refs.push(ref)
  }
  return refs
}

/** The DEFER reason a hook asked for with a `defer` / `defer:<reason>` reason code. */
export function deferReason(decision: Decision): string | undefined {
  if (decision.decision !== 'deny') return undefined
  for (const code of decision.reasonCode) {
    if (code === 'defer') return 'pending_dependency'
    if (code.startsWith('defer:')) {
      const reason = code.slice(6)
      return DEFER_REASONS.includes(reason) ? reason : 'pending_dependency'
    }
  }
  return undefined
}

/**
 * The ACS result fields for a decision on a payload. `payloadAfter` is the modified ACS
 * payload when the decision is modify.
 */
export function decisionResult(
  decision: Decision,
  original: JsonObject,
  payloadAfter: JsonObject | undefined,
  settings: DecisionSettings,
): JsonObject {
  const result: JsonObject = { type: 'final', decision: decision.decision }
  const codes = decision.reasonCode.filter((c) => c !== 'defer' && !c.startsWith('defer:'))
  let reasoning = decision.reason
  const deferred = deferReason(decision)
  if (decision.approval?.outcome === 'unavailable') {
    // §9.2: no approver can take this ASK, and nothing else will resolve it.
    result.decision = 'deny'
    codes.unshift('approver_unavailable')
    reasoning = `${decision.reason} (approval capability missing: no approver is configured for this Guardian)`
  } else if (deferred !== undefined && settings.denyEligible) {
    if (settings.deferralsExhausted) {
      codes.unshift('defer_limit')
      reasoning = `${decision.reason}; this session reached its limit of deferrals, so the action is denied`
    } else {
      result.decision = 'defer'
      result.defer_details = {
        reason: deferred,
        resolution_method: 'retry',
        resolution_timeout_ms: settings.deferTimeoutMs,
        timeout_decision: 'deny',
      }
    }
  } else if (decision.decision === 'modify' && payloadAfter !== undefined) {
    const modifications = modificationsFor(original, payloadAfter)
    if (Object.keys(modifications).length === 0) result.decision = 'allow'
    else result.modifications = modifications
  } else if (decision.decision === 'modify') {
    result.decision = 'allow'
  }
  if (result.decision === 'deny' && !settings.denyEligible) {
    // Audit-only hooks (turnEnd, sessionEnd, postCompact, ...) cannot be denied.
    result.decision = 'allow'
    codes.unshift('deny_not_eligible')
    reasoning = `${reasoning}; recorded only, this hook is not decision-eligible`
  }
  if (result.decision !== 'allow' || decision.decision !== 'allow') result.reasoning = reasoning
  else if (decision.trace.length > 0) result.reasoning = reasoning
  if (codes.length > 0) result.reason_codes = codes
  const refs = policyReferences(decision)
  if (refs.length > 0) result.policy_references = refs
  const policyData: JsonObject = { warden: { decision_id: decision.id, event: decision.event } }
  if (decision.approval)
    (policyData.warden as JsonObject).approval = decision.approval as unknown as JsonObject
  if (decision.additionalContext.length > 0)
    (policyData.warden as JsonObject).additional_context = decision.additionalContext
  result.policy_data = policyData
  result.metadata = {
    evaluator: 'deterministic',
    evaluator_version: settings.evaluatorVersion,
    evaluation_duration_ms: Math.round(decision.durationMs * 1000) / 1000,
  }
  return result
}
