// Turning a chain's result into the final decision (precedence deny > ask > modify >
// allow, with held asks resolved by the approver) and rendering decisions as reminder
// text that an agent feeds the model on its next turn.

import type { ChainResult } from './chain.js'
import type { Decision, DecisionKind, HookTrace } from './decision.js'
import { errorMessage } from './errors.js'
import type { CheckedEvent, JsonObject, OnCallerGone } from './events.js'

/** What an approver is asked. */
export interface ApprovalRequest {
  decisionId: string
  event: CheckedEvent
  /** The hooks that asked, with their reasons. */
  asks: { hook: string; reason: string }[]
  timeoutMs: number
  /** Aborted when the approval times out. */
  signal: AbortSignal
  /** Registers a listener for the caller going away, when the dispatch could tell. */
  onCallerGone?: OnCallerGone
}

/** A human's (or a program's) answer to an approval request. */
export type ApprovalAnswer =
  | { outcome: 'approve'; by?: string; reason?: string }
  | { outcome: 'reject'; by?: string; reason?: string }
  | { outcome: 'edit'; payload: JsonObject; by?: string; reason?: string }

/** Resolves held asks. */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer> | ApprovalAnswer

/** A decision without what the engine adds itself (id, event, timing, trace). */
export type DecisionCore = Omit<Decision, 'id' | 'event' | 'durationMs' | 'blocking' | 'trace'>

/** Composes the final decision from a chain result (asks are resolved by {@link resolveAsk}). */
export function compose(result: ChainResult): DecisionCore {
  if (result.denied) {
    const { hook, verdict } = result.denied
    return core(
      result,
      'deny',
      verdict.reason ?? `denied by hook "${hook.name}"`,
      verdict.reasonCode ?? [hook.policy?.id ?? hook.name],
    )
  }
  if (result.modified) {
    const decision = core(
      result,
      'modify',
      `modified by ${result.modifiers.map((h) => `hook "${h.name}"`).join(', ')}`,
      result.modifiers.map((h) => h.policy?.id ?? h.name),
    )
    decision.payload = result.payload
    return decision
  }
  let ran = 0
  for (const t of result.trace) if (t.outcome !== 'skipped') ran++
  const failedOpen = failedOpenAllow(result.trace)
  if (failedOpen) return core(result, 'allow', failedOpen.reason, failedOpen.reasonCode)
  const reason =
    ran === 0
      ? 'no hook applied to this event'
      : ran === 1
        ? 'allowed: 1 hook raised no objection'
        : `allowed: ${ran} hooks raised no objection`
  return core(result, 'allow', reason, [])
}

/**
 * The reason of an allow that a failed hook let through (its onTimeout / onError allow, or a
 * remote Guardian's onDecisionFailure: proceed), so the decision itself says it failed open.
 */
function failedOpenAllow(trace: readonly HookTrace[]): { reason: string; reasonCode: string[] } | undefined {
  let reasons: string[] | undefined
  let hooks: string[] | undefined
  for (const t of trace) {
    if (t.outcome !== 'allow' || !t.error || t.shadow) continue
    reasons ??= []
    hooks ??= []
    reasons.push(
      `hook "${t.hook}" failed (${t.error.kind}: ${t.error.message.slice(0, 300)}) and its failure policy allows`,
    )
    hooks.push(t.policy?.id ?? t.hook)
  }
  if (!reasons || !hooks) return undefined
  return {
    reason: `allowed, failing open: ${reasons.join('; ')}`,
    reasonCode: ['decision_failure', ...hooks],
  }
}

/** Builds a decision core field by field (object spread is a slow path in V8 here). */
function core(
  result: ChainResult,
  decision: DecisionKind,
  reason: string,
  reasonCode: string[],
): DecisionCore {
  return {
    decision,
    reason,
    reasonCode,
    additionalContext: result.additionalContext,
    policies: result.policies,
  }
}

/**
 * A waited-for non-blocking decision: what the hooks said, but never a denial — unless a
 * hook that blocks at home (`blocks: true`) denied, which made the decision blocking.
 */
export function cannotBlock(decision: Decision): Decision {
  if (decision.decision === 'allow' || decision.blocking) return decision
  const said = decision.reason ? `: ${decision.reason}` : ''
  const allowed: Decision = {
    ...decision,
    decision: 'allow',
    reason: `${decision.event} cannot block; its hooks answered ${decision.decision}${said}`,
  }
  delete allowed.payload
  delete allowed.approval
  return allowed
}

