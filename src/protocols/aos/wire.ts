// `protocols/MCP`, `protocols/A2A` and the A2A methods mapped both ways. MCP: the raw MCP
// message as params or as `{message}`; a request or notification is `mcp.outbound`, a
// response `mcp.inbound`, and a `tools/call` request also carries `tool` so `matcher` sees
// the tool name. A2A: `payload` plus `context.from/to`, or (the earlier spelling
// `protocols/A2A`) `message`, mapped by its method; either way `a2a.payload` is the whole
// A2A JSON-RPC message, and a modify may not change its `jsonrpc`, `id` or `method`.

import type { CheckedEvent, EventName, Json, JsonObject } from '../../core/index.js'
import { bareContext } from './context.js'
import { invalid, isObject, jsonEqual, optionalOf, requireObject, requireString } from './fields.js'
import type { EventEncoder, MethodMapping } from './mapping.js'

function objectAt(payload: JsonObject, key: string): JsonObject {
  const value = payload[key]
  if (!isObject(value)) throw new Error(`the modified payload has no ${key} object`)
  return value
}

export const mcpMessage: MethodMapping = {
  toEvent(params, meta, requestId) {
    const wrapped = isObject(params.message)
    const message = wrapped ? (params.message as JsonObject) : params
    const field = wrapped ? 'params.message' : 'params'
    if (wrapped) optionalOf(params.reasoning, 'string', 'params.reasoning')
    const isRequest = message.method !== undefined
    if (isRequest) requireString(message.method, `${field}.method`)
    else if (message.result === undefined && message.error === undefined) {
      invalid(
        field,
        'must be an MCP JSON-RPC message: a request or notification (method) or a response (result or error)',
      )
    }
    const mcp: JsonObject = { message, direction: isRequest ? 'outbound' : 'inbound' }
    if (isRequest) mcp.method = message.method as string
    const payload: JsonObject = { mcp }
    if (message.method === 'tools/call') {
      const call = requireObject(message.params, `${field}.params`)
      const name = requireString(call.name, `${field}.params.name`)
      optionalOf(call.arguments, 'object', `${field}.params.arguments`)
      payload.tool = { name, input: (call.arguments as JsonObject | undefined) ?? {} }
    }
    if (wrapped && typeof params.reasoning === 'string') payload.reasoning = params.reasoning
    const event: EventName = isRequest ? 'mcp.outbound' : 'mcp.inbound'
    return { event, payload, context: bareContext(meta, requestId) }
  },
  toParams(params, original, modified) {
    let message = objectAt(objectAt(modified, 'mcp'), 'message')
    const before = original.tool
    const after = modified.tool
    if (isObject(before) && isObject(after) && !jsonEqual(after.input, before.input)) {
      const call = isObject(message.params) ? message.params : {}
      message = { ...message, params: { ...call, arguments: after.input as Json } }
    }
    return isObject(params.message) ? { ...params, message } : message
  },
}

function a2aMapping(event: EventName): MethodMapping {
  return {
    toEvent(params, meta, requestId) {
      const payload = requireObject(params.payload, 'params.payload')
      const context = requireObject(params.context, 'params.context')
      optionalOf(context.from, 'object', 'params.context.from')
      optionalOf(context.to, 'object', 'params.context.to')
      optionalOf(params.reasoning, 'string', 'params.reasoning')
      const from = context.from as JsonObject | undefined
      const to = context.to as JsonObject | undefined
      const a2a: JsonObject = { method: methodOf(event), payload }
      if (from) a2a.from = from
      if (to) a2a.to = to
      const result: JsonObject = { a2a }
      if (typeof params.reasoning === 'string') result.reasoning = params.reasoning
      const agent = from && isObject(from.agent) ? from.agent : undefined
      return { event, payload: result, context: bareContext(meta, requestId, agent) }
    },
    toParams(params, original, modified) {
      return { ...params, payload: modifiedA2aMessage(original, modified) }
    },
  }
}

const ENVELOPE_FIELDS = ['jsonrpc', 'id', 'method'] as const

/**
 * The A2A JSON-RPC message a modify stands for: `a2a.payload` of the modified payload, with
 * its `jsonrpc`, `id` and `method` as they were.
 * @throws Error naming the field a hook changed, so the modify is denied.
 */
function modifiedA2aMessage(original: JsonObject, modified: JsonObject): JsonObject {
  const after = objectAt(modified, 'a2a').payload
  if (!isObject(after)) throw new Error('the modified a2a.payload is not an object')
  const before = objectAt(original, 'a2a').payload
  for (const field of ENVELOPE_FIELDS) {
    const was = isObject(before) ? before[field] : undefined
    if (!jsonEqual(after[field], was)) {
      const shown = was === undefined ? 'absent' : `was ${JSON.stringify(was)}`
      throw new Error(`a modify may not change a2a.payload.${field} (${shown})`)
    }
  }
  return after
}

