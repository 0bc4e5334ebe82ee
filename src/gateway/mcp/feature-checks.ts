// The checks of resources, prompts, sampling and elicitation, run after a message's `mcp.*`
// check: the feature's event on the request (its subject written back on a modify), the
// `.post` event on its answer, each URI a server lists (denied ones left out) and each URI
// a server announces as updated (denied: the notification is dropped), and each resource
// embedded in a tool result or prompt message (denied: the answer is refused).

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Decision, EventContext, JsonObject } from '../../core/index.js'
import {
  type Applied,
  type Feature,
  featurePayload,
  keepListed,
  listedResources,
  resourceView,
} from './features.js'
import { isObject, paramsOf, resultOf } from './jsonrpc.js'
import type { Direction } from './outcome.js'
import { retrievalEvent, retrievalKey, retrievalPayload, retrievedContents } from './retrieval.js'

/** How the session dispatches one event (a modify that `applies` refuses becomes a deny). */
export type Dispatch = (
  event: string,
  payload: JsonObject,
  context: EventContext,
  applies?: (payload: JsonObject) => { ok: true } | { ok: false; error: string },
) => Promise<Decision>

/** A feature check's result: the message to go on with (and the subject seen), or why not. */
export type FeatureStep =
  | { ok: true; message: JSONRPCMessage; subject: JsonObject }
  | { ok: false; reason: string; decision?: Decision }

/** Most listed entries one list answer may carry; past it the answer is refused. */
export const MAX_LISTED_RESOURCES = 1000

/** Listed URIs checked at once. */
const LISTED_AT_ONCE = 16

/** Runs one event and writes its modify back with `apply`. */
async function checkStep(
  dispatch: Dispatch,
  event: string,
  payload: JsonObject,
  key: string,
  context: EventContext,
  message: JSONRPCMessage,
  apply: (value: JsonObject[string] | undefined) => Applied,
): Promise<{ ok: true; message: JSONRPCMessage } | { ok: false; reason: string; decision?: Decision }> {
  const decision = await dispatch(event, payload, context, (modified) => {
    const applied = apply(modified[key])
    return applied.ok ? { ok: true } : applied
  })
  if (decision.decision === 'deny') return { ok: false, reason: decision.reason, decision }
  if (decision.decision !== 'modify') return { ok: true, message }
  const applied = apply(decision.payload?.[key])
  return applied.ok ? applied : { ok: false, reason: applied.error }
}

/** Checks a feature's request; the subject is kept for its answer's check. */
export async function checkFeatureRequest(
  dispatch: Dispatch,
  feature: Feature,
  message: JSONRPCMessage,
  method: string,
  context: EventContext,
): Promise<FeatureStep> {
  const subject = feature.subject(message)
  const step = await checkStep(
    dispatch,
    feature.event,
    featurePayload(feature, method, subject),
    feature.key,
    context,
    message,
    (value) => feature.applyRequest(value, message),
  )
  if (!step.ok) return step
  const current = step.message
  return { ok: true, message: current, subject: current === message ? subject : feature.subject(current) }
}

/** Checks the answer to a feature's request on its `.post` event. */
export async function checkFeatureAnswer(
  dispatch: Dispatch,
  feature: Feature,
  subject: JsonObject,
  message: JSONRPCMessage,
  method: string,
  context: EventContext,
): Promise<FeatureStep> {
  if (!feature.answer || !feature.applyAnswer) return { ok: true, message, subject }
  const view = feature.answer(subject, message)
  const applyAnswer = feature.applyAnswer
  const step = await checkStep(
    dispatch,
    `${feature.event}.post`,
    featurePayload(feature, method, view),
    feature.key,
    context,
    message,
    (value) => applyAnswer(value, view, message),
  )
  if (!step.ok) return step
  if (method !== 'resources/read') return { ok: true, message: step.message, subject: view }
  return checkRetrieval(dispatch, feature, view, step.message, context)
}

/** A read resource's answer as `knowledge.retrieve` (or `memory.retrieve`): see retrieval.ts. */
async function checkRetrieval(
  dispatch: Dispatch,
  feature: Feature,
  view: JsonObject,
  message: JSONRPCMessage,
  context: EventContext,
): Promise<FeatureStep> {
  const uri = String(view.uri ?? '')
  const event = retrievalEvent(uri)
  const apply = (value: JsonObject[string] | undefined): Applied => {
    const contents = retrievedContents(value)
    if (contents === undefined)
      return { ok: false, error: `the modified ${retrievalKey(event)} has no results` }
    return feature.applyAnswer?.({ ...view, contents }, view, message) ?? { ok: true, message }
  }
  const payload = retrievalPayload(uri, view.contents as JsonObject[string])
  const step = await checkStep(dispatch, event, payload, retrievalKey(event), context, message, apply)
  return step.ok ? { ok: true, message: step.message, subject: view } : step
}

/**
 * Checks each URI of a resources/list or resources/templates/list answer as
 * `mcp.resource.read` (via the list's method); denied entries are left out.
 */
