// The short form of a stored decision the decisions list shows: who (tenant, agent, session),
// what (event, tool or method, a one-line preview of its input), the outcome and the hooks
// that decided it. The preview is cut short so that a page of rows stays small.

import type { DecisionRow } from '../../store/index.js'

/** Characters of input a list row previews. */
export const PREVIEW_CHARS = 160

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One line: whitespace runs become one space, the rest cut at {@link PREVIEW_CHARS}. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat
}

/** What the event was about, on one line: the tool input, message text or method params. */
export function inputPreview(input: unknown): string | undefined {
  const payload = isObject(input) && isObject(input.payload) ? input.payload : undefined
  if (!payload) return undefined
  const pick = (): unknown => {
    if (isObject(payload.tool)) return payload.tool.input
    if (isObject(payload.message)) return payload.message.text
    if (isObject(payload.mcp) && isObject(payload.mcp.message)) return payload.mcp.message.params
    if (isObject(payload.a2a)) return payload.a2a.payload
    return payload
  }
  const value = pick()
  if (value === undefined || value === null) return undefined
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  // Long inputs are cut before the whitespace pass, so a huge payload costs little.
  return oneLine(text.slice(0, PREVIEW_CHARS * 4))
}

/** A decision as one row of `decisions.list`. */
export function decisionListView(r: DecisionRow): Record<string, unknown> {
  const preview = inputPreview(r.input)
  return {
    id: r.id,
    at: r.createdAt,
    tenant: r.tenant,
    agentId: r.agentId,
    sessionId: r.sessionId,
    event: r.event,
    ...(r.tool ? { tool: r.tool } : {}),
    ...(preview ? { preview } : {}),
    decision: r.decision,
    reason: r.reason,
    reasonCode: r.reasonCode,
    durationMs: r.durationMs,
    blocking: r.blocking,
    decidingHooks: r.decidingHooks,
  }
}
