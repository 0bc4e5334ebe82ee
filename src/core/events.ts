// The one place that defines what every event carries: the payload (what is being decided
// on) and the context (who, where, when). Adapters map their wire formats onto these types
// and back; hooks see exactly these shapes.

import { type EventName, suggestEventNames } from './catalog.js'

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** A JSON object. */
export type JsonObject = { [key: string]: Json }

/** A tool call: `tool.pre` carries name and input, `tool.post` adds output and isError. */
export interface ToolCall {
  name: string
  input: JsonObject
  id?: string
  output?: Json
  isError?: boolean
}

/** A message between user, agent and system. */
export interface ChatMessage {
  role: 'user' | 'agent' | 'system' | 'assistant' | 'tool'
  text: string
  /** The structured content as the wire carried it (AOS parts, model content blocks). */
  content?: Json
}

/** An MCP JSON-RPC message seen by a gateway or sent through AOS `protocols/MCP`. */
export interface McpPayload {
  message: JsonObject
  /** The JSON-RPC method of a request or notification. */
  method?: string
  direction: 'outbound' | 'inbound'
}

/** The method and direction of an MCP feature event (what a `matcher` tests is the method). */
export interface McpCall {
  method: string
  direction: 'outbound' | 'inbound'
}

/** A resource URI a client reads, subscribes to, or a server lists or announces. */
export interface McpResource {
  uri: string
  /** The method the URI came with: `resources/read`, `resources/list`, `notifications/resources/updated`… */
  via: string
  /** For a `file:` URI, the path it names (percent-decoded), for path rules. */
  path?: string
}

/** A prompt a client gets: its name and arguments; on `.post` also its messages. */
export interface McpPrompt {
  name: string
  arguments: JsonObject
  description?: string
  messages?: Json[]
}

/** An A2A call: the A2A method, its params, and the agents on either side. */
export interface A2aPayload {
  method: string
  payload: Json
  from?: JsonObject
  to?: JsonObject
}

/** What `a2a.response` carries: one answer or streamed event from the upstream agent. */
export interface A2aResponsePayload extends Omit<A2aPayload, 'method'> {
  /** The method answered, when known (an AOS `protocols/A2A` response does not say). */
  method?: string
  direction: 'inbound'
  kind: 'task' | 'message' | 'statusUpdate' | 'artifactUpdate' | 'result'
  /** The task the answer is about, whatever the wire form (always present on the gateway). */
  task?: JsonObject
  /** The artifacts the answer carries (always present on the gateway; [] when none). */
  artifacts?: Json[]
}

/** The payload shape of each canonical event. */
export interface PayloadByEvent {
  'agent.trigger': { trigger: JsonObject }
  'user.message': { message: ChatMessage }
  'agent.response': { message: ChatMessage }
  'system.message': { message: ChatMessage }
  'tool.pre': { tool: ToolCall }
  'tool.post': { tool: ToolCall }
  'memory.retrieve': { memory: { query?: Json; items: Json[] } }
  'memory.store': { memory: { items: Json[] } }
  'knowledge.retrieve': { knowledge: { query?: Json; results: Json[] } }
  'mcp.outbound': { mcp: McpPayload; tool?: ToolCall }
  'mcp.inbound': { mcp: McpPayload; tool?: ToolCall }
  /** A resource URI before it is read (also each listed, subscribed or announced URI). */
  'mcp.resource.read': { mcp: McpCall; resource: McpResource }
  /** A resources/read answer: the URI and its contents (text or base64 blob). */
  'mcp.resource.read.post': { mcp: McpCall; resource: { uri: string; contents: Json[] } }
  /** A prompts/get request: the prompt's name and arguments. */
  'mcp.prompt.get': { mcp: McpCall; prompt: McpPrompt }
  /** A prompts/get answer: the request's name and arguments with the messages returned. */
  'mcp.prompt.get.post': { mcp: McpCall; prompt: McpPrompt & { messages: Json[] } }
  /** A server's sampling/createMessage: its params (messages, systemPrompt, maxTokens…). */
  'mcp.sampling': { mcp: McpCall; sampling: JsonObject }
  /** The client's answer to a sampling/createMessage: the params with `result`. */
  'mcp.sampling.post': { mcp: McpCall; sampling: JsonObject & { result: JsonObject } }
  /** A server's elicitation/create: the message and requestedSchema shown to the user. */
  'mcp.elicitation': { mcp: McpCall; elicitation: JsonObject }
  /** The user's answer to an elicitation/create: the params with `result` (action, content). */
  'mcp.elicitation.post': { mcp: McpCall; elicitation: JsonObject & { result: JsonObject } }
  'a2a.send': { a2a: A2aPayload }
  'a2a.stream': { a2a: A2aPayload }
  'a2a.cancel': { a2a: A2aPayload }
  'a2a.get': { a2a: A2aPayload }
  'a2a.pushConfig.get': { a2a: A2aPayload }
  'a2a.pushConfig.set': { a2a: A2aPayload }
  'a2a.resubscribe': { a2a: A2aPayload }
  'a2a.list': { a2a: A2aPayload }
  'a2a.pushConfig.list': { a2a: A2aPayload }
  'a2a.pushConfig.delete': { a2a: A2aPayload }
  /** The upstream agent's card as `warden a2a` is about to serve it. */
  'a2a.card': { a2a: { method: 'agentCard'; card: JsonObject; to?: JsonObject } }
  /** An answer or one streamed event coming back from the upstream agent. */
  'a2a.response': { a2a: A2aResponsePayload }
  'model.pre': { model: { messages: Json[]; name?: string; tools?: Json[] } }
  'model.post': { model: { response: Json; name?: string; usage?: JsonObject } }
  'subagent.start': { subagent: { name?: string; task?: Json } }
  'subagent.stop': { subagent: { name?: string; result?: Json } }
  /** AI Harness's delegation.post_verify: the sub-agent's result, to verify (and block). */
  'subagent.verify': { subagent: { name?: string; result?: Json } }
  'agent.stop': { stop: { reason?: string; active?: boolean } }
  'session.start': { session: { source?: string } }
  'session.end': { session: { reason?: string } }
  error: { error: { message: string; code?: string } }
  /** ACS turn and compaction boundaries and skills: the ACS step payload as sent. */
  'turn.begin': JsonObject
  'turn.finish': JsonObject
  'compact.pre': JsonObject
  'compact.post': JsonObject
  'skill.register': JsonObject
  'skill.load': JsonObject
  'skill.unload': JsonObject
}

