// GoClaw's own `hooks.*` request shapes, accepted beside Warden's so that a client written for
// GoClaw's `/ws` API drives Warden unchanged: `hookId` for `id`, a hook in GoClaw's fields
// (`handler_type` + `config`, `if_expr`, `timeout_ms`, `on_timeout`, `agent_ids`, higher
// priority first), `{hookId, updates}` for an update, `{config, sampleEvent}` for a dry run,
// `agentId` in a listing. A request in GoClaw's shape is translated to Warden's, checked by
// the method's own schema and roles, and answered in GoClaw's shapes (goclaw-replies.ts) with
// the fields GoClaw's clients read (`hookId`, a dry run's `result`, history's `nextCursor`).
// A listing without params from a connection that spoke GoClaw's shapes is answered so too.
// GoClaw's rules on scope: `scope` is required on create; `tenant` without `tenant_id` is the
// caller's tenant, which for a token without one is GoClaw's master (default) tenant.
// Warden's shapes pass through untouched.

import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { homeBlocking, type JsonObject, lookupEventName } from '../../core/index.js'
import { goclawDefinition } from '../../sources/index.js'
import type { PlaneContext } from './context.js'
import { goclawShaped, markGoclawSpeaker, speaksGoclaw } from './goclaw-replies.js'
import { ApiError, type MethodDef, method, parseParams } from './protocol.js'
import type { Principal } from './tokens.js'

type Params = Record<string, unknown>

/** Keys only GoClaw's requests carry. */
const GOCLAW_KEYS = [
  'hookId',
  'handler_type',
  'config',
  'sampleEvent',
  'updates',
  'agentId',
  'if_expr',
  'timeout_ms',
]

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A listing by a GoClaw event name (`pre_tool_use`): a GoClaw client's request. */
function goclawEvent(name: string, given: unknown): boolean {
  return (
    name === 'hooks.list' &&
    isRecord(given) &&
    typeof given.event === 'string' &&
    /^[a-z]+(_[a-z]+)+$/.test(given.event) &&
    lookupEventName(given.event) !== undefined
  )
}

/** Whether a request's params are in GoClaw's shape. */
export function isGoclawShape(params: unknown): params is Params {
  return isRecord(params) && GOCLAW_KEYS.some((key) => key in params)
}

/** Wraps the `hooks.*` methods so that each also takes GoClaw's shape of its params. */
export function withGoclawShapes(
  plane: PlaneContext,
  methods: Record<string, MethodDef>,
): Record<string, MethodDef> {
  const wrapped: Record<string, MethodDef> = {}
  for (const [name, original] of Object.entries(methods)) {
    wrapped[name] = method({
      params: z.unknown(),
      roles: original.roles,
      async run(given, context) {
        // Any name of an event lists its hooks (`pre_tool_use`, `PreToolUse`, `tool.pre`).
        const raw =
          name === 'hooks.list' && isRecord(given) && typeof given.event === 'string'
            ? { ...given, event: lookupEventName(given.event) ?? given.event }
            : given
        if (!isGoclawShape(raw) && !goclawEvent(name, given)) {
          const result = await original.run(parseParams(original.params, raw, name), context)
          const asked = isRecord(raw) ? Object.keys(raw).length === 0 : raw === undefined
          return name === 'hooks.list' && asked && speaksGoclaw(context.connection) && isRecord(result)
            ? goclawShaped(name, result)
            : result
        }
        markGoclawSpeaker(context.connection)
        const asked = isRecord(raw) ? raw : {}
        const { params, warnings } = await translate(plane, name, asked, context.principal)
        const result = await original.run(parseParams(original.params, params, name), context)
        return reply(name, result, asked, warnings)
      },
    })
  }
  return wrapped
}

