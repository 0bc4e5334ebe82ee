// The contract every AOS method's mapping implements, both directions: params → event,
// a modified payload → params in AOS shape, and an event → params for a remote Guardian.

import type { CheckedEvent, EventContext, EventName, JsonObject } from '../../core/index.js'
import type { RequestMeta } from './context.js'

/** An AOS request mapped onto a Warden event. */
export interface MappedEvent {
  event: EventName
  payload: JsonObject
  context: EventContext
}

/** What a mapping may remember between requests (tool names by execution id). */
export interface MappingState {
  rememberTool(executionId: string, name: string): void
  toolFor(executionId: string): string | undefined
}

/** The mapping of one AOS method. */
export interface MethodMapping {
  /**
   * Maps the params of a request onto an event, checking what the mapping relies on.
   * @throws RpcError -32602 naming the field.
   */
  toEvent(
    params: JsonObject,
    meta: RequestMeta,
    requestId: string | undefined,
    state: MappingState,
  ): MappedEvent
  /**
   * The request's params with the changes between `original` and `modified` payloads put
   * back in AOS shape; parts the hooks did not change stay as they were.
   * @throws Error when the modified payload cannot be expressed in AOS.
   */
  toParams(params: JsonObject, original: JsonObject, modified: JsonObject): JsonObject
}

/** Encodes a Warden event as the params of an AOS request (for remote Guardians). */
export type EventEncoder = (event: CheckedEvent) => JsonObject

/** A bounded memory of tool names by execution id, so `toolCallResult` knows its tool. */
export function createMappingState(capacity = 10_000): MappingState {
  const names = new Map<string, string>()
  return {
    rememberTool(executionId, name) {
      names.delete(executionId)
      names.set(executionId, name)
      if (names.size > capacity) {
        const oldest = names.keys().next().value
        if (oldest !== undefined) names.delete(oldest)
      }
    },
    toolFor(executionId) {
      return names.get(executionId)
    },
  }
}
