// The HTTP+JSON (REST) binding, offered when the upstream's card lists it: the A2A routes
// (`/message:send`, `/message:stream`, `/tasks/{id}`, `/tasks/{id}:cancel`,
// `/tasks/{id}:subscribe`, `/tasks`, `/tasks/{id}/pushNotificationConfigs[/{configId}]`,
// `/extendedAgentCard`, with or without the v0.3 `/v1` prefix and a `/{tenant}` prefix,
// which like `?tenant=` and a body's `tenant` must name the caller's tenant) mapped onto the same
// operations and events as JSON-RPC. Hooks see each call as the JSON-RPC request it stands
// for, synthesised: the current spec's method name (`SendMessage`, ...), the route's params,
// and the call's generated request id (the context's `requestId`) as `id`; answers and
// streamed events as `{jsonrpc, id, result}` with that same id. Refusals are A2A REST
// error bodies.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Json, JsonObject } from '../../core/index.js'
import { type ForwardDeps, forwardCall, type TransportCall, upstreamHeaders } from './forward.js'
import { type A2aOperation, operationInfo } from './methods.js'
import { type Caller, isObject, type Target } from './payload.js'
import { sseFrame } from './sse.js'
import { invalid, type Refusal, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, restError } from './wire.js'

/** The event method name of each operation on this binding (the current spec's names). */
const METHOD_NAMES: Record<A2aOperation, string> = {
  send: 'SendMessage',
  stream: 'SendStreamingMessage',
  get: 'GetTask',
  cancel: 'CancelTask',
  list: 'ListTasks',
  resubscribe: 'SubscribeToTask',
  'pushConfig.set': 'CreateTaskPushNotificationConfig',
  'pushConfig.get': 'GetTaskPushNotificationConfig',
  'pushConfig.list': 'ListTaskPushNotificationConfigs',
  'pushConfig.delete': 'DeleteTaskPushNotificationConfig',
  extendedCard: 'GetExtendedAgentCard',
}

interface Route {
  operation: A2aOperation
  params: JsonObject
  /** The `/{tenant}` the path started with, kept on the upstream path. */
  tenantPrefix?: string
}

/** Writes a REST refusal. */
export function writeRestRefusal(res: ServerResponse, refusal: Refusal): void {
  res
    .writeHead(refusal.status, { 'content-type': 'application/json' })
    .end(JSON.stringify(restError(refusal)))
}

const ROOTS = new Set(['message:send', 'message:stream', 'extendedAgentCard', 'card', 'tasks'])

/**
 * The operation and params of a REST request, or undefined for a route A2A does not have.
 * A path under a `/{tenant}` prefix (or with `?tenant=`) carries that tenant in `params.tenant`,
 * which must then be the caller's; a body naming another tenant than the path is not routed.
 */
export function restRoute(
  httpMethod: string,
  subpath: string,
  query: URLSearchParams,
  body: JsonObject,
): Route | undefined {
  const all = subpath
    .replace(/^\/v1(?=\/)/, '')
    .split('/')
    .filter((s) => s.length > 0)
    .map(decodeURIComponent)
  const tenant = all.length > 1 && !ROOTS.has(all[0] as string) ? all[0] : undefined
  const route = routeOf(httpMethod, tenant === undefined ? all : all.slice(1), query, body)
  if (!route) return undefined
  const named = [
    tenant,
    query.get('tenant') ?? undefined,
    typeof body.tenant === 'string' ? body.tenant : undefined,
  ].filter((t): t is string => t !== undefined && t !== '')
  if (new Set(named).size > 1) return undefined
  if (named[0] !== undefined) route.params = { ...route.params, tenant: named[0] }
  if (tenant !== undefined) route.tenantPrefix = tenant
  return route
}

function routeOf(
  httpMethod: string,
  segments: string[],
  query: URLSearchParams,
  body: JsonObject,
): Route | undefined {
  const [first, id, third, configId] = segments
  const get = httpMethod === 'GET'
  const post = httpMethod === 'POST'
  if (segments.length === 1 && post && first === 'message:send') return { operation: 'send', params: body }
  if (segments.length === 1 && post && first === 'message:stream')
    return { operation: 'stream', params: body }
  if (segments.length === 1 && get && (first === 'extendedAgentCard' || first === 'card'))
    return { operation: 'extendedCard', params: {} }
  if (first !== 'tasks') return undefined
  if (segments.length === 1 && get) return { operation: 'list', params: Object.fromEntries(query) }
  if (id === undefined) return undefined
  if (segments.length === 2) {
    if (id.endsWith(':cancel') && post)
      return { operation: 'cancel', params: { ...body, id: id.slice(0, -7) } }
    if (id.endsWith(':subscribe') && (get || post))
      return { operation: 'resubscribe', params: { id: id.slice(0, -10) } }
    if (get) return { operation: 'get', params: { ...Object.fromEntries(query), id } }
    return undefined
  }
  if (third !== 'pushNotificationConfigs') return undefined
  if (segments.length === 3 && post) return { operation: 'pushConfig.set', params: { ...body, taskId: id } }
  if (segments.length === 3 && get) return { operation: 'pushConfig.list', params: { taskId: id } }
  if (segments.length === 4 && get)
    return { operation: 'pushConfig.get', params: { taskId: id, id: configId as string } }
  if (segments.length === 4 && httpMethod === 'DELETE') {
    return { operation: 'pushConfig.delete', params: { taskId: id, id: configId as string } }
  }
  return undefined
}