/** A payload: the typed shape for catalog events, any JSON object for custom ones. */
export type EventPayload = PayloadByEvent[keyof PayloadByEvent] | JsonObject

/** Who and where: the context every event carries. */
export interface EventContext {
  agent?: { id?: string; name?: string; [key: string]: unknown }
  session?: { id?: string; [key: string]: unknown }
  turnId?: string
  stepId?: string
  /** ISO 8601 time the event happened (set by the engine when absent). */
  timestamp?: string
  user?: { id?: string; organization?: { id?: string; [key: string]: unknown }; [key: string]: unknown }
  /** The tenant the event belongs to; hooks scoped to another tenant never see it. */
  tenantId?: string
  /** Sub-agent depth: 0 for the top agent. */
  depth?: number
  /** The caller's id for this request (e.g. a JSON-RPC id), kept in the audit record. */
  requestId?: string
  /** Working directory of the agent, when it has one (Claude Code `cwd`). */
  cwd?: string
  [key: string]: unknown
}

/** One event as the engine receives it. */
export interface WardenEvent<E extends EventName = EventName> {
  event: E
  payload: E extends keyof PayloadByEvent ? PayloadByEvent[E] : JsonObject
  context: EventContext
}

/** An event whose name is already canonical and whose shape was checked. */
export interface CheckedEvent {
  event: EventName
  payload: JsonObject
  context: EventContext
  /** The caller's check of a modify it must apply (see `DispatchInput.acceptModify`). */
  acceptModify?: ModifyCheck
  /** How to learn that the caller stopped waiting (see `DispatchInput.onCallerGone`). */
  onCallerGone?: OnCallerGone
  /** `denials`: recorded only when denied (see `DispatchInput.audit`). */
  audit?: 'denials'
}

/**
 * Registers a listener called once if the caller waiting for a decision goes away (its
 * connection closed before the answer was sent). A function, so it never reaches a record.
 */
export type OnCallerGone = (listener: () => void) => void

/**
 * A caller's check of a modify's payload: why the caller cannot apply it, or undefined when
 * it can. A refused modify becomes a deny with that reason before it is recorded.
 */
export type ModifyCheck = (payload: JsonObject) => string | undefined

type Check = (payload: Record<string, unknown>) => string | undefined

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const checkTool: Check = (payload) => {
  const tool = payload.tool
  if (!isPlainObject(tool)) return `tool must be an object like {name, input} (got ${describe(tool)})`
  if (typeof tool.name !== 'string') return `tool.name must be a string (got ${describe(tool.name)})`
  if (tool.name.length === 0) return 'tool.name must not be empty'
  if (!isPlainObject(tool.input)) return `tool.input must be an object (got ${describe(tool.input)})`
  return undefined
}

const checkMessage: Check = (payload) => {
  const message = payload.message
  if (!isPlainObject(message)) return `message must be an object like {role, text} (got ${describe(message)})`
  if (typeof message.role !== 'string') return `message.role must be a string (got ${describe(message.role)})`
  if (typeof message.text !== 'string') return `message.text must be a string (got ${describe(message.text)})`
  return undefined
}

const checkMcp: Check = (payload) => {
  const mcp = payload.mcp
  if (!isPlainObject(mcp)) return `mcp must be an object like {message, direction} (got ${describe(mcp)})`
  if (!isPlainObject(mcp.message))
    return `mcp.message must be a JSON-RPC message object (got ${describe(mcp.message)})`
  return undefined
}

