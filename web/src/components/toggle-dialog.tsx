// Switching a hook off asks first: a hook that denies stops protecting the moment it is off.
// A modal dialog names the hook, says what switching it off means, and takes a reason that
// is kept in the change record (and shown in the hook's Changes tab). Switching on needs no
// confirmation.

import { useEffect, useRef, useState } from 'preact/hooks'
import type { Hook } from '../types'

/** The confirmation for switching `hook` off; `onConfirm` gets the reason. */
export function ToggleOffDialog(props: {
  hook: Hook
  busy: boolean
  onConfirm(reason: string): void
  onCancel(): void
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const [reason, setReason] = useState('')
  useEffect(() => {
    const dialog = ref.current
    if (dialog && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  const { hook } = props
  return (
    <dialog
      ref={ref}
      class="toggle-dialog"
      aria-labelledby="toggle-title"
      onCancel={(e) => {
        e.preventDefault()
        props.onCancel()
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault()
          if (reason.trim()) props.onConfirm(reason.trim())
        }}
      >
        <h2 id="toggle-title">Switch off {hook.name}?</h2>
        <p>
          While it is off, <code>{hook.id}</code> does not run on <code>{hook.event}</code>
          {hook.tenant ? ` for tenant ${hook.tenant}` : ''}: nothing it would deny is denied.
        </p>
        <label for="toggle-reason">Reason (kept in the change record)</label>
        <input
          id="toggle-reason"
          value={reason}
          maxLength={500}
          required
          placeholder="e.g. false positives on the deploy bot, ticket OPS-42"
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
        <div class="toggle-actions">
          <button type="button" onClick={props.onCancel}>
            Keep it on
          </button>
          <button type="submit" class="danger" disabled={props.busy || !reason.trim()}>
            {props.busy ? 'Switching off…' : 'Switch off'}
          </button>
        </div>
      </form>
    </dialog>
  )
}
