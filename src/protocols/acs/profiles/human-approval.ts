// The human approver type (§9) for IBAC: a request outside the session's Intent, with no
// configured agent or service approver that may grant it, is held by Warden and put to the
// management plane's approvers (the UI, `/ws`, `warden approvals`) like a hook's ask. An
// approval is a `this_request` grant by that person; a rejection, an edit (an Intent grant
// has nothing to edit), a timeout or a failing approver refuse the request.

import type { Approver, CheckedEvent, OnCallerGone } from '../../../core/index.js'
import { errorMessage } from '../../../core/index.js'
import type { ApprovalOutcome } from './approver.js'

/** What the held request is, for the approver. */
export interface HumanHold {
  decisionId: string
  event: CheckedEvent
  onCallerGone?: OnCallerGone
}

function refused(code: string, reasoning: string): ApprovalOutcome {
  return { refused: { codes: [code, 'ibac_intent_mismatch'], reasoning } }
}

/**
 * Puts a request outside the Intent to the human approver and waits up to `timeoutMs`.
 * Never throws: a failure is a refusal naming it.
 */
export async function askHuman(
  approver: Approver,
  hold: HumanHold,
  ask: { capability: string; reason: string; stepId: string; timeoutMs: number },
): Promise<ApprovalOutcome> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ask.timeoutMs)
  })
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() =>
        approver({
          decisionId: hold.decisionId,
          event: hold.event,
          asks: [{ hook: 'acs-intent', reason: `${ask.reason}; approve to let this request use it once` }],
          timeoutMs: ask.timeoutMs,
          signal: controller.signal,
          ...(hold.onCallerGone ? { onCallerGone: hold.onCallerGone } : {}),
        }),
      ),
      timeout,
    ])
    if (answer === 'timeout') {
      controller.abort(new Error('approval timed out'))
      return refused('approval_timeout', `${ask.reason}; no approval within ${ask.timeoutMs} ms`)
    }
    const who = answer.by ?? 'management'
    if (answer.outcome === 'reject') {
      const why = answer.reason ? `: ${answer.reason}` : ''
      return refused('approver_denied', `${ask.reason}; rejected by ${who}${why}`)
    }
    if (answer.outcome !== 'approve') {
      return refused(
        'approver_denied',
        `${ask.reason}; an edit cannot be applied to an Intent grant, so the request is refused (approve or reject it)`,
      )
    }
    return {
      granted: {
        capabilities: [ask.capability],
        scope: 'this_request',
        approver: { id: who, type: 'human' },
        origin_step_id: ask.stepId,
        provenance: { origin: 'user_input', source_id: `approver:${who}` },
      },
    }
  } catch (error) {
    return refused('approver_unavailable', `${ask.reason}; the approver failed (${errorMessage(error)})`)
  } finally {
    clearTimeout(timer)
  }
}
