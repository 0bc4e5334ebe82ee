// On a hook in shadow mode: what it would have denied in the last 24 h (`hooks.shadow`), and
// promotion to enforce in one action (`hooks.promote`), which asks why — the change record
// keeps who promoted it and the reason.

import { useEffect, useState } from 'preact/hooks'
import { useSession } from '../session'
import type { Hook } from '../types'
import { ErrorText } from './ui'

/** The shadow notice and the promote action; nothing for an enforced hook. */
export function ShadowPanel({ hook, onPromoted }: { hook: Hook; onPromoted: (hook: Hook) => void }) {
  const { client, can } = useSession()
  const [stats, setStats] = useState<{ wouldDeny: number; ran: number }>()
  const [asking, setAsking] = useState(false)
  const [reason, setReason] = useState('')
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const shadow = hook.mode === 'shadow'

  useEffect(() => {
    if (!shadow) return
    client
      .call<{ wouldDeny: number; ran: number }>('hooks.shadow', { id: hook.id })
      .then(setStats)
      .catch(setError)
  }, [client, hook.id, hook.version, shadow])

  if (!shadow) return null
  const promote = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      onPromoted(await client.call<Hook>('hooks.promote', { id: hook.id, version: hook.version, reason }))
      setAsking(false)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const canPromote = can('hooks.promote') && !hook.readOnly
  return (
    <div class="notice shadow-panel" role="status">
      <p>
        <span class="badge tone-warn">shadow</span> This hook’s verdicts are recorded, never applied.{' '}
        {stats ? (
          <strong data-testid="would-deny">Would have denied {stats.wouldDeny} in 24 h</strong>
        ) : (
          'Counting…'
        )}
        {stats && ` (${stats.ran} runs).`}{' '}
        {canPromote && !asking && (
          <button type="button" class="primary" onClick={() => setAsking(true)}>
            Promote to enforce
          </button>
        )}
      </p>
      {hook.readOnly && <p class="hint">Set mode: enforce in its file to promote it.</p>}
      {asking && (
        <form class="promote-form" onSubmit={(e) => void promote(e)}>
          <label for="promote-reason">Why enforce it now? (kept in the change record)</label>
          <textarea
            id="promote-reason"
            value={reason}
            required
            minLength={3}
            maxLength={1000}
            onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
          />
          <p>
            <button type="submit" class="primary" disabled={busy || reason.trim().length < 3}>
              Promote
            </button>{' '}
            <button type="button" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </p>
        </form>
      )}
      <ErrorText error={error} />
    </div>
  )
}