/** The check of an MCP feature event: `key` must be an object, with `field` a string when given. */
function checkFeature(key: string, field?: string): Check {
  return (payload) => {
    const value = payload[key]
    if (!isPlainObject(value)) return `${key} must be an object (got ${describe(value)})`
    if (field !== undefined && typeof value[field] !== 'string')
      return `${key}.${field} must be a string (got ${describe(value[field])})`
    return undefined
  }
}

/** Minimal shape checks per event: what hooks and adapters rely on. Extra fields pass. */
const PAYLOAD_CHECKS = new Map<string, Check>([
  ['tool.pre', checkTool],
  ['tool.post', checkTool],
  ['user.message', checkMessage],
  ['agent.response', checkMessage],
  ['system.message', checkMessage],
  ['mcp.outbound', checkMcp],
  ['mcp.inbound', checkMcp],
  ['mcp.resource.read', checkFeature('resource', 'uri')],
  ['mcp.resource.read.post', checkFeature('resource', 'uri')],
  ['mcp.prompt.get', checkFeature('prompt', 'name')],
  ['mcp.prompt.get.post', checkFeature('prompt', 'name')],
  ['mcp.sampling', checkFeature('sampling')],
  ['mcp.sampling.post', checkFeature('sampling')],
  ['mcp.elicitation', checkFeature('elicitation')],
  ['mcp.elicitation.post', checkFeature('elicitation')],
])

function checkContext(context: Record<string, unknown>): string | undefined {
  const depth = context.depth
  if (depth !== undefined && (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0)) {
    return `depth must be a whole number >= 0 (got ${describe(depth)})`
  }
  if (context.tenantId !== undefined && typeof context.tenantId !== 'string') {
    return `tenantId must be a string (got ${describe(context.tenantId)})`
  }
  if (context.agent !== undefined && !isPlainObject(context.agent))
    return `agent must be an object (got ${describe(context.agent)})`
  if (context.session !== undefined && !isPlainObject(context.session)) {
    return `session must be an object (got ${describe(context.session)})`
  }
  if (context.user !== undefined && !isPlainObject(context.user))
    return `user must be an object (got ${describe(context.user)})`
  return undefined
}

/**
 * Checks the payload and context of an event whose name is canonical.
 * @returns an error message naming the field, or undefined when the event is well formed.
 */
export function checkEventShape(name: EventName, payload: unknown, context: unknown): string | undefined {
  return shapeCheckFor(name)(payload, context)
}

/** A checker of payload and context for one event, resolved once per name. */
export type ShapeCheck = (payload: unknown, context: unknown) => string | undefined

/** The shape check of an event, to resolve once and call per dispatch. */
export function shapeCheckFor(name: EventName): ShapeCheck {
  const check = PAYLOAD_CHECKS.get(name)
  return (payload, context) => {
    if (!isPlainObject(payload)) return `payload must be a JSON object (got ${describe(payload)})`
    if (context !== undefined) {
      if (!isPlainObject(context)) return `context must be a JSON object (got ${describe(context)})`
      const contextProblem = checkContext(context)
      if (contextProblem) return `context: ${contextProblem}`
    }
    const problem = check?.(payload)
    return problem ? `payload: ${problem}` : undefined
  }
}

/** A short description of a value's type for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`
}

/** Why an event is refused before any hook runs: the reasons dispatch (and dry runs) give. */
export const eventProblems = {
  /** The event itself is not an object. */
  notAnObject: (value: unknown): string => `the event must be an object (got ${describe(value)})`,
  /** The event name is not known; close names are suggested. */
  unknownName(given: unknown): string {
    const shown = typeof given === 'string' ? given : describe(given)
    const close = typeof given === 'string' ? suggestEventNames(given) : []
    const hint = close.length ? `; did you mean ${close.map((c) => `"${c}"`).join(' or ')}?` : ''
    return `unknown event "${shown}"${hint}`
  },
  /** The payload or context failed the event's shape check. */
  badShape: (name: EventName, problem: string): string => `invalid ${name} event: ${problem}`,
}

/** What an event acts on, for listings: the tool's name, a resource URI or prompt name, else the MCP or A2A method. */
export function subjectOf(payload: JsonObject): string | undefined {
  const named = (value: unknown, key: string): string | undefined => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    const found = (value as Record<string, unknown>)[key]
    return typeof found === 'string' && found !== '' ? found.slice(0, 200) : undefined
  }
  return (
    named(payload.tool, 'name') ??
    named(payload.resource, 'uri') ??
    named(payload.prompt, 'name') ??
    named(payload.mcp, 'method') ??
    named(payload.a2a, 'method')
  )
}

/** The tool a payload is about, if any (tool events and MCP `tools/call`). */
export function toolOf(payload: JsonObject): ToolCall | undefined {
  const tool = payload.tool
  if (tool && typeof tool === 'object' && !Array.isArray(tool) && typeof tool.name === 'string') {
    return tool as unknown as ToolCall
  }
  return undefined
}