async function translate(
  plane: PlaneContext,
  name: string,
  raw: Params,
  principal: Principal,
): Promise<{ params: Params; warnings: string[] }> {
  const warnings: string[] = []
  const id = raw.hookId ?? raw.id
  switch (name) {
    case 'hooks.list': {
      const { agentId, event, ...rest } = raw
      const params: Params = { ...rest }
      if (typeof event === 'string' && event !== '') params.event = lookupEventName(event) ?? event
      if (agentId !== undefined && agentId !== '') params.agent = agentId
      return { params, warnings }
    }
    case 'hooks.create':
      return { params: definitionParams(raw, principal, warnings, true), warnings }
    case 'hooks.update': {
      if (!isRecord(raw.updates) || Object.keys(raw.updates).length === 0)
        throw new ApiError(
          'invalid-params',
          'hooks.update: updates must name at least one field to change',
          'updates',
        )
      const stored = typeof id === 'string' ? await plane.store.getHook(id) : undefined
      return { params: { id, changes: changesOf(raw.updates, stored?.tenant, warnings) }, warnings }
    }
    case 'hooks.test': {
      const event = { payload: samplePayload(raw.sampleEvent, raw.config), context: {} }
      if (isRecord(raw.config))
        return { params: { hook: definitionParams(raw.config, principal, warnings), event }, warnings }
      return { params: { id, event }, warnings }
    }
    default: {
      const { hookId: _, ...rest } = raw
      return { params: { ...rest, id }, warnings }
    }
  }
}

