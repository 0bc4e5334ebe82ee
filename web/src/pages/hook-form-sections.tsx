// The hook form's fieldsets about the hook itself: its name, description, event, handler
// type and switch; where it runs (matcher, condition with its variables, tenant, agents);
// and, folded unless changed, its order and what a timeout or an error decides.

import { ConditionField } from '../components/condition-field'
import { Check, described, Field, inputValue } from '../components/form-field'
import { type Errors, type HandlerDraft, TYPE_LABELS } from '../components/handler-draft'
import { useSession } from '../session'
import type { Hook } from '../types'
import { DEFAULT_TIMEOUT_MS, type Draft } from './hook-draft'

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

/** What every section takes: the draft, a way to change it, and the errors to show. */
interface SectionProps {
  draft: Draft
  set: (patch: Partial<Draft>) => void
  errors: Errors
}

/** The props of an input bound to a text field of the draft. */
function textInput(
  { draft, set }: SectionProps,
  key: 'name' | 'tenant' | 'agents' | 'matcher' | 'if' | 'priority' | 'timeoutMs',
  id: string,
) {
  return {
    id,
    value: draft[key],
    onInput: (e: Event) => set({ [key]: inputValue(e) }),
  }
}

/** The "Hook" fieldset: name (fixed once created), event, handler type and the switch. */
export function HookSection(
  props: SectionProps & {
    /** The hook being edited; none for a new one. */
    hook: Hook | undefined
    editing: boolean
    /** The handler types to offer, in order. */
    types: string[]
    setHandler: (patch: Partial<HandlerDraft>) => void
  },
) {
  const { draft, set, errors, hook, editing, types, setHandler } = props
  const { info } = useSession()
  // Events: the common ones, then the rest; an event the server no longer lists stays shown.
  const common = COMMON_EVENTS.filter((ev) => info.events.includes(ev))
  const others = info.events.filter((ev) => !COMMON_EVENTS.includes(ev))
  if (!info.events.includes(draft.event)) others.unshift(draft.event)
  const typeOptions = types.includes(draft.handler.type) ? types : [draft.handler.type, ...types]
  const commandBlocked = draft.handler.type === 'command' && !info.allowCommandHooks
  return (
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
              {...textInput(props, 'name', 'hook-name')}
              required
              maxLength={128}
              spellcheck={false}
              autocomplete="off"
              {...described('hook-name', errors.name, true)}
            />
          </Field>
        )}
        <Field
          id="hook-description"
          label="Description"
          error={errors.description}
          hint="Optional: what the hook is for, shown in the hooks list."
        >
          <input
            id="hook-description"
            value={draft.description}
            maxLength={1000}
            onInput={(e) => set({ description: inputValue(e) })}
            {...described('hook-description', errors.description, true)}
          />
        </Field>
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
  )
}

/** The "Where it runs" fieldset: matcher, condition, tenant and agents. */
export function WhereItRunsSection(props: SectionProps & { editing: boolean; tokenTenant: string }) {
  const { errors, editing, tokenTenant } = props
  const agentsError = errors['scope.agents']
  return (
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
            {...textInput(props, 'matcher', 'hook-matcher')}
            class="code-mono"
            placeholder="^(exec|Bash)$"
            spellcheck={false}
            autocomplete="off"
            {...described('hook-matcher', errors.matcher, true)}
          />
        </Field>
        <ConditionField
          event={props.draft.event}
          value={props.draft.if}
          error={errors.if}
          onChange={(value) => props.set({ if: value })}
        />
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
            {...textInput(props, 'tenant', 'hook-tenant')}
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
            {...textInput(props, 'agents', 'hook-agents')}
            placeholder="triage, coder"
            spellcheck={false}
            autocomplete="off"
            {...described('hook-agents', agentsError, true)}
          />
        </Field>
      </div>
    </fieldset>
  )
}

/** The "Advanced" section (folded unless changed): priority, timeout, and what a timeout or error decides. */
export function OrderAndFailuresSection(props: SectionProps) {
  const { draft, set, errors } = props
  // Folded unless it holds something other than the defaults, or an error.
  const priority = draft.priority.trim()
  const timeout = draft.timeoutMs.trim()
  const changed =
    (priority !== '' && priority !== '0') ||
    (timeout !== '' && timeout !== String(DEFAULT_TIMEOUT_MS)) ||
    draft.onTimeout !== 'deny' ||
    draft.onError !== 'deny'
  const failed = Boolean(errors.priority || errors.timeoutMs || errors.onTimeout || errors.onError)
  return (
    <details class="card form-section form-advanced" open={changed || failed}>
      <summary>Advanced: order, timeout and failures</summary>
      <div class="form-grid">
        <Field
          id="hook-priority"
          label="Priority"
          error={errors.priority}
          hint="Lower runs first; default 0."
        >
          <input
            {...textInput(props, 'priority', 'hook-priority')}
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
            {...textInput(props, 'timeoutMs', 'hook-timeout')}
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
    </details>
  )
}