export async function checkListedResources(
  dispatch: Dispatch,
  message: JSONRPCMessage,
  method: string,
  context: EventContext,
  log: (line: string) => void,
): Promise<{ ok: true; message: JSONRPCMessage } | { ok: false; reason: string }> {
  const listed = listedResources(method, message)
  if (!listed) return { ok: true, message }
  if (listed.uris.length > MAX_LISTED_RESOURCES) {
    return {
      ok: false,
      reason: `the ${method} answer lists ${listed.uris.length} entries, more than the ${MAX_LISTED_RESOURCES} Warden checks in one answer`,
    }
  }
  const check = (uri: string | undefined) =>
    uri === undefined
      ? undefined
      : dispatch(
          'mcp.resource.read',
          { mcp: { method, direction: 'inbound' }, resource: resourceView(uri, method) },
          context,
          () => ({ ok: false, error: 'a listed resource cannot be modified, only left out' }),
        )
  // A few at a time: a slow hook (a command, a webhook) is not started for every entry at once.
  const decisions: (Decision | undefined)[] = []
  for (let start = 0; start < listed.uris.length; start += LISTED_AT_ONCE)
    decisions.push(...(await Promise.all(listed.uris.slice(start, start + LISTED_AT_ONCE).map(check))))
  const keep: number[] = []
  for (const [index, decision] of decisions.entries()) {
    if (decision === undefined) log(`left out of ${method}: an entry without a readable URI`)
    else if (decision.decision === 'deny')
      log(`left out of ${method}: ${listed.uris[index]}: ${decision.reason}`)
    else keep.push(index)
  }
  return { ok: true, message: keepListed(message, listed.list, keep) }
}

/** Checks the URI of a notifications/resources/updated: the reason it is dropped, if denied. */
export async function checkAnnouncedResource(
  dispatch: Dispatch,
  message: JSONRPCMessage,
  direction: Direction,
  context: EventContext,
): Promise<string | undefined> {
  const uri = paramsOf(message).uri
  if (typeof uri !== 'string' || uri.length === 0) return 'notifications/resources/updated needs params.uri'
  const method = 'notifications/resources/updated'
  const decision = await dispatch(
    'mcp.resource.read',
    { mcp: { method, direction }, resource: resourceView(uri, method) },
    context,
    () => ({ ok: false, error: 'an announced resource cannot be modified, only dropped' }),
  )
  return decision.decision === 'deny' ? decision.reason : undefined
}

/** The URIs of the resources embedded in a tools/call result or in prompts/get messages. */
function embeddedUris(method: string, message: JSONRPCMessage): string[] {
  const result = resultOf(message)
  if (!result) return []
  const blocks =
    method === 'tools/call'
      ? result.content
      : method === 'prompts/get' && Array.isArray(result.messages)
        ? result.messages.map((m) => (isObject(m) ? (m.content ?? null) : null))
        : undefined
  if (!Array.isArray(blocks)) return []
  const uris: string[] = []
  for (const block of blocks.flat()) {
    const resource = isObject(block) && block.type === 'resource' ? block.resource : undefined
    if (isObject(resource) && typeof resource.uri === 'string') uris.push(resource.uri)
  }
  return uris
}

/**
 * Checks each resource embedded in a tools/call result or prompts/get messages as
 * `mcp.resource.read` (via the method): why the answer is refused, or undefined.
 */
export async function checkEmbeddedResources(
  dispatch: Dispatch,
  message: JSONRPCMessage,
  method: string,
  context: EventContext,
): Promise<string | undefined> {
  for (const uri of embeddedUris(method, message)) {
    const decision = await dispatch(
      'mcp.resource.read',
      { mcp: { method, direction: 'inbound' }, resource: resourceView(uri, method) },
      context,
      () => ({ ok: false, error: 'an embedded resource cannot be modified here; modify the answer instead' }),
    )
    if (decision.decision === 'deny') return `embedded resource ${uri.slice(0, 200)}: ${decision.reason}`
  }
  return undefined
}

/** A request whose answer is checked: its method, context and feature. */
export interface AnsweredRequest {
  method: string
  context: EventContext
  feature?: { feature: Feature; subject: JsonObject }
}

/**
 * The checks of an answer after its `mcp.*` event: resources embedded in prompt messages,
 * the feature's `.post` event, and the URIs of a resource listing.
 */
export async function checkAnswerFeatures(
  dispatch: Dispatch,
  message: JSONRPCMessage,
  request: AnsweredRequest,
  direction: Direction,
  log: (line: string) => void,
): Promise<{ ok: true; message: JSONRPCMessage } | { ok: false; reason: string; decision?: Decision }> {
  if (!resultOf(message)) return { ok: true, message }
  const { method, context } = request
  if (direction === 'inbound' && method === 'prompts/get') {
    const reason = await checkEmbeddedResources(dispatch, message, method, context)
    if (reason !== undefined) return { ok: false, reason }
  }
  if (request.feature) {
    const { feature, subject } = request.feature
    const step = await checkFeatureAnswer(dispatch, feature, subject, message, method, context)
    return step.ok ? { ok: true, message: step.message } : step
  }
  if (direction !== 'inbound') return { ok: true, message }
  return checkListedResources(dispatch, message, method, context, log)
}
