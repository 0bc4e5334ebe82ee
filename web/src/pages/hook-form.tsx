// Create or edit a hook: starter templates for a new one (pages/template-picker.tsx), the
// definition's fields (pages/hook-form-sections.tsx), the handler's own sub-form (only the
// fields its type uses; a code editor for Starlark), the rollout mode with a preview of the
// draft's impact on recorded history (components/mode-field.tsx, impact-preview.tsx), and
// the server's errors shown beside the field they name. An edit sends the version it
// loaded, so a change made meanwhile by someone else is a conflict, not lost. The draft and its params: pages/hook-draft.ts.

import { useEffect, useRef, useState } from 'preact/hooks'
import {
  type Errors,
  FORM_TYPES,
  type HandlerDraft,
  HIDDEN_TYPES,
  scriptLineOffset,
} from '../components/handler-draft'
import { HandlerFields } from '../components/handler-fields'
import { ImpactPreview } from '../components/impact-preview'
import { ModeField } from '../components/mode-field'
import { Empty, ErrorText } from '../components/ui'
import { href, navigate } from '../router'
import { useSession } from '../session'
import type { Hook } from '../types'
import { type Draft, definitionOf, draftOf, newDraft, placeError } from './hook-draft'
import { HookSection, OrderAndFailuresSection, WhereItRunsSection } from './hook-form-sections'
import { applyTemplate } from './hook-templates'
import { TemplatePicker } from './template-picker'

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

  /** The draft's params for an impact preview, or undefined (its errors shown) when it has problems. */
  const preview = () => {
    const built = definitionOf(draft, hook)
    if (Object.keys(built.errors).length === 0) return built.params
    setErrors(built.errors)
    setAttempt((n) => n + 1)
    return undefined
  }

  const formError = errors.form ?? errors.conflict

  return (
    <section class="form-page">
      <div class="titlebar">
        <h1>{title}</h1>
        {hook && <span class="hint">version {hook.version}</span>}
      </div>
      <form ref={form} class="form-hook" onSubmit={submit} noValidate>
        {!editing && (
          <TemplatePicker
            types={types.filter((t) => t !== 'command' || info.allowCommandHooks)}
            onPick={(template) => {
              setDraft((d) => applyTemplate(d, template))
              setErrors({})
            }}
          />
        )}
        <HookSection
          draft={draft}
          set={set}
          errors={errors}
          hook={hook}
          editing={editing}
          types={types}
          setHandler={setHandler}
        />

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

        <WhereItRunsSection
          draft={draft}
          set={set}
          errors={errors}
          editing={editing}
          tokenTenant={tokenTenant}
        />

        <OrderAndFailuresSection draft={draft} set={set} errors={errors} />

        <ModeField mode={draft.mode} onChange={(mode) => set({ mode })} error={errors.mode}>
          <ImpactPreview id={id} build={preview} />
        </ModeField>

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
