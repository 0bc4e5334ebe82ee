// The table of AOS methods: which mapping handles each, and the three directions the
// server and the guardian handler need — request → event, modified payload → complete
// `modifiedRequest`, event → request for a remote Guardian.

import type { CheckedEvent, EventName, JsonObject } from '../../core/index.js'
import { completeStepContext, type RequestMeta } from './context.js'
import { isObject } from './fields.js'
import { RPC_ERRORS, type RpcId, type RpcRequest, rpcError } from './jsonrpc.js'
import type { MappedEvent, MappingState, MethodMapping } from './mapping.js'
import {
  agentTrigger,
  knowledgeRetrieval,
  memoryContextRetrieval,
  memoryStore,
  message,
  STEP_ENCODERS,
  toolCallRequest,
  toolCallResult,
} from './steps.js'
import { a2aMappings, a2aMessage, mcpMessage, WIRE_ENCODERS } from './wire.js'

const MAPPINGS: Record<string, MethodMapping> = {
  'steps/agentTrigger': agentTrigger,
  'steps/toolCallRequest': toolCallRequest,
  'steps/toolCallResult': toolCallResult,
  'steps/message': message,
  'steps/memoryContextRetrieval': memoryContextRetrieval,
  'steps/memoryStore': memoryStore,
  'steps/knowledgeRetrieval': knowledgeRetrieval,
  'protocols/MCP': mcpMessage,
  'protocols/A2A': a2aMessage,
  ...a2aMappings,
}

/** Every AOS method Warden answers (plus `ping`). */
export const AOS_METHODS: readonly string[] = [...Object.keys(MAPPINGS), 'ping']

/**
 * Maps a request onto a Warden event.
 * @throws RpcError -32601 for an unknown method, -32602 for params that do not fit it.
 */
export function mapRequest(request: RpcRequest, meta: RequestMeta, state: MappingState): MappedEvent {
  const mapping = Object.hasOwn(MAPPINGS, request.method) ? MAPPINGS[request.method] : undefined
  if (!mapping) {
    throw rpcError(
      RPC_ERRORS.methodNotFound,
      'method',
      `"${request.method.slice(0, 100)}" is not an AOS method; use one of ${AOS_METHODS.join(', ')}`,
    )
  }
  const requestId = request.id === undefined ? undefined : String(request.id)
  return mapping.toEvent(request.params, meta, requestId, state)
}

/**
 * The complete AOS request a modify decision stands for: same method and id, the params
 * with the changed parts put back in AOS shape, and a `steps/*` context completed to what
 * the schemas require (see {@link completeStepContext}).
 * @throws Error when the modified payload cannot be expressed in AOS.
 */
export function modifiedRequest(
  request: RpcRequest & { id: RpcId },
  original: JsonObject,
  modified: JsonObject,
): JsonObject {
  const mapping = MAPPINGS[request.method]
  if (!mapping) throw new Error(`no AOS mapping for ${request.method}`)
  let params = mapping.toParams(request.params, original, modified)
  if (request.method.startsWith('steps/') && isObject(params.context)) {
    params = { ...params, context: completeStepContext(params.context) }
  }
  return { jsonrpc: '2.0', id: request.id, method: request.method, params }
}

const ENCODERS = { ...STEP_ENCODERS, ...WIRE_ENCODERS }

/** The AOS method an event is sent as, or undefined when AOS has none for it. */
export function aosMethodFor(event: EventName): string | undefined {
  return ENCODERS[event]?.method
}

/**
 * An event as a complete AOS request, for a remote Guardian.
 * @throws Error when AOS has no method for the event or its payload lacks what it needs.
 */
export function eventToRequest(event: CheckedEvent, id: RpcId): RpcRequest & { id: RpcId } {
  const encoder = ENCODERS[event.event]
  if (!encoder) throw new Error(`AOS has no method for the event ${event.event}`)
  return { jsonrpc: '2.0', id, method: encoder.method, params: encoder.encode(event) }
}
