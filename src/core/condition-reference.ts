// The variables a CEL `if` condition can use for each event, with their types and an
// example, for editors and documentation. Nothing here is kept by hand beside the engine:
// each catalog event has an example payload typed against `PayloadByEvent` (the compiler
// holds it to events.ts, and a new catalog event without one does not compile), and the
// variables are what `conditionVars` — the function the engine itself evaluates `if` with —
// makes of that example, walked down to a few levels.

import { CANONICAL_EVENTS, type CatalogEventName } from './catalog.js'
import type { EventContext, JsonObject, PayloadByEvent } from './events.js'
import { conditionVars } from './match.js'

/** One variable (or field of one) an `if` condition can read. */
export interface ConditionVariable {
  /** The CEL path, e.g. `tool.input.command`. */
  path: string
  /** The CEL type: string, int, double, bool, list, map or null. */
  type: string
  /** The example's value, as CEL source text (cut short). */
  example: string
}

const tool = { name: 'Bash', input: { command: 'ls -la' } }
const a2a = { method: 'message/send', payload: { message: { role: 'user', parts: [] } } }

/** An example payload per catalog event, typed against events.ts. */
const EXAMPLES: { [E in CatalogEventName]: PayloadByEvent[E] } = {
  'agent.trigger': { trigger: { kind: 'schedule', name: 'nightly' } },
  'user.message': { message: { role: 'user', text: 'Please tidy up my notes.' } },
  'agent.response': { message: { role: 'agent', text: 'Done.' } },
  'system.message': { message: { role: 'system', text: 'You are a helpful agent.' } },
  'tool.pre': { tool },
  'tool.post': { tool: { ...tool, output: 'total 0', isError: false } },
  'memory.retrieve': { memory: { query: 'last order', items: [] } },
  'memory.store': { memory: { items: ['likes tea'] } },
  'knowledge.retrieve': { knowledge: { query: 'refund policy', results: [] } },
  'mcp.outbound': {
    mcp: {
      message: { jsonrpc: '2.0', method: 'tools/call', params: {} },
      method: 'tools/call',
      direction: 'outbound',
    },
    tool,
  },
  'mcp.inbound': {
    mcp: { message: { jsonrpc: '2.0', result: {} }, direction: 'inbound' },
  },
  'mcp.resource.read': {
    mcp: { method: 'resources/read', direction: 'outbound' },
    resource: { uri: 'file:///srv/notes/todo.md', via: 'resources/read' },
  },
  'mcp.resource.read.post': {
    mcp: { method: 'resources/read', direction: 'outbound' },
    resource: {
      uri: 'file:///srv/notes/todo.md',
      contents: [{ uri: 'file:///srv/notes/todo.md', text: 'milk' }],
    },
  },
  'mcp.prompt.get': {
    mcp: { method: 'prompts/get', direction: 'outbound' },
    prompt: { name: 'review', arguments: { file: 'a.ts' } },
  },
  'mcp.prompt.get.post': {
    mcp: { method: 'prompts/get', direction: 'outbound' },
    prompt: {
      name: 'review',
      arguments: { file: 'a.ts' },
      messages: [{ role: 'user', content: { type: 'text', text: 'Review a.ts' } }],
    },
  },
  'mcp.sampling': {
    mcp: { method: 'sampling/createMessage', direction: 'inbound' },
    sampling: { messages: [], systemPrompt: 'Be brief.', maxTokens: 100 },
  },
  'mcp.sampling.post': {
    mcp: { method: 'sampling/createMessage', direction: 'inbound' },
    sampling: {
      messages: [],
      maxTokens: 100,
      result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' },
    },
  },
  'mcp.elicitation': {
    mcp: { method: 'elicitation/create', direction: 'inbound' },
    elicitation: { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } },
  },
  'mcp.elicitation.post': {
    mcp: { method: 'elicitation/create', direction: 'inbound' },
    elicitation: { message: 'Your name?', result: { action: 'accept', content: { name: 'Ann' } } },
  },
  'a2a.send': { a2a },
  'a2a.stream': { a2a: { ...a2a, method: 'message/stream' } },
  'a2a.cancel': { a2a: { method: 'tasks/cancel', payload: { id: 'task-1' } } },
  'a2a.get': { a2a: { method: 'tasks/get', payload: { id: 'task-1' } } },
  'a2a.pushConfig.get': { a2a: { method: 'tasks/pushNotificationConfig/get', payload: { id: 'task-1' } } },
  'a2a.pushConfig.set': { a2a: { method: 'tasks/pushNotificationConfig/set', payload: { id: 'task-1' } } },
  'a2a.resubscribe': { a2a: { method: 'tasks/resubscribe', payload: { id: 'task-1' } } },
  'a2a.list': { a2a: { method: 'tasks/list', payload: {} } },
  'a2a.pushConfig.list': { a2a: { method: 'tasks/pushNotificationConfig/list', payload: { id: 'task-1' } } },
  'a2a.pushConfig.delete': {
    a2a: { method: 'tasks/pushNotificationConfig/delete', payload: { id: 'task-1' } },
  },
  'a2a.card': { a2a: { method: 'agentCard', card: { name: 'helper' } } },
  'a2a.response': { a2a: { direction: 'inbound', kind: 'message', payload: {} } },
  'model.pre': { model: { messages: [], name: 'gpt-4o' } },
  'model.post': { model: { response: {}, name: 'gpt-4o', usage: { totalTokens: 120 } } },
  'subagent.start': { subagent: { name: 'researcher', task: 'find sources' } },
  'subagent.stop': { subagent: { name: 'researcher', result: 'done' } },
  'subagent.verify': { subagent: { name: 'researcher', result: 'done' } },
  'agent.stop': { stop: { reason: 'end_turn', active: false } },
  'session.start': { session: { source: 'startup' } },
  'session.end': { session: { reason: 'logout' } },
  error: { error: { message: 'rate limited', code: '429' } },
  'turn.begin': { turn: 1 },
  'turn.finish': { turn: 1 },
  'compact.pre': { trigger: 'auto' },
  'compact.post': { trigger: 'auto' },
  'skill.register': { skill: { name: 'pdf' } },
  'skill.load': { skill: { name: 'pdf' } },
  'skill.unload': { skill: { name: 'pdf' } },
}

