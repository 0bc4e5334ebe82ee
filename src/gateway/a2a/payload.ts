// A2A messages as Warden events, in the shape `/aos` gives A2A methods: the payload is
// `{a2a: {method, payload, from, to}}` with the whole A2A JSON-RPC request
// `{jsonrpc, id, method, params}` as `a2a.payload`; answers and streamed events are
// `a2a.response` with `a2a.kind` (task, message, statusUpdate, artifactUpdate, result),
// the JSON-RPC response `{jsonrpc, id, result}` as `a2a.payload` and the read-only view
// `a2a.task` / `a2a.artifacts` (view.ts). HTTP+JSON calls get the
// same envelope, synthesised. The context carries the tenant, the upstream agent from its
// card, `session.id` from the contextId and `turnId` from the taskId. A modify may change
// `a2a.payload.params` (or `.result`) only: `jsonrpc`, `id` and `method` stay as they were.

import type { Decision, EventContext, Json, JsonObject } from '../../core/index.js'
import { answerView } from './view.js'

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Who is calling, as the gateway learnt it from the request's headers (and token). */
export interface Caller {
  tenant?: string
  /** `X-Warden-Agent`: the calling agent's name. */
  agent?: string
  /** `X-Warden-User`: the user the calling agent acts for. */
  user?: string
}

/** The upstream agent as events name it. */
export interface Target {
  name: string
  url: string
}

/** The kinds of answers and streamed events. */
export type ResponseKind = 'task' | 'message' | 'statusUpdate' | 'artifactUpdate' | 'result'

const V03_KINDS: Record<string, ResponseKind> = {
  task: 'task',
  message: 'message',
  'status-update': 'statusUpdate',
  'artifact-update': 'artifactUpdate',
}

/** A JSON-RPC id: the caller's on JSON-RPC, the generated request id on HTTP+JSON. */
export type RpcId = string | number

/** The A2A JSON-RPC request a call is (as sent, or synthesised for HTTP+JSON). */
export function rpcRequest(id: RpcId, method: string, params: JsonObject): JsonObject {
  return { jsonrpc: '2.0', id, method, params }
}

/** The A2A JSON-RPC response carrying one answer or streamed event. */
export function rpcResponse(id: RpcId, result: Json): JsonObject {
  return { jsonrpc: '2.0', id, result }
}

/** The payload of an outbound event (`a2a.send`, `a2a.get`, ...). */
export function requestPayload(
  method: string,
  id: RpcId,
  params: JsonObject,
  caller: Caller,
  target: Target,
): JsonObject {
  const a2a: JsonObject = {
    method,
    payload: rpcRequest(id, method, params),
    to: { agent: { name: target.name, url: target.url } },
  }
  const from: JsonObject = {}
  if (caller.agent) from.agent = { name: caller.agent, id: caller.agent }
  if (caller.user) from.user = { id: caller.user }
  if (Object.keys(from).length > 0) a2a.from = from
  return { a2a }
}

/** The payload of an `a2a.response` event: `result` is the answer or one streamed event. */
export function responsePayload(
  method: string,
  id: RpcId,
  kind: ResponseKind,
  result: Json,
  target: Target,
): JsonObject {
  const view = answerView(kind, responseKind(result).inner)
  return {
    a2a: {
      method,
      direction: 'inbound',
      kind,
      payload: rpcResponse(id, result),
      task: view.task,
      artifacts: view.artifacts,
      to: { agent: { name: target.name, url: target.url } },
    },
  }
}

/** The context of the events of one call. */
export function callContext(
  base: EventContext,
  caller: Caller,
  target: Target,
  params: JsonObject,
  requestId: string,
): EventContext {
  const context: EventContext = Object.assign({}, base)
  context.agent = { id: target.name, name: target.name, url: target.url }
  if (caller.tenant !== undefined) context.tenantId = caller.tenant
  if (caller.user !== undefined) context.user = { id: caller.user }
  context.requestId = requestId
  const ids = conversationIds(params)
  if (ids.contextId !== undefined) context.session = { id: ids.contextId }
  if (ids.taskId !== undefined) context.turnId = ids.taskId
  return context
}

