// JSON-RPC batches (an array of messages on one stdio line). MCP 2024-11-05 and 2025-03-26
// allow them; 2025-06-18 removed them. The gateway never leaves a batch unanswered: under
// a version that allows batches each element is checked and forwarded on its own (and
// answered on its own line); under a later version, or for an element that is not a
// JSON-RPC message, each request gets an Invalid Request error naming why, each response
// is replaced by an error for its requester, and only notifications (which nobody waits
// for) are dropped, with a log line.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { envelopeProblem, errorResponse, isObject, type RequestId } from './jsonrpc.js'

/** JSON-RPC's Invalid Request code. */
export const INVALID_REQUEST_CODE = -32600

/** The last MCP version whose transports carry JSON-RPC batches. */
const LAST_BATCH_VERSION = '2025-03-26'

/** A transport that can hand a received batch to its owner instead of ignoring it. */
export interface BatchReceiver {
  onbatch?: (elements: unknown[]) => void
}

/** What to do with a batch: the elements to check one by one, and what to say for the rest. */
export interface BatchPlan {
  /** Valid elements to check and forward as if each had come alone. */
  messages: JSONRPCMessage[]
  /** Errors to send back to the batch's sender. */
  replies: JSONRPCMessage[]
  /** Errors to forward to the other side, in place of responses it is waiting for. */
  forwards: JSONRPCMessage[]
  /** Why elements were dropped (notifications nobody can be told about). */
  dropped: string[]
}

/** Whether the negotiated MCP version allows batches (undefined: not negotiated yet, allowed). */
export function batchesAllowed(version: string | undefined): boolean {
  return version === undefined || version <= LAST_BATCH_VERSION
}

/**
 * Plans the answer to a batch under the negotiated version.
 * @param version the negotiated MCP protocol version, when known.
 */
export function planBatch(elements: unknown[], version: string | undefined): BatchPlan {
  const plan: BatchPlan = { messages: [], replies: [], forwards: [], dropped: [] }
  if (elements.length === 0) {
    plan.replies.push(idlessError('Invalid Request: an empty batch'))
    return plan
  }
  const allowed = batchesAllowed(version)
  for (const element of elements) {
    const problem = envelopeProblem(element)
    if (!problem && allowed) {
      plan.messages.push(element as JSONRPCMessage)
      continue
    }
    const why = problem
      ? `Invalid Request: a batch element that is not valid JSON-RPC (${problem})`
      : `Invalid Request: JSON-RPC batches are not supported in MCP ${version} (removed after ${LAST_BATCH_VERSION}); send each message on its own`
    refuse(element, why, plan)
  }
  return plan
}

function refuse(element: unknown, why: string, plan: BatchPlan): void {
  const id = isObject(element) ? element.id : undefined
  const hasId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))
  const isCall = isObject(element) && typeof element.method === 'string'
  if (isCall && !hasId) {
    plan.dropped.push(`a notification in a batch: ${why}`)
  } else if (!isCall && hasId && isObject(element) && ('result' in element || 'error' in element)) {
    // A response: its requester on the other side is told, so it does not wait.
    plan.forwards.push(errorResponse(id as RequestId, INVALID_REQUEST_CODE, why))
  } else {
    plan.replies.push(hasId ? errorResponse(id as RequestId, INVALID_REQUEST_CODE, why) : idlessError(why))
  }
}

/** An error response for a request whose id cannot be told (MCP leaves the id out). */
function idlessError(message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', error: { code: INVALID_REQUEST_CODE, message } } as JSONRPCMessage
}
