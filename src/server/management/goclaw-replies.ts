// Replies in GoClaw's shapes for a connection that spoke GoClaw's: once a `/ws` connection
// has sent a `hooks.*` request in GoClaw's shape, the hooks it reads back (`hooks.list`,
// `hooks.get`, and the hook a create, update or toggle answers) carry GoClaw's field names
// (`handler_type` + `config`, `if_expr`, `timeout_ms`, `on_timeout` block | allow,
// `tenant_id`, `agent_ids`, `max_invocations_per_turn`), its event names (`pre_tool_use`)
// and its priorities (higher first: not negated), and execution metadata keys are snake_case
// (`matcher_matched`, `stdout_bytes`). Other connections read Warden's shapes.

import { type EventName, eventInfo } from '../../core/index.js'
import type { ConnectionHandle } from './protocol.js'

type Params = Record<string, unknown>

/** The connections that spoke GoClaw's shapes (dropped with the connection). */
const goclawSpeakers = new WeakSet<ConnectionHandle>()

/** Notes that a connection sent a request in GoClaw's shape. */
export function markGoclawSpeaker(connection: ConnectionHandle): void {
  goclawSpeakers.add(connection)
}

/** Whether a connection spoke GoClaw's shapes. */
export function speaksGoclaw(connection: ConnectionHandle): boolean {
  return goclawSpeakers.has(connection)
}

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An event's GoClaw name, or the canonical name where GoClaw has none. */
export function goclawEventName(event: string): string {
  const alias = eventInfo(event as EventName).aliases.find((a) => a.system === 'goclaw')
  return alias?.name ?? event
}

/** A handler config as GoClaw's `config`. */
function goclawConfig(type: string, handler: Params): Params {
  switch (type) {
    case 'command': {
      const config: Params = { command: handler.command }
      if (Array.isArray(handler.env)) config.allowed_env_vars = handler.env
      if (typeof handler.cwd === 'string') config.cwd = handler.cwd
      return config
    }
    case 'http': {
      const config: Params = { url: handler.url }
      const headers = handler.secretHeaders ?? handler.headers
      if (headers !== undefined) config.headers = headers
      return config
    }
    case 'prompt': {
      const config: Params = { prompt: handler.prompt }
      if (typeof handler.model === 'string') config.model = handler.model
      if (typeof handler.maxTokens === 'number') config.max_tokens = handler.maxTokens
      return config
    }
    default: {
      const { type: _, ...rest } = handler
      return rest
    }
  }
}

/** A hook as the API shows it (Warden's fields), in GoClaw's fields. */
export function goclawHook(view: Params): Params {
  const handler = isRecord(view.handler) ? view.handler : {}
  const type = typeof view.handlerType === 'string' ? view.handlerType : String(handler.type ?? '')
  const priority = typeof view.priority === 'number' ? view.priority : 0
  const hook: Params = {
    id: view.id,
    hookId: view.id,
    name: view.name,
    event: typeof view.event === 'string' ? goclawEventName(view.event) : view.event,
    handler_type: type,
    config: goclawConfig(type, handler),
    priority: priority === 0 ? 0 : -priority,
    timeout_ms: view.timeoutMs,
    on_timeout: view.onTimeout === 'deny' ? 'block' : view.onTimeout,
    enabled: view.enabled,
    scope: view.scope,
    version: view.version,
  }
  if (typeof view.matcher === 'string') hook.matcher = view.matcher
  if (typeof view.if === 'string') hook.if_expr = view.if
  if (typeof view.tenant === 'string') hook.tenant_id = view.tenant
  if (Array.isArray(view.agents) && view.agents.length > 0) hook.agent_ids = view.agents
  if (view.maxInvocationsPerTurn !== undefined) hook.max_invocations_per_turn = view.maxInvocationsPerTurn
  if (typeof view.description === 'string') hook.description = view.description
  if (typeof view.createdAt === 'number') hook.created_at = new Date(view.createdAt).toISOString()
  if (typeof view.updatedAt === 'number') hook.updated_at = new Date(view.updatedAt).toISOString()
  if (view.source !== undefined) hook.source = view.source
  if (view.breaker !== undefined) hook.breaker = view.breaker
  if (view.blocks !== undefined) hook.blocks = view.blocks
  return hook
}

/** `matcherMatched` as `matcher_matched`. */
function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
}

/** Execution metadata with GoClaw's snake_case keys. */
export function goclawMetadata(metadata: unknown): unknown {
  if (!isRecord(metadata)) return metadata
  return Object.fromEntries(Object.entries(metadata).map(([key, value]) => [snakeCase(key), value]))
}

/** A method's reply for a connection that speaks GoClaw: its hooks and metadata in GoClaw's shapes. */
export function goclawShaped(name: string, out: Params): Params {
  switch (name) {
    case 'hooks.list':
      return Array.isArray(out.hooks) ? { ...out, hooks: out.hooks.map((h) => goclawHook(h as Params)) } : out
    case 'hooks.get':
    case 'hooks.create':
    case 'hooks.update':
    case 'hooks.toggle': {
      const { warnings, ...view } = out
      const hook = goclawHook(view)
      return warnings === undefined ? hook : { ...hook, warnings }
    }
    case 'hooks.history':
      return Array.isArray(out.executions)
        ? {
            ...out,
            executions: out.executions.map((row) =>
              isRecord(row) && row.metadata !== undefined
                ? { ...row, metadata: goclawMetadata(row.metadata) }
                : row,
            ),
          }
        : out
    default:
      return out
  }
}