/** The upstream path and body for an operation's (possibly modified) params. */
function upstreamTarget(
  route: Route,
  params: JsonObject,
  original: string,
  search: string,
): { path: string; body?: string } {
  const id = encodeURIComponent(String(params.id ?? ''))
  const taskId = encodeURIComponent(String(params.taskId ?? ''))
  const version = original.startsWith('/v1/') ? '/v1' : ''
  const prefix =
    route.tenantPrefix === undefined ? version : `${version}/${encodeURIComponent(route.tenantPrefix)}`
  switch (route.operation) {
    case 'send':
      return { path: `${prefix}/message:send`, body: JSON.stringify(params) }
    case 'stream':
      return { path: `${prefix}/message:stream`, body: JSON.stringify(params) }
    case 'cancel':
      return { path: `${prefix}/tasks/${id}:cancel`, body: JSON.stringify(withoutKeys(params, ['id'])) }
    case 'resubscribe':
      return { path: `${prefix}/tasks/${id}:subscribe` }
    case 'get':
      return { path: `${prefix}/tasks/${id}${search}` }
    case 'list':
      return { path: `${prefix}/tasks?${new URLSearchParams(params as Record<string, string>).toString()}` }
    case 'pushConfig.set':
      return { path: `${prefix}/tasks/${taskId}/pushNotificationConfigs`, body: JSON.stringify(params) }
    case 'pushConfig.list':
      return { path: `${prefix}/tasks/${taskId}/pushNotificationConfigs` }
    case 'pushConfig.get':
    case 'pushConfig.delete':
      return { path: `${prefix}/tasks/${taskId}/pushNotificationConfigs/${id}` }
    case 'extendedCard':
      return { path: route.tenantPrefix === undefined ? original : `${prefix}/extendedAgentCard` }
  }
}

function withoutKeys(object: JsonObject, keys: string[]): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)))
}

/** Handles one REST request under an upstream HTTP+JSON interface. */
export async function handleRest(
  deps: ForwardDeps,
  interfaceUrl: URL,
  subpath: string,
  url: URL,
  body: Buffer,
  caller: Caller,
  target: Target,
  forwardAuthorization: boolean,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET'
  let parsed: JsonObject = {}
  if (body.length > 0) {
    let value: unknown
    try {
      value = JSON.parse(body.toString('utf8'))
    } catch {
      return writeRestRefusal(res, invalid(RPC_INVALID_REQUEST, 'the body is not valid JSON'))
    }
    if (!isObject(value))
      return writeRestRefusal(res, invalid(RPC_INVALID_REQUEST, 'the body must be a JSON object'))
    parsed = value
  }
  const route = restRoute(method, subpath, url.searchParams, parsed)
  if (!route) {
    return writeRestRefusal(
      res,
      invalid(RPC_METHOD_NOT_FOUND, `${method} ${subpath.slice(0, 100)} is not an A2A HTTP+JSON route`, 404),
    )
  }
  const info = operationInfo(route.operation)
  const base = interfaceUrl.pathname.replace(/\/+$/, '')
  const requestId = globalThis.crypto.randomUUID()
  const call: TransportCall = {
    info,
    method: METHOD_NAMES[route.operation],
    id: requestId,
    params: route.params,
    caller,
    target,
    requestId,
    upstreamRequest: (params, signal) => {
      const goal = upstreamTarget(route, params, subpath, url.search)
      const request = {
        url: new URL(`${base}${goal.path}`, interfaceUrl),
        method: method as 'GET' | 'POST' | 'DELETE',
        headers: upstreamHeaders(
          req,
          forwardAuthorization,
          info.streaming ? 'text/event-stream' : 'application/json',
        ),
        signal,
      }
      return goal.body === undefined || method === 'GET' ? request : { ...request, body: goal.body }
    },
    readAnswer(status, text) {
      if (status === 204 || text.length === 0) return { type: 'empty', status }
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        return {
          type: 'garbage',
          reason: `the upstream answered HTTP ${status} with a body that is not JSON`,
        }
      }
      if (status >= 400) return { type: 'pass', status, body: text }
      return { type: 'value', value: value as Json }
    },
    answer: (response, value, raw) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(raw ?? JSON.stringify(value))
    },
    refuse: writeRestRefusal,
    sink: (response) => ({
      decode(event) {
        let value: unknown
        try {
          value = JSON.parse(event.data)
        } catch {
          return { type: 'garbage', reason: 'the upstream sent a streamed event that is not JSON' }
        }
        if (!isObject(value))
          return { type: 'garbage', reason: 'the upstream sent a streamed event that is not an object' }
        return event.type === 'error' ? { type: 'error', raw: value } : { type: 'result', result: value }
      },
      write: (result) => response.write(sseFrame(result)),
      passError: (raw) => response.write(sseFrame(raw, 'error')),
      fail: (refusal) => response.write(sseFrame(restError(refusal), 'error')),
    }),
  }
  await forwardCall(deps, call, res)
}
