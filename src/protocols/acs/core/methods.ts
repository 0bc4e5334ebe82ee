// The ACS methods mapped onto Warden events and back: the 19 `steps/*` hooks, wrapped MCP
// (`protocols/MCP/<method>` and `wrapped:mcp-<version>/<method>`) and `agbom/*`. Each
// mapping turns the ACS payload into the event payload hooks see, and a hook's modified
// event payload back into the ACS payload, so one hook serves AOS, ACS and the rest.

import type { Json, JsonObject } from '../../../core/index.js'
import { ACS_ERRORS, AcsError } from './errors.js'

/** How one ACS method maps onto an event. */
export interface AcsMethod {
  event: string
  /** Whether DENY is a legal answer (§5, hooks.md): audit-only hooks always proceed. */
  denyEligible: boolean
  /** The event payload hooks see. @throws AcsError -32602 naming the field. */
  toEvent(payload: JsonObject, method: string): JsonObject
  /** The ACS payload a modified event payload stands for. */
  toPayload(original: JsonObject, modified: JsonObject): JsonObject
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The text of ACS message content: a string, parts with `text`, or an object with text/content. */
export function contentText(value: Json | undefined): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map((part) => contentText(part)).join('')
  if (isObject(value)) {
    if (typeof value.text === 'string') return value.text
    if (value.content !== undefined) return contentText(value.content)
    if (value.value !== undefined) return contentText(value.value)
  }
  return ''
}

/** The event payload is the ACS payload itself (events new with ACS, agbom). */
function verbatim(event: string, denyEligible: boolean): AcsMethod {
  return {
    event,
    denyEligible,
    toEvent: (payload) => payload,
    toPayload: (_original, modified) => modified,
  }
}

/** The ACS payload kept under `acs`, beside the fields the event's shape needs. */
function wrapped(
  event: string,
  denyEligible: boolean,
  build: (payload: JsonObject) => JsonObject,
  back: (original: JsonObject, modified: JsonObject) => JsonObject = (original) => original,
): AcsMethod {
  return {
    event,
    denyEligible,
    toEvent: (payload) => {
      const event = build(payload)
      event.acs = payload
      return event
    },
    toPayload: (original, modified) => {
      const acs = isObject(modified.acs) ? modified.acs : original
      return back(acs === original ? original : acs, modified)
    },
  }
}

function messageField(payload: JsonObject): Json | undefined {
  return payload.message ?? payload.content
}

function message(event: string, role: 'user' | 'agent'): AcsMethod {
  return wrapped(
    event,
    true,
    (payload) => {
      const content = messageField(payload)
      return { message: { role, text: contentText(content), ...(content === undefined ? {} : { content }) } }
    },
    (original, modified) => {
      const text = isObject(modified.message) ? modified.message.text : undefined
      if (typeof text !== 'string' || text === contentText(messageField(original))) return original
      const key = original.message !== undefined ? 'message' : 'content'
      return { ...original, [key]: text }
    },
  )
}

/** A tool argument's value: ACS ToolArgumentValue `{value, provenance}` or the bare value. */
function argumentValue(value: Json): Json {
  return isObject(value) &&
    'value' in value &&
    Object.keys(value).every((k) => k === 'value' || k === 'provenance')
    ? (value.value ?? null)
    : value
}

function toolName(tool: Json | undefined): string {
  if (typeof tool === 'string') return tool
  if (isObject(tool)) {
    for (const key of ['name', 'id', 'tool_id']) if (typeof tool[key] === 'string') return tool[key] as string
  }
  return ''
}

function toolInput(payload: JsonObject): JsonObject {
  const args = payload.arguments
  const input: JsonObject = {}
  if (isObject(args)) for (const key of Object.keys(args)) input[key] = argumentValue(args[key] ?? null)
  return input
}