/** A2A methods and their events. */
export const A2A_METHODS: Record<string, EventName> = {
  'message/send': 'a2a.send',
  'message/stream': 'a2a.stream',
  'tasks/cancel': 'a2a.cancel',
  'tasks/get': 'a2a.get',
  'tasks/pushNotificationConfig/get': 'a2a.pushConfig.get',
  'tasks/pushNotificationConfig/set': 'a2a.pushConfig.set',
  'tasks/resubscribe': 'a2a.resubscribe',
}

/**
 * Joch's names for the A2A methods, accepted beside the AOS and A2A ones: Joch cancels with
 * `cancel_request`; `cancel_task` (the AOS example's title) is kept as a synonym.
 */
export const JOCH_A2A_METHODS: Record<string, EventName> = {
  send_message: 'a2a.send',
  stream_message: 'a2a.stream',
  cancel_request: 'a2a.cancel',
  cancel_task: 'a2a.cancel',
  get_task: 'a2a.get',
  get_task_push_notification_config: 'a2a.pushConfig.get',
  set_task_push_notification_config: 'a2a.pushConfig.set',
  resubscribe_to_task: 'a2a.resubscribe',
}

/** The event of an A2A method by any of its names (A2A/AOS or Joch's). */
function a2aEventOf(method: string): EventName | undefined {
  if (Object.hasOwn(A2A_METHODS, method)) return A2A_METHODS[method]
  return Object.hasOwn(JOCH_A2A_METHODS, method) ? JOCH_A2A_METHODS[method] : undefined
}

/**
 * `protocols/A2A` (the earlier AOS spelling): `params.message` is an A2A JSON-RPC message.
 * A request becomes the event of its method (`message/send` → `a2a.send`, ...); a response
 * (result or error) becomes `a2a.response`, inbound, of kind `result` (without `method`:
 * a response does not name its request's). `a2a.payload` is the message either way.
 */
export const a2aMessage: MethodMapping = {
  toEvent(params, meta, requestId) {
    const message = requireObject(params.message, 'params.message')
    optionalOf(params.reasoning, 'string', 'params.reasoning')
    let event: EventName
    let a2a: JsonObject
    if (message.method !== undefined) {
      const method = requireString(message.method, 'params.message.method')
      const mapped = a2aEventOf(method)
      if (!mapped) {
        invalid(
          'params.message.method',
          `"${method.slice(0, 100)}" is not an A2A method Warden maps; use one of ${Object.keys(A2A_METHODS).join(', ')}`,
        )
      }
      event = mapped
      a2a = { method, payload: message }
    } else if (message.result !== undefined || message.error !== undefined) {
      event = 'a2a.response'
      a2a = { direction: 'inbound', kind: 'result', payload: message }
    } else {
      invalid(
        'params.message',
        'must be an A2A JSON-RPC message: a request (method) or a response (result or error)',
      )
    }
    const payload: JsonObject = { a2a }
    if (typeof params.reasoning === 'string') payload.reasoning = params.reasoning
    return { event, payload, context: bareContext(meta, requestId) }
  },
  toParams(params, original, modified) {
    return { ...params, message: modifiedA2aMessage(original, modified) }
  },
}

function methodOf(event: EventName): string {
  for (const [method, name] of Object.entries(A2A_METHODS)) if (name === event) return method
  return event
}

/** Mappings of every A2A method. */
export const a2aMappings: Record<string, MethodMapping> = Object.fromEntries(
  Object.entries({ ...A2A_METHODS, ...JOCH_A2A_METHODS }).map(([method, event]) => [
    method,
    a2aMapping(event),
  ]),
)

const encodeMcp: EventEncoder = (event: CheckedEvent) => {
  const message = objectAt(objectAt(event.payload, 'mcp'), 'message')
  const tool = event.payload.tool
  if (message.method === 'tools/call' && isObject(tool) && isObject(tool.input)) {
    const call = isObject(message.params) ? message.params : {}
    return { ...message, params: { ...call, arguments: tool.input } }
  }
  return message
}

const encodeA2a: EventEncoder = (event: CheckedEvent) => {
  const a2a = objectAt(event.payload, 'a2a')
  const context: JsonObject = {}
  if (isObject(a2a.from)) context.from = a2a.from
  if (isObject(a2a.to)) context.to = a2a.to
  const params: JsonObject = { payload: isObject(a2a.payload) ? a2a.payload : {}, context }
  if (typeof event.payload.reasoning === 'string') params.reasoning = event.payload.reasoning
  return params
}

/** Encoders from Warden events to MCP and A2A params, by event. */
export const WIRE_ENCODERS: Record<string, { method: string; encode: EventEncoder }> = {
  'mcp.outbound': { method: 'protocols/MCP', encode: encodeMcp },
  'mcp.inbound': { method: 'protocols/MCP', encode: encodeMcp },
  ...Object.fromEntries(
    Object.entries(A2A_METHODS).map(([method, event]) => [event, { method, encode: encodeA2a }]),
  ),
}