/** The contextId and taskId a request's params name. */
export function conversationIds(params: JsonObject): { contextId?: string; taskId?: string } {
  const message = isObject(params.message) ? params.message : undefined
  const contextId = str(message?.contextId) ?? str(params.contextId)
  const taskId = str(message?.taskId) ?? str(params.taskId) ?? str(params.id)
  const ids: { contextId?: string; taskId?: string } = {}
  if (contextId !== undefined) ids.contextId = contextId
  if (taskId !== undefined) ids.taskId = taskId
  return ids
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

/**
 * The kind of an answer or streamed event and the object it is about: the current
 * wrapped form (`{task}`, `{message}`, `{statusUpdate}`, `{artifactUpdate}`) or the v0.3
 * form (`{kind: 'artifact-update', ...}`); anything else is a plain `result`.
 */
export function responseKind(result: Json): { kind: ResponseKind; inner: JsonObject | undefined } {
  if (!isObject(result)) return { kind: 'result', inner: undefined }
  const v03 = typeof result.kind === 'string' ? V03_KINDS[result.kind] : undefined
  if (v03) return { kind: v03, inner: result }
  for (const key of ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const) {
    const inner = result[key]
    if (isObject(inner)) return { kind: key, inner }
  }
  if (typeof result.id === 'string' && isObject(result.status)) return { kind: 'task', inner: result }
  if (typeof result.messageId === 'string' && Array.isArray(result.parts))
    return { kind: 'message', inner: result }
  return { kind: 'result', inner: undefined }
}

/** A checked modify: the part to forward, or why it is refused. */
export type Modified<T> = { ok: true; value: T } | { ok: false; error: string }

/**
 * The `a2a.payload` a modify decision carries, with the envelope fields it may not change
 * (`jsonrpc`, `id`, and `method` on requests) compared to the original.
 */
function modifiedEnvelope(
  decision: Pick<Decision, 'payload'>,
  original: JsonObject,
  fixed: string[],
): Modified<JsonObject> {
  const a2a = decision.payload?.a2a
  if (!isObject(a2a) || !isObject(a2a.payload)) {
    return { ok: false, error: 'the modified payload has no a2a.payload object to forward' }
  }
  for (const field of fixed) {
    if (a2a.payload[field] !== original[field]) {
      return {
        ok: false,
        error: `a modify may not change a2a.payload.${field} (was ${JSON.stringify(original[field])})`,
      }
    }
  }
  return { ok: true, value: a2a.payload }
}

/** The params a modify of a request forwards: `a2a.payload.params`, checked. */
export function modifiedParams(
  decision: Pick<Decision, 'payload'>,
  original: JsonObject,
): Modified<JsonObject> {
  const envelope = modifiedEnvelope(decision, original, ['jsonrpc', 'id', 'method'])
  if (!envelope.ok) return envelope
  const params = envelope.value.params
  if (!isObject(params)) return { ok: false, error: 'the modified a2a.payload.params is not an object' }
  return { ok: true, value: params }
}

/** The answer a modify of a response passes on: `a2a.payload.result`, checked. */
export function modifiedResult(decision: Pick<Decision, 'payload'>, original: JsonObject): Modified<Json> {
  const envelope = modifiedEnvelope(decision, original, ['jsonrpc', 'id'])
  if (!envelope.ok) return envelope
  if ('error' in envelope.value) {
    return { ok: false, error: 'a modify may not turn an answer into an error (a2a.payload.error)' }
  }
  const result = envelope.value.result
  if (result === undefined) return { ok: false, error: 'the modified a2a.payload has no result to pass on' }
  return { ok: true, value: result }
}

/** Whether an answer's kind changed under a modify (a task may not become a message). */
export function sameKind(before: Json, after: Json): boolean {
  return responseKind(before).kind === responseKind(after).kind
}
