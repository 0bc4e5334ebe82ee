// The AOS StepContext and A2A context mapped onto Warden's event context and back, with
// the tenant taken from the `X-Warden-Tenant` header, else `context.user.organization.id`.

import type { EventContext, Json, JsonObject, OnCallerGone } from '../../core/index.js'
import { isObject, optionalOf, requireObject } from './fields.js'
import { RPC_ERRORS, rpcError } from './jsonrpc.js'

/** Where a request came from, beyond its body. */
export interface RequestMeta {
  /** The `X-Warden-Tenant` header, when sent. */
  tenant?: string
  /** How to learn that the HTTP caller went away (for held asks). */
  onCallerGone?: OnCallerGone
}

/** Keys Warden sets itself; a caller's values for them are not taken over. */
const OWN_KEYS = new Set(['tenantId', 'requestId', 'depth'])

/**
 * Maps an AOS StepContext (validated: objects where objects belong, strings where
 * strings do; extra fields kept) onto an event context.
 */
export function fromStepContext(
  raw: unknown,
  field: string,
  meta: RequestMeta,
  requestId?: string,
): EventContext {
  const context = requireObject(raw, field)
  // Field names are only spelled out for a value of the wrong type (the common case
  // builds no strings).
  for (const key of OBJECT_KEYS) checkOptional(context, key, 'object', field)
  for (const key of STRING_KEYS) checkOptional(context, key, 'string', field)
  const agent = context.agent
  if (isObject(agent)) {
    checkOptional(agent, 'id', 'string', field, 'agent')
    checkOptional(agent, 'name', 'string', field, 'agent')
    checkOptional(agent, 'tools', 'array', field, 'agent')
  }
  const user = context.user
  if (isObject(user)) {
    checkOptional(user, 'organization', 'object', field, 'user')
    const org = user.organization
    if (isObject(org)) checkOptional(org, 'id', 'string', field, 'user.organization')
  }
  const result: EventContext = {}
  for (const key in context) {
    if (!OWN_KEYS.has(key)) result[key] = context[key]
  }
  return withTenant(result, meta, requestId)
}

const OBJECT_KEYS = ['agent', 'session', 'user', 'identity'] as const
const STRING_KEYS = ['turnId', 'stepId', 'timestamp'] as const

/** {@link optionalOf} on `object[key]`, naming `field.path.key` only when it fails. */
function checkOptional(
  object: JsonObject,
  key: string,
  type: 'string' | 'object' | 'array',
  field: string,
  path?: string,
): void {
  const value = object[key]
  if (value === undefined) return
  const ok =
    type === 'object' ? isObject(value) : type === 'array' ? Array.isArray(value) : typeof value === type
  if (!ok) optionalOf(value, type, path === undefined ? `${field}.${key}` : `${field}.${path}.${key}`)
}

/** An event context for methods without a StepContext (MCP) or with an A2A one. */
export function bareContext(meta: RequestMeta, requestId?: string, agent?: JsonObject): EventContext {
  const context: EventContext = {}
  if (agent) context.agent = agent
  return withTenant(context, meta, requestId)
}

function withTenant(context: EventContext, meta: RequestMeta, requestId?: string): EventContext {
  const organization = context.user?.organization?.id
  const tenant = meta.tenant ?? (typeof organization === 'string' ? organization : undefined)
  if (tenant !== undefined) context.tenantId = tenant
  if (requestId !== undefined) context.requestId = requestId
  return context
}

/** The AOS StepContext for an event context (what a remote Guardian is sent). */
export function toStepContext(context: EventContext): JsonObject {
  const step: JsonObject = {}
  for (const [key, value] of Object.entries(context)) {
    if (OWN_KEYS.has(key) || key === 'cwd' || value === undefined) continue
    step[key] = value as JsonObject[string]
  }
  return completeStepContext(step)
}

const UNSIGNED: JsonObject = { signatures: [] }

function withDefaults(value: unknown, defaults: JsonObject): JsonObject {
  return isObject(value) ? { ...defaults, ...value } : { ...defaults }
}

/**
 * A StepContext with what both AOS schemas require filled in where the sender left it out
 * (the spec's own examples have no `agent.url` and no `identity`; agents commonly list
 * their tools as just `{id, name, description}`): unknown ids, empty strings, an unsigned
 * `identity`, tool definitions completed by {@link completeTool}. Fields that are present
 * are kept as they are.
 */
export function completeStepContext(context: JsonObject): JsonObject {
  const agent = withDefaults(context.agent, {
    id: 'unknown',
    name: 'unknown',
    url: '',
    instructions: '',
    version: '',
  })
  agent.provider = withDefaults(agent.provider, { name: '', url: '' })
  agent.identity ??= UNSIGNED
  if (Array.isArray(agent.tools)) agent.tools = agent.tools.map(completeTool)
  return {
    ...context,
    agent,
    session: withDefaults(context.session, { id: 'unknown' }),
    turnId: context.turnId ?? '',
    stepId: context.stepId ?? '',
    timestamp: context.timestamp ?? new Date().toISOString(),
    identity: context.identity ?? UNSIGNED,
  }
}

/**
 * A `ToolDefinition` with what both schemas require: the id and the name stand in for each
 * other (else "unknown"), an empty `type`, and `arguments` / `outputs` null (the spec's
 * "no arguments" / "no outputs") when left out; argument definitions get `required: false`
 * and a name when they lack them. Anything that is not an object is kept as it is.
 */
function completeTool(tool: Json): Json {
  if (!isObject(tool)) return tool
  const id = typeof tool.id === 'string' ? tool.id : typeof tool.name === 'string' ? tool.name : 'unknown'
  const name = typeof tool.name === 'string' ? tool.name : id
  const complete: JsonObject = { id, name, type: '', arguments: null, outputs: null, ...tool }
  if (Array.isArray(complete.arguments)) complete.arguments = complete.arguments.map(completeArgument)
  return complete
}

function completeArgument(argument: Json): Json {
  if (!isObject(argument)) return argument
  const name = typeof argument.id === 'string' ? argument.id : 'unknown'
  return { name, required: false, ...argument }
}

/** The name of a tool from `context.agent.tools[]` (ToolDefinition id → name), else the id. */
export function toolName(context: EventContext, toolId: string): string {
  const tools = context.agent?.tools
  if (Array.isArray(tools)) {
    for (const tool of tools) {
      if (isObject(tool) && tool.id === toolId && typeof tool.name === 'string' && tool.name.length > 0) {
        return tool.name
      }
    }
  }
  return toolId
}

/**
 * Checks the tenant header: a short id of printable characters.
 * @throws RpcError -32600 naming the header.
 */
export function checkTenant(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined
  const tenant = Array.isArray(value) ? value[0] : value
  if (tenant === undefined || !/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/.test(tenant)) {
    throw rpcError(
      RPC_ERRORS.invalidRequest,
      'X-Warden-Tenant',
      'must be 1-128 letters, digits or . _ : @ / - (starting with a letter or digit)',
    )
  }
  return tenant
}
