// `warden check`'s answer in Claude Code's hook output shape. On PreToolUse it never grants
// more than the user's own hooks would: `permissionDecision: "allow"` only when a hook said
// so in Claude Code's words, `ask` when a hook asked, and otherwise no decision at all, so
// Claude Code applies its own permission mode (and its prompt) as it would without Warden.

import { type ApprovalRequest, type Decision, eventInfo, type JsonObject } from '../core/index.js'

/**
 * A decision as Claude Code hook output. `asked` holds the approval requests a PreToolUse
 * chain raised: then the answer is `permissionDecision: "ask"`, for Claude Code to ask its
 * user. A modify passes its `updatedInput`; without a permission decision Claude Code
 * still runs its own permission check on the rewritten input.
 */
export function toClaudeOutput(decision: Decision, asked: readonly ApprovalRequest[] = []): JsonObject {
  const specific: JsonObject = { hookEventName: eventInfo(decision.event).claudeName ?? decision.event }
  if (decision.event === 'tool.pre') toolPreOutput(decision, asked, specific)
  if (decision.event === 'tool.post' && decision.decision === 'modify') {
    const tool = decision.payload?.tool
    if (tool && typeof tool === 'object' && !Array.isArray(tool) && tool.output !== undefined) {
      specific.updatedToolOutput = tool.output
    }
  }
  if (decision.additionalContext.length > 0)
    specific.additionalContext = decision.additionalContext.join('\n')
  const output: JsonObject = { hookSpecificOutput: specific }
  if (decision.decision === 'deny' && decision.event !== 'tool.pre') {
    output.decision = 'block'
    output.reason = decision.reason
  }
  return output
}

/** Fills in the PreToolUse fields: a permission decision only when a hook made one. */
function toolPreOutput(decision: Decision, asked: readonly ApprovalRequest[], specific: JsonObject): void {
  if (decision.decision === 'deny') {
    specific.permissionDecision = 'deny'
    specific.permissionDecisionReason = decision.reason
    return
  }
  if (asked.length > 0) {
    specific.permissionDecision = 'ask'
    specific.permissionDecisionReason = asked.flatMap((r) => r.asks.map((a) => a.reason)).join('; ')
  } else {
    const granting = decision.trace.filter(
      (t) => t.explicitAllow === true && t.error === undefined && !t.shadow,
    )
    if (granting.length > 0) {
      specific.permissionDecision = 'allow'
      specific.permissionDecisionReason = granting
        .map((t) => t.reason ?? `hook "${t.hook}" allowed the call`)
        .join('; ')
    }
  }
  const tool = decision.payload?.tool
  if (decision.decision === 'modify' && tool && typeof tool === 'object' && !Array.isArray(tool)) {
    specific.updatedInput = tool.input ?? {}
  }
}
