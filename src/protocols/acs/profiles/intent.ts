// Intent for IBAC (§8.4, Concepts › Intent): the Intent a session establishes at
// `sessionStart` or its first `agentTrigger`, checked and kept per tenant and session; the
// capability a request exercises; whether `Intent.parsed` (with an approver's extensions,
// §9.1) covers it; and the view of the Intent hooks get as `context.intent`.

import type { Json, JsonObject } from '../../../core/index.js'
import { ACS_ERRORS, AcsError, canonicalJson } from '../core/index.js'

/** How a request outside `Intent.parsed` is answered. */
export type ScopeMode = 'strict' | 'ask' | 'permissive'

export const SCOPE_MODES: readonly ScopeMode[] = ['strict', 'ask', 'permissive']

/** An Intent as the wire carries it (§8.4). */
export interface Intent {
  raw?: string
  parsed?: string[]
  parser_provenance?: JsonObject
  scope_mode: ScopeMode
}

/** Capabilities an approver added (§9.1), kept apart from the parser's. */
export interface IntentExtension {
  capabilities: string[]
  scope: 'this_request' | 'session'
  approver: { id: string; type: string }
  /** The step that raised the ASK the approver answered. */
  origin_step_id: string
  provenance: JsonObject
}

/** A session's Intent and the session-scoped extensions granted since. */
export interface SessionIntent {
  intent: Intent
  /** The canonical JSON of the Intent as established, to tell a repeat from a change. */
  canonical: string
  extensions: IntentExtension[]
}

const MAX_CAPABILITIES = 256
const MAX_CAPABILITY_CHARS = 256
const MAX_RAW_CHARS = 16_384
/** Most sessions whose Intent is kept (oldest dropped first, with their handshake state). */
const MAX_SESSIONS = 10_000

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(message: string): AcsError {
  return new AcsError(ACS_ERRORS.invalidParams, `params.payload.intent: ${message}`)
}

/** A list of capability names: strings, or objects naming one in `capability` or `name`. */
export function capabilityList(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw invalid(`${field} must be a list of capabilities`)
  if (value.length > MAX_CAPABILITIES) throw invalid(`${field} holds more than ${MAX_CAPABILITIES} entries`)
  return value.map((entry, i) => {
    const name = isObject(entry) ? (entry.capability ?? entry.name) : entry
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_CAPABILITY_CHARS) {
      throw invalid(
        `${field}[${i}] must be a capability name (1 to ${MAX_CAPABILITY_CHARS} characters), such as "filesystem.read"`,
      )
    }
    return name
  })
}

/**
 * The Intent a payload carries in `intent`, checked, or undefined when it carries none.
 * @throws AcsError -32602 naming the field that is wrong.
 */
export function intentOf(payload: JsonObject, defaultMode: ScopeMode): Intent | undefined {
  const value = payload.intent
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw invalid('must be an object {raw, parsed, parser_provenance, scope_mode}')
  const intent: Intent = { scope_mode: defaultMode }
  if (value.raw !== undefined) {
    if (typeof value.raw !== 'string' || value.raw.length > MAX_RAW_CHARS)
      throw invalid(`raw must be a string of at most ${MAX_RAW_CHARS} characters`)
    intent.raw = value.raw
  }
  if (value.parsed !== undefined) {
    intent.parsed = capabilityList(value.parsed, 'parsed')
    const provenance = value.parser_provenance
    if (!isObject(provenance)) throw invalid('parser_provenance is required when parsed is present')
    if (provenance.origin !== 'user_input') {
      throw invalid(
        `parser_provenance.origin must be "user_input" (got ${JSON.stringify(provenance.origin ?? null).slice(0, 40)}): Intent.parsed comes from the user's request, never from tool output or the model`,
      )
    }
    intent.parser_provenance = provenance
  }
  if (value.scope_mode !== undefined) {
    if (typeof value.scope_mode !== 'string' || !SCOPE_MODES.includes(value.scope_mode as ScopeMode))
      throw invalid(`scope_mode must be one of ${SCOPE_MODES.join(', ')}`)
    intent.scope_mode = value.scope_mode as ScopeMode
  }
  return intent
}

/** Whether a capability list covers `capability`: exactly, by a `prefix.*` entry, or `*` (alone covering an undetermined one). */
export function covers(capabilities: readonly string[], capability: string): boolean {
  const undetermined = capability === UNDETERMINED_CAPABILITY
  for (const entry of capabilities) {
    if (entry === '*') return true
    if (undetermined) continue
    if (entry === capability) return true
    if (entry.endsWith('.*') && capability.startsWith(entry.slice(0, -1))) return true
  }
  return false
}

