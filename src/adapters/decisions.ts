// What every adapter reads out of a Warden decision: the rewritten tool input or output,
// a held `ask` no approver resolved (so the SDK's own prompt can take it), the error an
// SDK throws on a deny, and the `<system-reminder>` text that tells the model what
// happened on its next turn.

import { type Decision, type Json, type JsonObject, renderReminders } from '../core/index.js'

/** Thrown (or put into a stream) where an SDK only understands errors: Warden denied. */
export class WardenDeniedError extends Error {
  override readonly name = 'WardenDeniedError'
  /** The decision that denied. */
  readonly decision: Decision
  constructor(decision: Decision, what = 'the action') {
    super(`Warden blocked ${what}: ${decision.reason}`)
    this.decision = decision
  }
}

/**
 * The reasons of a held `ask` that no approver resolved (the engine has none), so the
 * SDK's own permission prompt can take it; undefined for any other decision.
 */
export function pendingAsk(decision: Decision): string | undefined {
  if (decision.decision !== 'deny' || decision.approval?.outcome !== 'unavailable') return undefined
  if (decision.trace.some((t) => t.outcome === 'deny')) return undefined
  const asks = decision.trace.filter((t) => t.outcome === 'ask').map((t) => t.reason ?? `hook ${t.hook} asks`)
  return asks.length > 0 ? asks.join('; ') : undefined
}

/** What a modify of each event must carry for an adapter to apply it. */
const MODIFY_NEEDS: Record<string, { what: string; holds: (payload: JsonObject) => boolean }> = {
  'tool.pre': { what: 'tool.input as an object', holds: (p) => isObject(p.tool) && isObject(p.tool.input) },
  'tool.post': { what: 'tool.output', holds: (p) => isObject(p.tool) && Object.hasOwn(p.tool, 'output') },
  'user.message': {
    what: 'message.text as a string',
    holds: (p) => isObject(p.message) && typeof p.message.text === 'string',
  },
  'agent.response': {
    what: 'message.text as a string',
    holds: (p) => isObject(p.message) && typeof p.message.text === 'string',
  },
  'model.pre': {
    what: 'model.messages as a list',
    holds: (p) => isObject(p.model) && Array.isArray(p.model.messages),
  },
  'mcp.outbound': {
    what: 'mcp.message as an object',
    holds: (p) => isObject(p.mcp) && isObject(p.mcp.message),
  },
  'mcp.inbound': {
    what: 'mcp.message as an object',
    holds: (p) => isObject(p.mcp) && isObject(p.mcp.message),
  },
}

/**
 * A modify an adapter cannot apply, because its payload lacks what the adapter rewrites
 * (a `tool.pre` modify without `tool.input`, ...), as the deny that refuses it with the
 * cause; any other decision as it is. A modify is applied or refused, never dropped.
 */
export function refuseUnappliable(decision: Decision): Decision {
  if (decision.decision !== 'modify') return decision
  const needs = Object.hasOwn(MODIFY_NEEDS, decision.event) ? MODIFY_NEEDS[decision.event] : undefined
  if (!needs || (isObject(decision.payload) && needs.holds(decision.payload))) return decision
  return {
    ...decision,
    decision: 'deny',
    reason: `a modify of ${decision.event} without ${needs.what} cannot be applied, so it is refused (${decision.reason})`,
    reasonCode: [...decision.reasonCode, 'modify-not-applicable'],
  }
}

/** The tool input after a modify, or undefined when the decision did not change it. */
export function modifiedToolInput(decision: Decision): JsonObject | undefined {
  if (decision.decision !== 'modify') return undefined
  const tool = decision.payload?.tool
  if (!isObject(tool) || !isObject(tool.input)) return undefined
  return tool.input
}

/** The tool output after a modify, or undefined when the decision did not change it. */
export function modifiedToolOutput(decision: Decision): { output: Json } | undefined {
  if (decision.decision !== 'modify') return undefined
  const tool = decision.payload?.tool
  if (!isObject(tool) || !Object.hasOwn(tool, 'output')) return undefined
  return { output: tool.output ?? null }
}

/** The message text after a modify (user.message, agent.response), or undefined. */
export function modifiedText(decision: Decision): string | undefined {
  if (decision.decision !== 'modify') return undefined
  const message = decision.payload?.message
  return isObject(message) && typeof message.text === 'string' ? message.text : undefined
}

/** Reminder lines wrapped as one `<system-reminder>` block, or '' when there is nothing to say. */
export function systemReminder(
  decision: Pick<Decision, 'decision' | 'reason' | 'trace' | 'additionalContext'>,
): string {
  const lines = renderReminders(decision)
  return lines.length === 0 ? '' : `<system-reminder>\n${lines.join('\n')}\n</system-reminder>`
}

/**
 * {@link systemReminder} of the decision's own reason and added context, its hooks' trace
 * left out: '' (with nothing built) for a decision that neither denies nor adds context.
 */
export function contextReminder(
  decision: Pick<Decision, 'decision' | 'reason' | 'additionalContext'>,
): string {
  if (decision.decision !== 'deny' && decision.additionalContext.length === 0) return ''
  return systemReminder({ ...decision, trace: [] })
}

/** The context lines a decision added, joined, or undefined when there are none. */
export function joinedContext(decision: Decision): string | undefined {
  return decision.additionalContext.length > 0 ? decision.additionalContext.join('\n') : undefined
}

/** A value as a JSON object (tool input), or `{ value }` when it is not one. */
export function asInput(value: unknown): JsonObject {
  if (isObject(value)) return value as JsonObject
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value)
      if (isObject(parsed)) return parsed as JsonObject
    } catch {
      // not JSON: kept as a string value below
    }
  }
  return value === undefined ? {} : { value: toJson(value) }
}

/**
 * A value made JSON-safe (functions, cycles and undefined dropped): a copy, exactly as
 * `JSON.parse(JSON.stringify(value))` makes it (or the value as a string when that throws).
 * Plain objects, arrays and primitives are copied in one walk; anything else (a class
 * instance, `toJSON`, a cycle, a very deep value) takes the JSON round trip.
 */
export function toJson(value: unknown): Json {
  if (value === undefined) return null
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null)
    return value
  try {
    const copied = plainCopy(value, 0)
    if (copied !== NOT_PLAIN && copied !== undefined) return copied
  } catch {
    // a getter threw: the JSON round trip below says what that gives
  }
  try {
    return JSON.parse(JSON.stringify(value)) as Json
  } catch {
    return String(value)
  }
}

const NOT_PLAIN: unique symbol = Symbol('not plain')
const MAX_PLAIN_DEPTH = 32

/** What `JSON.parse(JSON.stringify(value))` gives, or NOT_PLAIN when the walk cannot tell. */
function plainCopy(value: unknown, depth: number): Json | undefined | typeof NOT_PLAIN {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value + 0 : null
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined
    case 'bigint':
      return NOT_PLAIN
  }
  if (value === null) return null
  if (depth >= MAX_PLAIN_DEPTH) return NOT_PLAIN
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN
  if (Array.isArray(value)) {
    const out: Json[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i], depth + 1)
      if (item === NOT_PLAIN) return NOT_PLAIN
      out[i] = item === undefined ? null : item
    }
    return out
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN
  const object = value as Record<string, unknown>
  const out: JsonObject = {}
  for (const key of Object.keys(object)) {
    if (key === '__proto__') return NOT_PLAIN
    const item = plainCopy(object[key], depth + 1)
    if (item === NOT_PLAIN) return NOT_PLAIN
    if (item !== undefined) out[key] = item
  }
  return out
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
