// Create or edit a hook: the definition's fields, the handler's own sub-form (a code editor
// for Starlark), and the server's errors shown beside the field they name. An edit sends
// the version it loaded, so a change made meanwhile by someone else is a conflict, not lost.

import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api'
import { Check, described, Field, inputValue } from '../components/form-field'
import {
  buildHandler,
  type Errors,
  emptyHandler,
  FORM_TYPES,
  type HandlerDraft,
  HandlerFields,
  HIDDEN_TYPES,
  handlerDraft,
  handlerErrorKey,
  scriptLineOffset,
  TYPE_LABELS,
} from '../components/handler-fields'
import { Empty, ErrorText } from '../components/ui'
import { href, navigate } from '../router'
import { useSession } from '../session'
import type { Hook } from '../types'

/** Events most hooks are for, listed first. */
const COMMON_EVENTS = [
  'tool.pre',
  'tool.post',
  'user.message',
  'agent.response',
  'mcp.outbound',
  'mcp.inbound',
  'model.pre',
  'model.post',
]

/** Definition fields an error can name, besides `scope.*` and `handler.*`. */
const TOP_FIELDS = new Set([
  'name',
  'event',
  'matcher',
  'if',
  'priority',
  'timeoutMs',
  'onTimeout',
  'onError',
  'enabled',
])

const DEFAULT_TIMEOUT_MS = 5000

interface Draft {
  name: string
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
  handler: HandlerDraft
}

function newDraft(type: string, tenant: string): Draft {
  return {
    name: '',
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
    handler: emptyHandler(type),
  }
}

