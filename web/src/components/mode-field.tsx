// The hook form's rollout section: whether the hook's verdicts apply (enforce) or are only
// recorded (shadow), and a preview of what it would change on the recorded history.

import type { ComponentChildren } from 'preact'
import { described, Field, inputValue } from './form-field'

/** The mode select of the hook form. */
export function ModeField({
  mode,
  onChange,
  error,
  children,
}: {
  mode: string
  onChange: (mode: string) => void
  error?: string | undefined
  /** Shown under the select (the impact preview). */
  children?: ComponentChildren
}) {
  return (
    <fieldset class="card form-section">
      <legend>Rollout</legend>
      <div class="form-grid">
        <Field
          id="hook-mode"
          label="Mode"
          error={error}
          hint={
            mode === 'shadow'
              ? 'Shadow: the hook runs and what it would decide is recorded, never applied. Promote it to enforce once its would-be denials look right.'
              : 'Enforce: the hook’s verdicts apply.'
          }
        >
          <select
            id="hook-mode"
            value={mode}
            onChange={(e) => onChange(inputValue(e))}
            {...described('hook-mode', error, true)}
          >
            <option value="enforce">enforce</option>
            <option value="shadow">shadow (record only)</option>
          </select>
        </Field>
      </div>
      {children}
    </fieldset>
  )
}
