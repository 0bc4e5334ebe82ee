// The event sequences of a tools/call: the request as `mcp.outbound` then `tool.pre`, its
// result as `mcp.inbound` then `tool.post`, each modify written back (and checked) before the
// next event sees it. A deny or a modify that cannot be applied becomes a tool error result.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Decision, EventContext, JsonObject } from '../../core/index.js'
import type { Dispatch } from './feature-checks.js'
import { type RequestId, toolErrorResult } from './jsonrpc.js'
import { mcpPayload } from './outcome.js'
import { applyToolInput, applyToolResult, inputOf, toolResultView, toolWithResult } from './tool-call.js'

/** What the tool sequences need of the session. */
export interface ToolCheckHost {
  dispatch: Dispatch
  /** Logs a deny and returns its reason. */
  denied(what: string, decision: Decision): string
}

/** A checked tools/call request: the message to forward and its input, or the tool error to answer. */
export type CheckedCall =
  | { ok: true; message: JSONRPCMessage; input: JsonObject }
  | { ok: false; reply: JSONRPCMessage }

/** Runs `mcp.outbound` then `tool.pre` on a tools/call request. */
export async function checkToolCall(
  host: ToolCheckHost,
  message: JSONRPCMessage,
  call: { id: RequestId; name: string; input: JsonObject },
  context: EventContext,
  letThrough: readonly string[],
): Promise<CheckedCall> {
  const { id, name, input } = call
  const refuse = (reason: string): CheckedCall => ({
    ok: false,
    reply: toolErrorResult(id, `Denied by Warden: ${reason}`),
  })
  const outbound = await host.dispatch(
    'mcp.outbound',
    mcpPayload(message, 'tools/call', 'outbound', { name, input, id: String(id) }, letThrough),
    context,
    (payload) => applyToolInput({ payload }, message, input),
  )
  if (outbound.decision === 'deny') return refuse(host.denied(`tools/call ${name}`, outbound))
  let current = message
  let currentInput = input
  if (outbound.decision === 'modify') {
    const applied = applyToolInput(outbound, message, input)
    if (!applied.ok) return refuse(applied.error)
    current = applied.message
    currentInput = inputOf(current)
  }
  const before = current
  const beforeInput = currentInput
  const pre = await host.dispatch(
    'tool.pre',
    { tool: { name, input: currentInput, id: String(id) } },
    context,
    (payload) => applyToolInput({ payload }, before, beforeInput),
  )
  if (pre.decision === 'deny') return refuse(host.denied(`tools/call ${name}`, pre))
  if (pre.decision === 'modify') {
    const applied = applyToolInput(pre, current, currentInput)
    if (!applied.ok) return refuse(applied.error)
    current = applied.message
    currentInput = inputOf(current)
  }
  return { ok: true, message: current, input: currentInput }
}

/** Runs `mcp.inbound` then `tool.post` on a tools/call answer: the answer to forward. */
export async function checkToolResult(
  host: ToolCheckHost,
  message: JSONRPCMessage,
  id: RequestId,
  call: { name: string; input: JsonObject },
  context: EventContext,
  letThrough: readonly string[],
): Promise<JSONRPCMessage> {
  const refuse = (reason: string) => toolErrorResult(id, `Denied by Warden: ${reason}`)
  const view = toolResultView(message)
  const inbound = await host.dispatch(
    'mcp.inbound',
    mcpPayload(message, 'tools/call', 'inbound', toolWithResult(call, view), letThrough),
    context,
    (payload) => applyToolResult({ payload }, message, view),
  )
  if (inbound.decision === 'deny') return refuse(host.denied(`result of ${call.name}`, inbound))
  let current = message
  let currentView = view
  if (inbound.decision === 'modify') {
    const applied = applyToolResult(inbound, message, view)
    if (!applied.ok) return refuse(applied.error)
    current = applied.message
    currentView = toolResultView(current)
  }
  const before = current
  const beforeView = currentView
  const post = await host.dispatch(
    'tool.post',
    { tool: toolWithResult(call, currentView) },
    context,
    (payload) => applyToolResult({ payload }, before, beforeView),
  )
  if (post.decision === 'deny') return refuse(host.denied(`result of ${call.name}`, post))
  if (post.decision === 'modify') {
    const applied = applyToolResult(post, current, currentView)
    if (!applied.ok) return refuse(applied.error)
    current = applied.message
  }
  return current
}
