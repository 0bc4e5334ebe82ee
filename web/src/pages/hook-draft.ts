// The hook form's data: a draft of the definition as typed (read from a stored hook or
// fresh), the `hooks.create` / `hooks.update` params written from it with the problems
// found, and where a server error goes (the field it names, or a script line).

import { ApiError } from '../api'
import {
  buildHandler,
  type Errors,
  emptyHandler,
  type HandlerDraft,
  handlerDraft,
  handlerErrorKey,
} from '../components/handler-draft'
import type { Hook } from '../types'

/** Definition fields an error can name, besides `scope.*` and `handler.*`. */
const TOP_FIELDS = new Set([
  'name',
  'description',
  'event',
  'matcher',
  'if',
  'priority',
  'timeoutMs',
  'onTimeout',
  'onError',
  'enabled',
  'mode',
])

export const DEFAULT_TIMEOUT_MS = 5000

export interface Draft {
  name: string
  description: string
  event: string
  tenant: string
  agents: string
  matcher: string
  if: string
  priority: string
  timeoutMs: string
  onTimeout: string
  onError: string
  enabled: boolean
  /** `enforce` or `shadow`. */
  mode: string
  handler: HandlerDraft
}

export function newDraft(type: string, tenant: string): Draft {
  return {
    name: '',
    description: '',
    event: 'tool.pre',
    tenant,
    agents: '',
    matcher: '',
    if: '',
    priority: '',
    timeoutMs: '',
    onTimeout: 'deny',
    onError: 'deny',
    enabled: true,
    mode: 'enforce',
    handler: emptyHandler(type),
  }
}

export function draftOf(hook: Hook): Draft {
  return {
    name: hook.name,
    description: hook.description ?? '',
    event: hook.event,
    tenant: hook.tenant ?? '',
    agents: hook.agents.join(', '),
    matcher: hook.matcher ?? '',
    if: hook.if ?? '',
    priority: String(hook.priority),
    timeoutMs: String(hook.timeoutMs),
    onTimeout: hook.onTimeout,
    onError: hook.onError,
    enabled: hook.enabled,
    mode: hook.mode ?? 'enforce',
    handler: handlerDraft({ ...hook.handler, type: hook.handler.type ?? hook.handlerType }),
  }
}

/** A whole number typed in a field, or undefined when empty; a problem goes to `errors`. */
function integer(value: string, key: string, errors: Errors): number | undefined {
  const text = value.trim()
  if (text === '') return undefined
  const n = Number(text)
  if (!Number.isInteger(n)) errors[key] = 'must be a whole number'
  return n
}

/**
 * The params of `hooks.create` (or the `changes` of `hooks.update`) from a draft. An update
 * replaces what it names, so it says "none" explicitly where a create leaves fields out.
 */
export function definitionOf(
  draft: Draft,
  editing: Hook | undefined,
): { params: Record<string, unknown>; errors: Errors } {
  const { handler, errors } = buildHandler(draft.handler)
  const params: Record<string, unknown> = {}
  if (!editing) {
    if (draft.name.trim() === '') errors.name = 'is required: a short unique name such as "no-prod-writes"'
    params.name = draft.name.trim()
  }
  if (draft.description.trim() || editing) params.description = draft.description.trim()
  params.event = draft.event
  params.handler = handler
  if (draft.matcher.trim() || editing) params.matcher = draft.matcher.trim()
  if (draft.if.trim() || editing) params.if = draft.if.trim()
  const priority = integer(draft.priority, 'priority', errors)
  if (priority !== undefined || editing) params.priority = priority ?? 0
  const timeoutMs = integer(draft.timeoutMs, 'timeoutMs', errors)
  if (timeoutMs !== undefined && timeoutMs <= 0) errors.timeoutMs = 'must be greater than 0'
  if (timeoutMs !== undefined || editing) params.timeoutMs = timeoutMs ?? DEFAULT_TIMEOUT_MS
  params.onTimeout = draft.onTimeout
  params.onError = draft.onError
  params.mode = draft.mode
  const scope: Record<string, unknown> = {}
  const tenant = editing ? (editing.tenant ?? '') : draft.tenant.trim()
  if (tenant) scope.tenant = tenant
  const agents = draft.agents.split(/[\s,]+/).filter(Boolean)
  if (agents.length) scope.agents = agents
  if (Object.keys(scope).length || editing) params.scope = scope
  params.enabled = draft.enabled
  return { params, errors }
}

/** Strips what a field-placed message need not repeat: the method, the hook, `handler:`. */
function bare(message: string): string {
  return message
    .replace(/^hooks\.\w+: (params\.)?/, '')
    .replace(/^hook(?: "[^"]*")?: /, '')
    .replace(/^handler: /, '')
    .replace(/^(changes\.)?handler\./, '')
}

/** Where a server error goes: the field it names (or the form), and a script line. */
export function placeError(
  error: unknown,
  type: string,
  lineOffset: number,
): { errors: Errors; line?: number } {
  if (!(error instanceof ApiError)) return { errors: { form: String(error) } }
  const { message } = error
  if (error.code === 'conflict' && error.field === 'version') return { errors: { conflict: message } }
  // A script problem: `hook "x": x.star:3:5: Starlark syntax error: …` (no field named).
  if (type === 'script' && !error.field?.startsWith('handler.')) {
    const at = /\.star:(\d+)(?::\d+)?: ([\s\S]*)$/.exec(message) ?? /\bline (\d+)\b()/.exec(message)
    if (at) {
      const rest = at[2] || bare(message)
      if (/^when: /.test(rest)) return { errors: { 'handler.when': rest.slice('when: '.length) } }
      const line = Number(at[1]) - lineOffset
      return line >= 1 ? { errors: { 'handler.source': rest }, line } : { errors: { 'handler.source': rest } }
    }
  }
  let field = error.field?.replace(/^changes\./, '')
  if (!field || field === 'params') field = /\bhandler\.([A-Za-z]+)/.exec(message)?.[0]
  if (/needs a matcher or an if condition/.test(message)) field = 'matcher'
  if (!field) return { errors: { form: message } }
  const [head = '', sub] = field.split('.')
  let key = 'form'
  if (head === 'handler') key = handlerErrorKey(type, sub)
  else if (head === 'scope') key = sub === 'tenant' ? 'scope.tenant' : 'scope.agents'
  else if (TOP_FIELDS.has(head)) key = head
  return { errors: { [key]: key === 'form' ? message : bare(message) } }
}
