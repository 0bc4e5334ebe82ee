// The checks of resources, prompts, sampling and elicitation, run after a message's `mcp.*`
// check: the feature's event on the request (its subject written back on a modify), the
// `.post` event on its answer, each URI a server lists (denied ones left out) and each URI
// a server announces as updated (denied: the notification is dropped).

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
import { paramsOf } from './jsonrpc.js'
import type { Direction } from './outcome.js'

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
export const MAX_LISTED_RESOURCES = 10_000

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
  return { ok: true, message: step.message, subject: view }
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
  const decisions = await Promise.all(
    listed.uris.map((uri) =>
      uri === undefined
        ? undefined
        : dispatch(
            'mcp.resource.read',
            { mcp: { method, direction: 'inbound' }, resource: resourceView(uri, method) },
            context,
            () => ({ ok: false, error: 'a listed resource cannot be modified, only left out' }),
          ),
    ),
  )
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