const toolCallRequest = wrapped(
  'tool.pre',
  true,
  (payload) => {
    const name = toolName(payload.tool)
    if (name === '') {
      throw new AcsError(
        ACS_ERRORS.invalidParams,
        'params.payload.tool must name the tool: {"id": "..."} or {"name": "..."}',
      )
    }
    if (payload.arguments !== undefined && !isObject(payload.arguments)) {
      throw new AcsError(
        ACS_ERRORS.invalidParams,
        'params.payload.arguments must be an object of argument name to value',
      )
    }
    const tool: JsonObject = { name, input: toolInput(payload) }
    if (typeof payload.execution_id === 'string') tool.id = payload.execution_id
    const event: JsonObject = { tool }
    if (typeof payload.reasoning === 'string') event.reasoning = payload.reasoning
    return event
  },
  (original, modified) => {
    const tool = isObject(modified.tool) ? modified.tool : undefined
    if (!tool || !isObject(tool.input)) return original
    const args = isObject(original.arguments) ? original.arguments : {}
    const next: JsonObject = {}
    for (const [key, value] of Object.entries(tool.input)) {
      const before = args[key]
      next[key] = isObject(before) && 'value' in before ? { ...before, value } : value
    }
    return { ...original, arguments: next }
  },
)

const toolCallResult = wrapped(
  'tool.post',
  true,
  (payload) => {
    const status = payload.exit_status ?? payload.status
    const tool: JsonObject = {
      name:
        toolName(payload.tool) ||
        (typeof payload.execution_id === 'string' ? payload.execution_id : 'unknown'),
      input: isObject(payload.arguments) ? toolInput(payload) : {},
      output: payload.outputs ?? payload.output ?? null,
      isError: status !== undefined && status !== 'success' && status !== 0 && status !== 'ok',
    }
    if (typeof payload.execution_id === 'string') tool.id = payload.execution_id
    return { tool }
  },
  (original, modified) => {
    const tool = isObject(modified.tool) ? modified.tool : undefined
    if (!tool || tool.output === undefined) return original
    const key = original.outputs !== undefined ? 'outputs' : 'output'
    return { ...original, [key]: tool.output }
  },
)

function list(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value]
}

const STEPS: Record<string, AcsMethod> = {
  sessionStart: wrapped('session.start', true, (p) => ({ session: { source: 'acs', ...p } })),
  agentTrigger: wrapped(
    'agent.trigger',
    true,
    (p) => ({ trigger: p }),
    (_o, m) => (isObject(m.trigger) ? m.trigger : _o),
  ),
  turnStart: verbatim('turn.begin', true),
  userMessage: message('user.message', 'user'),
  agentResponse: message('agent.response', 'agent'),
  knowledgeRetrieval: wrapped(
    'knowledge.retrieve',
    true,
    (p) => ({ knowledge: { query: p.query ?? null, results: list(p.results) } }),
    (o, m) =>
      isObject(m.knowledge) && Array.isArray(m.knowledge.results)
        ? { ...o, results: m.knowledge.results }
        : o,
  ),
  memoryContextRetrieval: wrapped(
    'memory.retrieve',
    true,
    (p) => ({ memory: { query: p.query ?? null, items: list(p.entries ?? p.memories) } }),
    (o, m) => (isObject(m.memory) && Array.isArray(m.memory.items) ? { ...o, entries: m.memory.items } : o),
  ),
  memoryStore: wrapped(
    'memory.store',
    true,
    (p) => ({ memory: { items: list(p.entries) } }),
    (o, m) => (isObject(m.memory) && Array.isArray(m.memory.items) ? { ...o, entries: m.memory.items } : o),
  ),
  toolCallRequest,
  toolCallResult,
  preCompact: verbatim('compact.pre', true),
  postCompact: verbatim('compact.post', false),
  subagentStart: wrapped('subagent.start', true, (p) => ({
    subagent: {
      name: typeof p.subagent_session_id === 'string' ? p.subagent_session_id : 'subagent',
      task: p,
    },
  })),
  subagentStop: wrapped('subagent.stop', false, (p) => ({
    subagent: {
      name: typeof p.subagent_session_id === 'string' ? p.subagent_session_id : 'subagent',
      result: p,
    },
  })),
  skillRegister: verbatim('skill.register', true),
  skillLoad: verbatim('skill.load', true),
  skillUnload: verbatim('skill.unload', false),
  turnEnd: verbatim('turn.finish', false),
  sessionEnd: wrapped('session.end', false, (p) => ({
    session: { reason: typeof p.session_reason === 'string' ? p.session_reason : 'completed' },
  })),
}

