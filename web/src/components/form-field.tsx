// Form pieces shared by the hook form: a labelled field with its hint and error, and the
// ARIA attributes that tie an input to them.

import type { ComponentChildren } from 'preact'

/** The ARIA attributes of an input with an optional hint and error below it. */
export function described(id: string, error?: string, hint?: unknown) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ')
  return {
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': ids || undefined,
  }
}

/** A label above its input, a hint and the field's error below. */
export function Field({
  id,
  label,
  error,
  hint,
  wide,
  children,
}: {
  id: string
  label: ComponentChildren
  error?: string | undefined
  hint?: ComponentChildren
  wide?: boolean
  children: ComponentChildren
}) {
  return (
    <div class={wide ? 'form-field form-wide' : 'form-field'}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p id={`${id}-hint`} class="hint form-hint">
          {hint}
        </p>
      )}
      <FieldError id={id} error={error} />
    </div>
  )
}

/** A checkbox with its label beside it. */
export function Check({
  id,
  label,
  checked,
  onChange,
  error,
  hint,
}: {
  id: string
  label: ComponentChildren
  checked: boolean
  onChange: (checked: boolean) => void
  error?: string | undefined
  hint?: ComponentChildren
}) {
  return (
    <div class="form-field form-check">
      <div class="form-check-row">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
          {...described(id, error, hint)}
        />
        <label for={id}>{label}</label>
      </div>
      {hint && (
        <p id={`${id}-hint`} class="hint form-hint">
          {hint}
        </p>
      )}
      <FieldError id={id} error={error} />
    </div>
  )
}

/** The error of one field (the id is the field's input id). */
export function FieldError({ id, error }: { id: string; error?: string | undefined }) {
  if (!error) return null
  return (
    <p id={`${id}-error`} class="field-error">
      {error}
    </p>
  )
}

/** The value of the input an event came from. */
export function inputValue(e: Event): string {
  return (e.currentTarget as HTMLInputElement).value
}
