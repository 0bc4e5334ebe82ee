// A2A messages as Warden events, shaped like the `/aos` A2A methods: the payload is
// `{a2a: {method, payload, from, to}}` with the A2A params as `a2a.payload`; answers and
// streamed events are `a2a.response` with `a2a.kind` (task, message, statusUpdate,
// artifactUpdate, result) and the answer as `a2a.payload`. The context carries the tenant,
// the upstream agent from its card, `session.id` from the contextId and `turnId` from the
// taskId. A modify may change `a2a.payload` only, and it must stay a JSON object.

import type { Decision, EventContext, Json, JsonObject } from '../../core/index.js'

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

/** The payload of an outbound event (`a2a.send`, `a2a.get`, ...). */
export function requestPayload(
  method: string,
  params: JsonObject,
  caller: Caller,
  target: Target,
): JsonObject {
  const a2a: JsonObject = { method, payload: params, to: { agent: { name: target.name, url: target.url } } }
  const from: JsonObject = {}
  if (caller.agent) from.agent = { name: caller.agent, id: caller.agent }
  if (caller.user) from.user = { id: caller.user }
  if (Object.keys(from).length > 0) a2a.from = from
  return { a2a }
}

/** The payload of an `a2a.response` event. */
export function responsePayload(method: string, kind: ResponseKind, body: Json, target: Target): JsonObject {
  return {
    a2a: {
      method,
      direction: 'inbound',
      kind,
      payload: body,
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

/** The `a2a.payload` a modify decision carries, checked. */
export function modifiedPayload(
  decision: Decision,
): { ok: true; payload: JsonObject } | { ok: false; error: string } {
  const a2a = decision.payload?.a2a
  if (!isObject(a2a) || !isObject(a2a.payload)) {
    return { ok: false, error: 'the modified payload has no a2a.payload object to forward' }
  }
  return { ok: true, payload: a2a.payload }
}

/** Whether an answer's kind changed under a modify (a task may not become a message). */
export function sameKind(before: Json, after: Json): boolean {
  return responseKind(before).kind === responseKind(after).kind
}
