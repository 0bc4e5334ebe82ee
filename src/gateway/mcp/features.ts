// Resources, prompts, sampling and elicitation as events hooks can check. Each feature names
// its event, what hooks see of the request (`resource`, `prompt`, `sampling`, `elicitation`)
// and of its answer (the same object with the answer's part, on the `.post` event), and how
// a modify of either is written back into the message, checked against the SDK's schema.

import {
  CreateMessageRequestParamsSchema,
  CreateMessageResultWithToolsSchema,
  ElicitRequestParamsSchema,
  ElicitResultSchema,
  GetPromptResultSchema,
  type JSONRPCMessage,
  ReadResourceResultSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { Json, JsonObject } from '../../core/index.js'
import { isObject, messageId, paramsOf, resultOf } from './jsonrpc.js'
import type { Direction } from './outcome.js'
import { canonicalJson } from './pins.js'

/** A message a modify was written into, or why it could not be. */
export type Applied = { ok: true; message: JSONRPCMessage } | { ok: false; error: string }

/** One checked MCP feature: the request's event and its answer's. */
export interface Feature {
  /** The event of the request (`mcp.resource.read`); its answer's is this plus `.post`. */
  event: string
  /** The payload member hooks read: `resource`, `prompt`, `sampling`, `elicitation`. */
  key: string
  /** The direction the request travels. */
  direction: Direction
  /** What hooks see of the request. */
  subject(message: JSONRPCMessage): JsonObject
  /** Writes a modified subject back into the request. */
  applyRequest(subject: Json | undefined, message: JSONRPCMessage): Applied
  /** What hooks see of the answer (the subject with the answer's part), when it is checked. */
  answer?(subject: JsonObject, message: JSONRPCMessage): JsonObject
  /** Writes a modified answer view back into the answer. */
  applyAnswer?(view: Json | undefined, before: JsonObject, message: JSONRPCMessage): Applied
}

/** The params without `_meta`: what hooks see and may rewrite. */
function withoutMeta(object: JsonObject): JsonObject {
  const { _meta, ...rest } = object
  return rest
}

function withParams(message: JSONRPCMessage, params: JsonObject): JSONRPCMessage {
  return { ...message, params } as JSONRPCMessage
}

function withResult(message: JSONRPCMessage, result: JsonObject): JSONRPCMessage {
  return { jsonrpc: '2.0', id: messageId(message), result } as JSONRPCMessage
}

const same = (a: Json | undefined, b: Json | undefined) =>
  canonicalJson(a ?? null) === canonicalJson(b ?? null)

/**
 * What hooks see of a resource URI: the URI and the method it came with, and for a `file:`
 * URI also `path`, the file path it names (percent-decoding and `localhost` resolved), so
 * path rules see `file:///home/u/%2Eaws/credentials` as `/home/u/.aws/credentials`.
 */
export function resourceView(uri: string, via: string): JsonObject {
  const view: JsonObject = { uri, via }
  if (!/^file:/i.test(uri)) return view
  try {
    const url = new URL(uri)
    const host = url.hostname === 'localhost' ? '' : url.hostname
    const path = decodeURIComponent(url.pathname)
    view.path = host ? `//${host}${path}` : path
  } catch {
    view.path = uri.replace(/^file:(\/\/)?/i, '')
  }
  return view
}

function resourceFeature(via: string, reads: boolean): Feature {
  const feature: Feature = {
    event: 'mcp.resource.read',
    key: 'resource',
    direction: 'outbound',
    subject: (message) => resourceView(String(paramsOf(message).uri ?? ''), via),
    applyRequest(subject, message) {
      if (!isObject(subject) || typeof subject.uri !== 'string' || subject.uri.length === 0)
        return { ok: false, error: 'the modified resource.uri must be a non-empty string' }
      if (subject.uri === paramsOf(message).uri) return { ok: true, message }
      return { ok: true, message: withParams(message, { ...paramsOf(message), uri: subject.uri }) }
    },
  }
  if (!reads) return feature
  feature.answer = (subject, message) => ({
    uri: subject.uri ?? '',
    contents: (resultOf(message)?.contents ?? []) as Json,
  })
  feature.applyAnswer = (view, before, message) => {
    if (!isObject(view)) return { ok: false, error: 'the modified resource must be an object' }
    if (same(view.contents, before.contents)) return { ok: true, message }
    const result = { ...resultOf(message), contents: view.contents ?? [] }
    if (!ReadResourceResultSchema.safeParse(result).success)
      return { ok: false, error: 'the modified resource.contents are not valid resources/read contents' }
    return { ok: true, message: withResult(message, result) }
  }
  return feature
}

const PROMPT: Feature = {
  event: 'mcp.prompt.get',
  key: 'prompt',
  direction: 'outbound',
  subject(message) {
    const params = paramsOf(message)
    return { name: String(params.name ?? ''), arguments: isObject(params.arguments) ? params.arguments : {} }
  },
  applyRequest(subject, message) {
    const params = paramsOf(message)
    if (!isObject(subject)) return { ok: false, error: 'the modified prompt must be an object' }
    if (subject.name !== undefined && subject.name !== params.name)
      return { ok: false, error: 'a modify may not change the name of the prompt' }
    const args = subject.arguments
    if (args === undefined || same(args, isObject(params.arguments) ? params.arguments : {}))
      return { ok: true, message }
    if (!isObject(args) || Object.values(args).some((value) => typeof value !== 'string'))
      return { ok: false, error: 'the modified prompt.arguments must map names to strings' }
    return { ok: true, message: withParams(message, { ...params, arguments: args }) }
  },
  answer(subject, message) {
    const result = resultOf(message) ?? {}
    const view: JsonObject = { ...subject, messages: (result.messages ?? []) as Json }
    if (typeof result.description === 'string') view.description = result.description
    return view
  },
  applyAnswer(view, before, message) {
    if (!isObject(view)) return { ok: false, error: 'the modified prompt must be an object' }
    if (same(view.messages, before.messages) && same(view.description, before.description))
      return { ok: true, message }
    const result: JsonObject = { ...resultOf(message), messages: view.messages ?? [] }
    if (typeof view.description === 'string') result.description = view.description
    else delete result.description
    if (!GetPromptResultSchema.safeParse(result).success)
      return { ok: false, error: 'the modified prompt.messages are not a valid prompts/get result' }
    return { ok: true, message: withResult(message, result) }
  },
}

/** Sampling and elicitation: server requests whose params hooks see whole, and the client's answer. */
function serverRequestFeature(
  event: string,
  key: string,
  params: { safeParse(value: unknown): { success: boolean } },
  result: { safeParse(value: unknown): { success: boolean } },
): Feature {
  return {
    event,
    key,
    direction: 'inbound',
    subject: (message) => withoutMeta(paramsOf(message)),
    applyRequest(subject, message) {
      const original = paramsOf(message)
      if (!isObject(subject)) return { ok: false, error: `the modified ${key} must be an object` }
      if (same(subject, withoutMeta(original))) return { ok: true, message }
      const next: JsonObject = { ...subject }
      if (original._meta !== undefined) next._meta = original._meta
      if (!params.safeParse(next).success)
        return {
          ok: false,
          error: `the modified ${key} is not valid ${event === 'mcp.sampling' ? 'sampling/createMessage' : 'elicitation/create'} params`,
        }
      return { ok: true, message: withParams(message, next) }
    },
    answer: (subject, message) => ({ ...subject, result: withoutMeta(resultOf(message) ?? {}) }),
    applyAnswer(view, before, message) {
      if (!isObject(view) || !isObject(view.result))
        return { ok: false, error: `the modified ${key}.result must be an object` }
      if (same(view.result, before.result)) return { ok: true, message }
      const next: JsonObject = { ...view.result }
      const meta = resultOf(message)?._meta
      if (meta !== undefined) next._meta = meta
      if (!result.safeParse(next).success)
        return { ok: false, error: `the modified ${key}.result is not a valid answer` }
      return { ok: true, message: withResult(message, next) }
    },
  }
}

/** The features, by the method of their request. */
export const FEATURES: ReadonlyMap<string, Feature> = new Map([
  ['resources/read', resourceFeature('resources/read', true)],
  ['resources/subscribe', resourceFeature('resources/subscribe', false)],
  ['resources/unsubscribe', resourceFeature('resources/unsubscribe', false)],
  ['prompts/get', PROMPT],
  [
    'sampling/createMessage',
    serverRequestFeature(
      'mcp.sampling',
      'sampling',
      CreateMessageRequestParamsSchema,
      CreateMessageResultWithToolsSchema,
    ),
  ],
  [
    'elicitation/create',
    serverRequestFeature('mcp.elicitation', 'elicitation', ElicitRequestParamsSchema, ElicitResultSchema),
  ],
])

/** The feature of a request travelling in `direction`, if it has one. */
export function featureOf(method: string, direction: Direction): Feature | undefined {
  const feature = FEATURES.get(method)
  return feature?.direction === direction ? feature : undefined
}

/** The payload of a feature event: the method and direction (for matchers) and the subject. */
export function featurePayload(feature: Feature, method: string, subject: JsonObject): JsonObject {
  return { mcp: { method, direction: feature.direction }, [feature.key]: subject }
}

/** The listed URIs of a resources/list or resources/templates/list answer, by index. */
export function listedResources(
  method: string,
  message: JSONRPCMessage,
): { list: string; uris: (string | undefined)[] } | undefined {
  const list =
    method === 'resources/list'
      ? 'resources'
      : method === 'resources/templates/list'
        ? 'resourceTemplates'
        : undefined
  const result = resultOf(message)
  if (!list || !result || !Array.isArray(result[list])) return undefined
  const field = list === 'resources' ? 'uri' : 'uriTemplate'
  const uris = (result[list] as Json[]).map((entry) =>
    isObject(entry) && typeof entry[field] === 'string' ? (entry[field] as string) : undefined,
  )
  return { list, uris }
}

/** The answer with only the listed entries at `keep`. */
export function keepListed(message: JSONRPCMessage, list: string, keep: readonly number[]): JSONRPCMessage {
  const result = resultOf(message) as JsonObject
  const entries = result[list] as Json[]
  if (keep.length === entries.length) return message
  return withResult(message, { ...result, [list]: keep.map((index) => entries[index] as Json) })
}