/** A hook in GoClaw's fields as the API's definition params. */
function definitionParams(raw: Params, principal: Principal, warnings: string[], creating = false): Params {
  if (creating && (raw.scope === undefined || raw.scope === null || raw.scope === ''))
    throw new ApiError(
      'invalid-params',
      'scope is required: "global" (a token without a tenant), "tenant" or "agent", as GoClaw requires',
      'scope',
    )
  if (raw.scope === 'global' && principal.tenant !== undefined)
    throw new ApiError(
      'forbidden',
      `a global hook needs a token without a tenant (this one is tenant "${principal.tenant}")`,
      'scope',
    )
  const entry: Params = { ...raw, name: hookName(raw.name) }
  if (
    (raw.scope === 'tenant' || raw.scope === 'agent') &&
    (raw.tenant_id === undefined || raw.tenant_id === '')
  )
    if (principal.tenant !== undefined) entry.tenant_id = principal.tenant
    else if (raw.scope === 'tenant') entry.tenant_id = GOCLAW_MASTER_TENANT
  const problems: string[] = []
  const definition = goclawDefinition(entry, 'params', {
    problem: (message) => problems.push(message),
    warn: (message) => warnings.push(message),
  })
  if (!definition)
    throw new ApiError('invalid-params', problems.join('; ').replace(/^params \(hook "[^"]*"\): /, ''))
  const params: Params = { name: definition.name, event: definition.event, handler: definition.handler }
  for (const key of KEPT) if (definition[key] !== undefined) params[key] = definition[key]
  return params
}

/**
 * GoClaw's master tenant: its default tenant, which a single-tenant install's agents run in
 * and a master caller's tenant-scoped hooks belong to.
 */
export const GOCLAW_MASTER_TENANT = '0193a5b0-7000-7000-8000-000000000001'

/** The fields of a GoClaw definition a hook stored through the API keeps. */
const KEPT = [
  'matcher',
  'if',
  'priority',
  'timeoutMs',
  'onTimeout',
  'enabled',
  'scope',
  'blocks',
  'maxInvocationsPerTurn',
  'breakerCountsBlocks',
  'background',
  'home',
] as const

/** A GoClaw name as a Warden hook name (letters, digits and . _ : @ / -). */
function hookName(name: unknown): string {
  const slug =
    typeof name === 'string'
      ? name
          .trim()
          .replace(/[^A-Za-z0-9._:@/-]+/g, '-')
          .replace(/^[^A-Za-z0-9]+/, '')
      : ''
  return slug !== '' ? slug.slice(0, 128) : `goclaw-${randomUUID().slice(0, 8)}`
}

/** GoClaw's update fields as Warden's `changes`. */
function changesOf(updates: Params, tenant: string | undefined, warnings: string[]): Params {
  const changes: Params = {}
  for (const [key, value] of Object.entries(updates)) {
    switch (key) {
      case 'event':
        changes.event = value
        // GoClaw's rule on the new event: post_tool_use and stop only observe.
        changes.blocks = typeof value === 'string' ? homeBlocking('goclaw', value) : undefined
        changes.background = changes.blocks === false ? true : undefined
        break
      case 'matcher':
      case 'enabled':
        changes[key] = value
        break
      case 'if_expr':
        changes.if = value
        break
      case 'timeout_ms':
        changes.timeoutMs = value
        break
      case 'on_timeout':
        changes.onTimeout = value === 'block' ? 'deny' : value
        break
      case 'priority':
        changes.priority = typeof value === 'number' && value !== 0 ? -value : value
        break
      case 'agent_ids':
        changes.scope = {
          ...(tenant ? { tenant } : {}),
          ...(Array.isArray(value) && value.length > 0 ? { agents: value } : {}),
        }
        break
      case 'config':
      case 'handler_type': {
        const config = isRecord(updates.config) ? updates.config : {}
        const type = updates.handler_type ?? (config.url ? 'http' : config.command ? 'command' : 'prompt')
        const problems: string[] = []
        const converted = goclawDefinition(
          { name: 'update', event: 'pre_tool_use', handler_type: type, config },
          'updates',
          {
            problem: (message) => problems.push(message),
            warn: () => undefined,
          },
        )
        if (!converted)
          throw new ApiError(
            'invalid-params',
            problems.join('; ').replace(/^updates \(hook "update"\): /, ''),
            'updates.config',
          )
        changes.handler = converted.handler
        break
      }
      case 'id':
      case 'tenant_id':
      case 'version':
      case 'source':
      case 'created_by':
        break
      default:
        warnings.push(`updates.${key} is not a field Warden changes; it was ignored`)
    }
  }
  return changes
}

/** GoClaw's `sampleEvent` (`toolName`, `toolInput`, `rawInput`) as a payload for the hook's event. */
function samplePayload(sample: unknown, config: unknown): JsonObject {
  const s = isRecord(sample) ? sample : {}
  const event =
    isRecord(config) && typeof config.event === 'string' ? lookupEventName(config.event) : undefined
  if (event === 'user.message')
    return { message: { role: 'user', text: typeof s.rawInput === 'string' ? s.rawInput : '' } }
  const tool: JsonObject = {
    name: typeof s.toolName === 'string' ? s.toolName : '',
    input: (isRecord(s.toolInput) ? s.toolInput : {}) as JsonObject,
  }
  return { tool }
}

/** Warden's reply with the fields GoClaw's clients read. */
function reply(name: string, result: unknown, raw: Params, warnings: string[]): unknown {
  const out: Params = isRecord(result) ? { ...result } : { result }
  if (warnings.length > 0) out.warnings = warnings
  if (name === 'hooks.test') {
    out.result = testResult(out)
    return out
  }
  if (name === 'hooks.history') {
    out.nextCursor = typeof out.next === 'string' ? out.next : ''
    return goclawShaped(name, out)
  }
  const id = typeof out.id === 'string' ? out.id : raw.hookId
  if (id !== undefined && name !== 'hooks.list') out.hookId = id
  return name === 'hooks.delete' ? out : goclawShaped(name, out)
}

/** A dry run as GoClaw's test panel reads it: `decision` allow | block, the process's output. */
function testResult(run: Params): Params {
  const detail = isRecord(run.detail) ? run.detail : {}
  const decision =
    run.decision === 'deny' ? 'block' : run.decision === 'skipped' ? 'skip' : String(run.decision)
  const result: Params = { decision, durationMs: Math.round(Number(run.durationMs) || 0) }
  if (typeof run.reason === 'string') result.reason = run.reason
  if (typeof detail.stdout === 'string') result.stdout = detail.stdout
  if (typeof detail.stderr === 'string') result.stderr = detail.stderr
  if (typeof detail.status === 'number') result.statusCode = detail.status
  if (isRecord(run.error)) result.error = String(run.error.message)
  const tool = isRecord(run.output) && isRecord(run.output.tool) ? run.output.tool : undefined
  if (tool && isRecord(tool.input)) result.updatedInput = tool.input
  return result
}
