// What a check makes of one MCP message: the outcome types the bridge acts on (forward,
// answer, drop), the small builders of those outcomes, the `mcp.*` event payload, and the
// checking of an `mcp.*` modify before the modified message is forwarded.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Decision, JsonObject } from '../../core/index.js'
import { checkModifiedMessage, isObject, type RequestId } from './jsonrpc.js'

/** What to do with one message. */
export type Outcome =
  | { type: 'forward'; message: JSONRPCMessage; method?: string; relatedRequestId?: RequestId }
  | { type: 'answer'; message: JSONRPCMessage }
  | { type: 'drop'; reason: string }

/** The direction a message travels: outbound is client → server. */
export type Direction = 'outbound' | 'inbound'

/** Answers the sender instead of forwarding. */
export function answer(message: JSONRPCMessage): Outcome {
  return { type: 'answer', message }
}

/** Forwards a tools/call answer to the client. */
export function forwardTo(message: JSONRPCMessage): Outcome {
  return { type: 'forward', message, method: 'tools/call' }
}

/**
 * The payload of an `mcp.*` event: the message, its direction and method, the tool when any,
 * and the keys of unknown types the operator let through (`letThrough`), when any.
 */
export function mcpPayload(
  message: JSONRPCMessage,
  method: string | undefined,
  direction: Direction,
  tool?: JsonObject,
  letThrough?: readonly string[],
): JsonObject {
  const mcp: JsonObject = { message: message as unknown as JsonObject, direction }
  if (method !== undefined) mcp.method = method
  if (letThrough && letThrough.length > 0) mcp.letThrough = [...letThrough]
  const payload: JsonObject = { mcp }
  if (tool) payload.tool = tool
  return payload
}

/** The decision facts a denied request's error carries (no payload). */
export function denialData(decision: Decision): JsonObject {
  return { decision: 'deny', decisionId: decision.id, reasonCode: decision.reasonCode }
}

/** The message of an `mcp.*` modify, checked. */
export function modifiedMcpMessage(
  decision: Pick<Decision, 'payload'>,
  original: JSONRPCMessage,
): { ok: true; message: JSONRPCMessage } | { ok: false; error: string } {
  const mcp = decision.payload?.mcp
  if (!isObject(mcp) || !isObject(mcp.message)) {
    return { ok: false, error: 'the modified payload has no mcp.message to forward' }
  }
  return checkModifiedMessage(mcp.message, original)
}