/**
 * Resolves the asks of a chain that did not deny, by the approver within the timeout.
 * Without an approver, on timeout or when the approver fails, the answer is deny.
 */
export async function resolveAsk(
  result: ChainResult,
  event: CheckedEvent,
  decisionId: string,
  approver: Approver | undefined,
  timeoutMs: number,
): Promise<DecisionCore & { approval: NonNullable<Decision['approval']> }> {
  const asks = result.asks.map((a) => ({ hook: a.hook.name, reason: a.reason }))
  const askers = result.asks.map((a) => a.hook.policy?.id ?? a.hook.name)
  const summary = asks.map((a) => `hook "${a.hook}" asks: ${a.reason}`).join('; ')
  const base = { additionalContext: result.additionalContext, policies: result.policies }
  const denied = (reason: string, approval: NonNullable<Decision['approval']>) => ({
    ...base,
    decision: 'deny' as const,
    reason,
    reasonCode: askers,
    approval,
  })
  if (!approver) {
    return denied(`${summary}; no approver is configured, so the action is denied`, {
      outcome: 'unavailable',
    })
  }
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs)
  })
  let answer: ApprovalAnswer | 'timeout'
  try {
    const { onCallerGone, acceptModify: _check, ...rest } = event
    const pending = { ...rest, payload: result.payload }
    const request: ApprovalRequest = {
      decisionId,
      event: pending,
      asks,
      timeoutMs,
      signal: controller.signal,
    }
    if (onCallerGone) request.onCallerGone = onCallerGone
    answer = await Promise.race([Promise.resolve().then(() => approver(request)), timeout])
  } catch (error) {
    return denied(`${summary}; the approver failed (${errorMessage(error)}), so the action is denied`, {
      outcome: 'unavailable',
    })
  } finally {
    clearTimeout(timer)
  }
  if (answer === 'timeout') {
    controller.abort(new Error('approval timed out'))
    return denied(`${summary}; no approval within ${timeoutMs} ms, so the action is denied`, {
      outcome: 'timeout',
    })
  }
  const who = answer.by ? ` by ${answer.by}` : ''
  const approval = {
    outcome: 'approved' as const,
    ...(answer.by ? { by: answer.by } : {}),
    ...(answer.reason ? { reason: answer.reason } : {}),
  }
  if (answer.outcome === 'reject') {
    return denied(`${summary}; rejected${who}${answer.reason ? `: ${answer.reason}` : ''}`, {
      ...approval,
      outcome: 'rejected',
    })
  }
  if (answer.outcome === 'edit') {
    return {
      ...base,
      decision: 'modify',
      reason: `${summary}; approved with edits${who}`,
      reasonCode: askers,
      payload: answer.payload,
      approval: { ...approval, outcome: 'edited' },
    }
  }
  if (answer.outcome !== 'approve') {
    return denied(`${summary}; the approver gave an unknown answer, so the action is denied`, {
      outcome: 'unavailable',
    })
  }
  if (result.modified) {
    return {
      ...base,
      decision: 'modify',
      reason: `${summary}; approved${who}`,
      reasonCode: askers,
      payload: result.payload,
      approval,
    }
  }
  return { ...base, decision: 'allow', reason: `${summary}; approved${who}`, reasonCode: askers, approval }
}

/**
 * Renders a decision as reminder lines for the model's next turn, so it changes course
 * instead of retrying: "hook no-prod blocked the action: writes to /srv/prod are not allowed".
 */
export function renderReminders(
  decision: Pick<Decision, 'decision' | 'reason' | 'trace' | 'additionalContext'>,
): string[] {
  const lines: string[] = []
  const deciding = decision.trace.filter(
    (t: HookTrace) => !t.shadow && (t.outcome === 'deny' || t.outcome === 'modify' || t.outcome === 'ask'),
  )
  for (const t of deciding) {
    const verb =
      t.outcome === 'deny'
        ? 'blocked the action'
        : t.outcome === 'modify'
          ? 'changed the action'
          : 'asked a human to approve the action'
    lines.push(`hook ${t.hook} ${verb}${t.reason ? `: ${t.reason}` : ''}`)
  }
  if (decision.decision === 'deny' && deciding.every((t) => t.outcome !== 'deny')) {
    lines.push(`the action was blocked: ${decision.reason}`)
  }
  for (const context of decision.additionalContext) lines.push(context)
  return lines
}