function draftOf(hook: Hook): Draft {
  return {
    name: hook.name,
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
function definitionOf(
  draft: Draft,
  editing: Hook | undefined,
): { params: Record<string, unknown>; errors: Errors } {
  const { handler, errors } = buildHandler(draft.handler)
  const params: Record<string, unknown> = {}
  if (!editing) {
    if (draft.name.trim() === '') errors.name = 'is required: a short unique name such as "no-prod-writes"'
    params.name = draft.name.trim()
  }
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
function placeError(error: unknown, type: string, lineOffset: number): { errors: Errors; line?: number } {
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

/** The form, started afresh for each hook (and for a new one) the route names. */
export function HookForm({ id }: { id?: string }) {
  return <HookEditor key={id ?? ''} id={id} />
}

function HookEditor({ id }: { id?: string | undefined }) {
  const { client, can, info } = useSession()
  const allowedTypes = info.handlerTypes.filter((t) => !HIDDEN_TYPES.includes(t))
  const types = [
    ...FORM_TYPES.filter((t) => allowedTypes.includes(t)),
    ...allowedTypes.filter((t) => !FORM_TYPES.includes(t)),
  ]
  const firstType = types.find((t) => t !== 'command' || info.allowCommandHooks) ?? 'deny'
  const tokenTenant = info.token.tenant ?? ''

  const [hook, setHook] = useState<Hook>()
  const [loadError, setLoadError] = useState<unknown>()
  const [draft, setDraft] = useState<Draft>(() => newDraft(firstType, tokenTenant))
  const [errors, setErrors] = useState<Errors>({})
  const [errorLine, setErrorLine] = useState<number>()
  const [busy, setBusy] = useState(false)
  const [attempt, setAttempt] = useState(0)
  const form = useRef<HTMLFormElement>(null)

  const load = () => {
    if (!id) return
    setLoadError(undefined)
    client
      .call<Hook>('hooks.get', { id })
      .then((loaded) => {
        setHook(loaded)
        setDraft(draftOf(loaded))
        setErrors({})
        setErrorLine(undefined)
      })
      .catch(setLoadError)
  }
  useEffect(load, [client, id])

  // After a refused submit, take the keyboard to the first field in error.
  useEffect(() => {
    if (attempt === 0) return
    const first = form.current?.querySelector<HTMLElement>('[aria-invalid="true"], .form-errors')
    first?.focus()
  }, [attempt])

  const editing = Boolean(id)
  const allowed = editing ? can('hooks.update') : can('hooks.create')
  const title = editing ? `Edit ${hook?.name ?? id}` : 'New hook'
  const back = editing && id ? href('hooks', id) : href('hooks')

  if (!allowed) {
    return (
      <section>
        <h1>{title}</h1>
        <p class="notice">
          This token ({info.token.role}) cannot {editing ? 'change' : 'create'} hooks. Ask an admin for an
          editor token.
        </p>
        <p>
          <a href={back}>Back</a>
        </p>
      </section>
    )
  }
  if (editing && !hook) {
    return (
      <section>
        <h1>{title}</h1>
        {loadError ? <ErrorText error={loadError} /> : <Empty>Loading…</Empty>}
        <p>
          <a href={back}>Back</a>
        </p>
      </section>
    )
  }
  if (hook?.readOnly) {
    return (
      <section>
        <h1>{title}</h1>
        <p class="notice">
          This hook comes from <code>{hook.origin ?? 'the config'}</code> and is read-only here: edit that
          file to change it. It can still be switched on and off from the hooks list.
        </p>
        <p>
          <a href={back}>Back to the hook</a>
        </p>
      </section>
    )
  }

  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }))
  const setHandler = (patch: Partial<HandlerDraft>) => {
    setDraft((d) => ({ ...d, handler: { ...d.handler, ...patch } }))
    if ('source' in patch) setErrorLine(undefined)
  }
  const text = (
    key: 'name' | 'tenant' | 'agents' | 'matcher' | 'if' | 'priority' | 'timeoutMs',
    id: string,
  ) => ({
    id,
    value: draft[key],
    onInput: (e: Event) => set({ [key]: inputValue(e) }),
  })

  const submit = async (e: Event) => {
    e.preventDefault()
    if (busy) return
    const built = definitionOf(draft, hook)
    setErrorLine(undefined)
    if (Object.keys(built.errors).length > 0) {
      setErrors(built.errors)
      setAttempt((n) => n + 1)
      return
    }
    setErrors({})
    setBusy(true)
    try {
      const saved =
        hook && id
          ? await client.call<Hook>('hooks.update', { id, version: hook.version, changes: built.params })
          : await client.call<Hook>('hooks.create', built.params)
      navigate(href('hooks', saved.id).slice(1))
    } catch (error) {
      const placed = placeError(error, draft.handler.type, scriptLineOffset(draft.handler))
      setErrors(placed.errors)
      setErrorLine(placed.line)
      setAttempt((n) => n + 1)
    } finally {
      setBusy(false)
    }
  }

  // Events: the common ones, then the rest; an event the server no longer lists stays shown.
  const common = COMMON_EVENTS.filter((ev) => info.events.includes(ev))
  const others = info.events.filter((ev) => !COMMON_EVENTS.includes(ev))
  if (!info.events.includes(draft.event)) others.unshift(draft.event)
  const typeOptions = types.includes(draft.handler.type) ? types : [draft.handler.type, ...types]
  const commandBlocked = draft.handler.type === 'command' && !info.allowCommandHooks
  const agentsError = errors['scope.agents']
  const formError = errors.form ?? errors.conflict

  return (
    <section class="form-page">
      <div class="titlebar">
        <h1>{title}</h1>
        {hook && <span class="hint">version {hook.version}</span>}
      </div>
      <form ref={form} class="form-hook" onSubmit={submit} noValidate>
        <fieldset class="card form-section">
          <legend>Hook</legend>
          <div class="form-grid">
            {editing ? (
              <div class="form-field">
                <span class="form-label">Name</span>
                <p class="form-static">
                  <code>{hook?.name}</code>
                  {hook?.tenant && <span class="sub">id {hook.id}</span>}
                </p>
              </div>
            ) : (
              <Field
                id="hook-name"
                label="Name"
                error={errors.name}
                hint="Letters, digits and . _ : @ / -; unique within the tenant."
              >
                <input
                  {...text('name', 'hook-name')}
                  required
                  maxLength={128}
                  spellcheck={false}
                  autocomplete="off"
                  {...described('hook-name', errors.name, true)}
                />
              </Field>
            )}
            <Field id="hook-event" label="Event" error={errors.event}>
              <select
                id="hook-event"
                value={draft.event}
                onChange={(e) => set({ event: inputValue(e) })}
                {...described('hook-event', errors.event)}
              >
                <optgroup label="Common">
                  {common.map((ev) => (
                    <option key={ev} value={ev}>
                      {ev}
                    </option>
                  ))}
                </optgroup>
                <optgroup label="All events">
                  {others.map((ev) => (
                    <option key={ev} value={ev}>
                      {ev}
                    </option>
                  ))}
                </optgroup>
              </select>
            </Field>
            <Field
              id="hook-handler-type"
              label="Handler type"
              error={errors['handler.type']}
              hint={
                commandBlocked
                  ? 'This server does not allow command hooks through the API (management.allowCommandHooks is off): saving will be refused.'
                  : undefined
              }
            >
              <select
                id="hook-handler-type"
                value={draft.handler.type}
                onChange={(e) => setHandler({ type: inputValue(e) })}
                {...described('hook-handler-type', errors['handler.type'], commandBlocked)}
              >
                {typeOptions.map((type) =>
                  type === 'command' && !info.allowCommandHooks ? (
                    <option key={type} value={type} disabled>
                      command (not allowed on this server: management.allowCommandHooks is off)
                    </option>
                  ) : (
                    <option key={type} value={type}>
                      {TYPE_LABELS[type] ?? type}
                    </option>
                  ),
                )}
              </select>
            </Field>
            <Check
              id="hook-enabled"
              label="Enabled"
              checked={draft.enabled}
              onChange={(enabled) => set({ enabled })}
              error={errors.enabled}
              hint="A disabled hook is kept but does not run."
            />
          </div>
        </fieldset>

        <fieldset class="card form-section">
          <legend>Handler: {draft.handler.type}</legend>
          <div class="form-grid">
            <HandlerFields
              draft={draft.handler}
              onChange={setHandler}
              errors={errors}
              errorLine={errorLine}
            />
          </div>
        </fieldset>

        <fieldset class="card form-section">
          <legend>Where it runs</legend>
          <div class="form-grid">
            <Field
              id="hook-matcher"
              label="Matcher"
              error={errors.matcher}
              hint="A regular expression on the tool name; empty or * matches everything."
            >
              <input
                {...text('matcher', 'hook-matcher')}
                class="code-mono"
                placeholder="^(exec|Bash)$"
                spellcheck={false}
                autocomplete="off"
                {...described('hook-matcher', errors.matcher, true)}
              />
            </Field>
            <Field
              id="hook-if"
              label="Condition (if, CEL)"
              error={errors.if}
              hint={
                <>
                  Optional, e.g. <code>has(tool_input.path)</code>.
                </>
              }
            >
              <input
                {...text('if', 'hook-if')}
                class="code-mono"
                spellcheck={false}
                autocomplete="off"
                {...described('hook-if', errors.if, true)}
              />
            </Field>
            <Field
              id="hook-tenant"
              label="Tenant"
              error={errors['scope.tenant']}
              hint={
                editing
                  ? 'The tenant cannot change; create the hook anew for another tenant.'
                  : tokenTenant
                    ? 'Your token belongs to this tenant.'
                    : 'Optional; empty makes a global hook (every tenant).'
              }
            >
              <input
                {...text('tenant', 'hook-tenant')}
                readOnly={editing || Boolean(tokenTenant)}
                placeholder={editing ? 'none (global)' : 'acme'}
                spellcheck={false}
                autocomplete="off"
                {...described('hook-tenant', errors['scope.tenant'], true)}
              />
            </Field>
            <Field
              id="hook-agents"
              label="Agents"
              error={agentsError}
              hint="Agent ids, comma-separated; empty means every agent."
            >
              <input
                {...text('agents', 'hook-agents')}
                placeholder="triage, coder"
                spellcheck={false}
                autocomplete="off"
                {...described('hook-agents', agentsError, true)}
              />
            </Field>
          </div>
        </fieldset>

        <fieldset class="card form-section">
          <legend>Order and failures</legend>
          <div class="form-grid">
            <Field
              id="hook-priority"
              label="Priority"
              error={errors.priority}
              hint="Lower runs first; default 0."
            >
              <input
                {...text('priority', 'hook-priority')}
                type="number"
                step={1}
                placeholder="0"
                {...described('hook-priority', errors.priority, true)}
              />
            </Field>
            <Field
              id="hook-timeout"
              label="Timeout (ms)"
              error={errors.timeoutMs}
              hint={`Default ${DEFAULT_TIMEOUT_MS}; at most 600000.`}
            >
              <input
                {...text('timeoutMs', 'hook-timeout')}
                type="number"
                min={1}
                max={600000}
                step={1}
                placeholder={String(DEFAULT_TIMEOUT_MS)}
                {...described('hook-timeout', errors.timeoutMs, true)}
              />
            </Field>
            <Field id="hook-on-timeout" label="On timeout" error={errors.onTimeout}>
              <select
                id="hook-on-timeout"
                value={draft.onTimeout}
                onChange={(e) => set({ onTimeout: inputValue(e) })}
                {...described('hook-on-timeout', errors.onTimeout)}
              >
                <option value="deny">deny (default)</option>
                <option value="allow">allow</option>
              </select>
            </Field>
            <Field id="hook-on-error" label="On error" error={errors.onError}>
              <select
                id="hook-on-error"
                value={draft.onError}
                onChange={(e) => set({ onError: inputValue(e) })}
                {...described('hook-on-error', errors.onError)}
              >
                <option value="deny">deny (default)</option>
                <option value="allow">allow</option>
              </select>
            </Field>
          </div>
        </fieldset>

        {formError && (
          <div class="form-errors" tabIndex={-1} role="alert">
            <p class="error">{formError}</p>
            {errors.conflict && (
              <button type="button" onClick={load}>
                Load the latest version (drops these edits)
              </button>
            )}
          </div>
        )}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>
            {editing ? 'Save changes' : 'Create hook'}
          </button>
          <a class="button" href={back}>
            Cancel
          </a>
          {busy && <span class="hint">Saving…</span>}
        </div>
      </form>
    </section>
  )
}