/** The capability of a tool step whose tool cannot be told: out of every Intent but `*`. */
export const UNDETERMINED_CAPABILITY = '(undetermined)'

/**
 * The capability a request exercises, when its method has one: a tool call's
 * `capability` (the spec's abstract name), else its tool's name; an MCP `tools/call`'s
 * tool name (`params.name`, whether or not the payload repeats `method`). A tool step whose
 * tool cannot be told exercises {@link UNDETERMINED_CAPABILITY}. Other methods (and MCP
 * answers coming back) exercise none and are not checked against the Intent.
 */
export function requestedCapability(method: string, payload: JsonObject): string | undefined {
  if (method === 'steps/toolCallRequest') {
    if (typeof payload.capability === 'string' && payload.capability.length > 0) return payload.capability
    const tool = payload.tool
    if (typeof tool === 'string' && tool.length > 0) return tool
    if (isObject(tool)) {
      for (const key of ['name', 'id', 'tool_id']) {
        const name = tool[key]
        if (typeof name === 'string' && name.length > 0) return name
      }
    }
    return UNDETERMINED_CAPABILITY
  }
  const mcp = method.startsWith('protocols/MCP/')
    ? method.slice(14)
    : /^wrapped:mcp-[^/]+\/(.+)$/.exec(method)?.[1]
  if (mcp !== 'tools/call') return undefined
  if (payload.method === undefined && ('result' in payload || 'error' in payload)) return undefined
  if (payload.method !== undefined && payload.method !== 'tools/call') return UNDETERMINED_CAPABILITY
  const params = payload.params
  if (isObject(params) && typeof params.name === 'string' && params.name.length > 0) return params.name
  return UNDETERMINED_CAPABILITY
}

/** The capabilities a session may use now: the parser's and the session-scoped extensions. */
export function grantedCapabilities(session: SessionIntent, extra: readonly string[] = []): string[] {
  const all = [...(session.intent.parsed ?? [])]
  for (const extension of session.extensions) all.push(...extension.capabilities)
  all.push(...extra)
  return all
}

/** What hooks see as `context.intent` (a copy: a hook cannot change the session's Intent). */
export function intentView(
  session: SessionIntent,
  capability: string | undefined,
  thisRequest: readonly string[] = [],
): JsonObject {
  const view: JsonObject = { scope_mode: session.intent.scope_mode }
  if (session.intent.raw !== undefined) view.raw = session.intent.raw
  if (session.intent.parser_provenance)
    view.parser_provenance = structuredClone(session.intent.parser_provenance)
  const granted = grantedCapabilities(session, thisRequest)
  view.parsed = session.intent.parsed === undefined && granted.length === 0 ? null : granted
  view.extensions = session.extensions.map((e) => structuredClone(e) as unknown as Json)
  view.capability = capability ?? null
  view.in_scope =
    capability === undefined || session.intent.parsed === undefined ? null : covers(granted, capability)
  return view
}

/** The Intents of one Guardian's sessions, per tenant and session, in this process. */
export interface IntentRegistry {
  get(key: string): SessionIntent | undefined
  /** Establishes the Intent of a session that has none. */
  establish(key: string, intent: Intent): SessionIntent
  /** Appends a session-scoped extension (the only way `parsed` grows, §9.1). */
  extend(key: string, extension: IntentExtension): void
}

/** The canonical JSON of an Intent, to compare a later one with the established one. */
export function intentCanonical(intent: Intent): string {
  return canonicalJson(intent as unknown as Record<string, unknown>)
}

/** Creates a bounded registry (the oldest session is dropped past 10 000). */
export function createIntentRegistry(maxSessions = MAX_SESSIONS): IntentRegistry {
  const sessions = new Map<string, SessionIntent>()
  return {
    get: (key) => sessions.get(key),
    establish(key, intent) {
      const session: SessionIntent = { intent, canonical: intentCanonical(intent), extensions: [] }
      sessions.set(key, session)
      if (sessions.size > maxSessions) {
        const oldest = sessions.keys().next().value
        if (oldest !== undefined) sessions.delete(oldest)
      }
      return session
    },
    extend(key, extension) {
      sessions.get(key)?.extensions.push(extension)
    },
  }
}
