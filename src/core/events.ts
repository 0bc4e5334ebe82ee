// The one place that defines what every event carries: the payload (what is being decided
// on) and the context (who, where, when). Adapters map their wire formats onto these types
// and back; hooks see exactly these shapes.

import { z } from 'zod'
import type { EventName } from './catalog.js'

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

/** An A2A call: the A2A method, its params, and the agents on either side. */
export interface A2aPayload {
  method: string
  payload: Json
  from?: JsonObject
  to?: JsonObject
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
  'a2a.send': { a2a: A2aPayload }
  'a2a.stream': { a2a: A2aPayload }
  'a2a.cancel': { a2a: A2aPayload }
  'a2a.get': { a2a: A2aPayload }
  'a2a.pushConfig.get': { a2a: A2aPayload }
  'a2a.pushConfig.set': { a2a: A2aPayload }
  'a2a.resubscribe': { a2a: A2aPayload }
  'model.pre': { model: { messages: Json[]; name?: string; tools?: Json[] } }
  'model.post': { model: { response: Json; name?: string; usage?: JsonObject } }
  'subagent.start': { subagent: { name?: string; task?: Json } }
  'subagent.stop': { subagent: { name?: string; result?: Json } }
  'agent.stop': { stop: { reason?: string; active?: boolean } }
  'session.start': { session: { source?: string } }
  'session.end': { session: { reason?: string } }
  error: { error: { message: string; code?: string } }
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
}

const jsonObject = z.record(z.string(), z.unknown())
const toolShape = z.object({ name: z.string().min(1, 'the tool name must not be empty'), input: jsonObject })
const messageShape = z.object({ role: z.string(), text: z.string() })

/** Minimal shape checks per event: what hooks and adapters rely on. Extra fields pass. */
const PAYLOAD_CHECKS: Partial<Record<EventName, z.ZodType>> = {
  'tool.pre': z.object({ tool: toolShape }),
  'tool.post': z.object({ tool: toolShape }),
  'user.message': z.object({ message: messageShape }),
  'agent.response': z.object({ message: messageShape }),
  'system.message': z.object({ message: messageShape }),
  'mcp.outbound': z.object({ mcp: z.object({ message: jsonObject }) }),
  'mcp.inbound': z.object({ mcp: z.object({ message: jsonObject }) }),
}

const contextCheck = z
  .object({
    depth: z.number().int().min(0).optional(),
    tenantId: z.string().optional(),
    agent: jsonObject.optional(),
    session: jsonObject.optional(),
  })
  .passthrough()

/**
 * Checks the payload and context of an event whose name is canonical.
 * @returns an error message naming the field, or undefined when the event is well formed.
 */
export function checkEventShape(name: EventName, payload: unknown, context: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return `payload must be a JSON object (got ${describe(payload)})`
  }
  if (context !== undefined && (typeof context !== 'object' || context === null || Array.isArray(context))) {
    return `context must be a JSON object (got ${describe(context)})`
  }
  const check = PAYLOAD_CHECKS[name]
  if (check) {
    const result = check.safeParse(payload)
    if (!result.success) return `payload: ${formatIssue(result.error.issues[0])}`
  }
  if (context !== undefined) {
    const result = contextCheck.safeParse(context)
    if (!result.success) return `context: ${formatIssue(result.error.issues[0])}`
  }
  return undefined
}

function formatIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'invalid'
  const path = issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
  return `${path}${issue.message}`
}

/** A short description of a value's type for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`
}

/** The tool a payload is about, if any (tool events and MCP `tools/call`). */
export function toolOf(payload: JsonObject): ToolCall | undefined {
  const tool = payload.tool
  if (tool && typeof tool === 'object' && !Array.isArray(tool) && typeof tool.name === 'string') {
    return tool as unknown as ToolCall
  }
  return undefined
}