/** The 19 native hook names, in the spec's order (§5). */
export const STEP_NAMES: readonly string[] = Object.keys(STEPS)

/** Every fixed method name Warden answers (MCP methods are open-ended below their prefix). */
export const ACS_METHODS: readonly string[] = [
  'handshake/hello',
  'system/ping',
  ...STEP_NAMES.map((s) => `steps/${s}`),
  'agbom/snapshot',
  'agbom/changed',
  'protocols/MCP/<method>',
  'wrapped:mcp-<version>/<method>',
]

function mcpMethod(mcpName: string): AcsMethod {
  return {
    event: 'mcp.outbound',
    denyEligible: true,
    toEvent(payload) {
      const isResponse = payload.method === undefined && ('result' in payload || 'error' in payload)
      const mcp: JsonObject = {
        message: payload,
        method: mcpName,
        direction: isResponse ? 'inbound' : 'outbound',
      }
      const event: JsonObject = { mcp }
      const params = isObject(payload.params) ? payload.params : undefined
      if (mcpName === 'tools/call' && params && typeof params.name === 'string') {
        event.tool = { name: params.name, input: isObject(params.arguments) ? params.arguments : {} }
      }
      return event
    },
    toPayload(original, modified) {
      const mcp = isObject(modified.mcp) && isObject(modified.mcp.message) ? modified.mcp.message : original
      const tool = isObject(modified.tool) ? modified.tool : undefined
      if (tool && isObject(tool.input) && isObject(mcp.params)) {
        return { ...mcp, params: { ...mcp.params, arguments: tool.input } }
      }
      return mcp
    },
  }
}

const WRAPPED = /^wrapped:mcp-([0-9A-Za-z.-]{1,32})\/(.+)$/

/**
 * The mapping of an ACS method, with the event it fires.
 * @throws AcsError -32601 naming the methods Warden answers.
 */
export function acsMethod(method: string, payload: JsonObject): { mapping: AcsMethod; event: string } {
  if (method.startsWith('steps/')) {
    const step = STEPS[method.slice(6)]
    if (step && Object.hasOwn(STEPS, method.slice(6))) return { mapping: step, event: step.event }
  } else if (method.startsWith('protocols/MCP/') && method.length > 14) {
    return mcpFor(method.slice(14), payload)
  } else if (WRAPPED.test(method)) {
    return mcpFor((WRAPPED.exec(method) as RegExpExecArray)[2] as string, payload)
  } else if (method === 'agbom/snapshot' || method === 'agbom/changed') {
    const mapping = verbatim(`custom.acs.${method.replace('/', '.')}`, true)
    return { mapping, event: mapping.event }
  } else if (method.startsWith('protocols/A2A/')) {
    throw new AcsError(
      ACS_ERRORS.methodNotFound,
      `${method.slice(0, 100)}: A2A wrapping is reserved until ACS v0.2; send A2A traffic to /aos`,
    )
  }
  throw new AcsError(
    ACS_ERRORS.methodNotFound,
    `"${method.slice(0, 100)}" is not an ACS method; use one of ${ACS_METHODS.join(', ')}`,
  )
}

function mcpFor(name: string, payload: JsonObject): { mapping: AcsMethod; event: string } {
  const mapping = mcpMethod(name)
  const isResponse = payload.method === undefined && ('result' in payload || 'error' in payload)
  const event = isResponse ? 'mcp.inbound' : 'mcp.outbound'
  return { mapping: { ...mapping, event }, event }
}