/** The context every example carries (the fields events.ts names). */
const CONTEXT: EventContext = {
  agent: { id: 'support-triage', name: 'Support triage' },
  session: { id: 'session-1' },
  turnId: 'turn-3',
  user: { id: 'user-7' },
  tenantId: 'acme',
  depth: 0,
  cwd: '/srv/app',
}

/** How deep objects are walked: `tool.input.command` is three levels. */
const DEPTH = 3

function celType(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (Array.isArray(value)) return 'list'
  if (typeof value === 'object') return 'map'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double'
  if (typeof value === 'boolean') return 'bool'
  return 'string'
}

function exampleText(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null'
  return text.length > 60 ? `${text.slice(0, 59)}…` : text
}

function walk(path: string, value: unknown, level: number, out: ConditionVariable[]): void {
  out.push({ path, type: celType(value), example: exampleText(value) })
  if (level >= DEPTH || typeof value !== 'object' || value === null || Array.isArray(value)) return
  for (const [key, inner] of Object.entries(value)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) walk(`${path}.${key}`, inner, level + 1, out)
  }
}

/** Whether the catalog names the event (custom.* and meta.* events have no fixed payload). */
function isCatalogEvent(name: string): name is CatalogEventName {
  return (CANONICAL_EVENTS as readonly string[]).includes(name)
}

/**
 * The variables an `if` condition of a hook on `event` can use, with types and an example.
 * For a `custom.*` / `meta.*` event the payload is whatever the embedder sends (`payload`
 * is a map of unknown fields).
 */
export function conditionReference(event: string): ConditionVariable[] {
  const payload = (isCatalogEvent(event) ? EXAMPLES[event] : {}) as JsonObject
  const vars = conditionVars({ event: event as CatalogEventName, payload, context: CONTEXT })
  const out: ConditionVariable[] = []
  for (const [name, value] of Object.entries(vars)) {
    // `payload` and `context` repeat what the variables above them name; one level is enough.
    walk(name, value, name === 'payload' || name === 'context' ? DEPTH - 1 : 1, out)
  }
  return out
}
