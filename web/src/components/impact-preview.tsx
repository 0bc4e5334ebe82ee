// "Preview against the last 7 days": the hook as drafted (a new one, or a stored hook's new
// version) replayed as enforced against the recorded decisions of its events by
// `hooks.impact`, and what would change — how many, grouped old → new, the decisions to open.

import { useState } from 'preact/hooks'
import { href } from '../router'
import { useSession } from '../session'
import { ErrorText } from './ui'

const DAY_MS = 86_400_000

/** What `hooks.impact` answers. */
interface ImpactReport {
  replayed: number
  changed: number
  transitions: Record<string, number>
  events: {
    decisionId: string
    event: string
    tenant: string
    at: number
    old: { decision: string }
    new: { decision: string; reason: string }
  }[]
  truncated: boolean
  stoppedBy?: 'limit' | 'time'
  durationMs: number
}

/**
 * The preview button and its answer. `build` gives the params of the draft (or undefined
 * when the draft has errors, which the form then shows).
 */
export function ImpactPreview({
  id,
  build,
}: {
  id?: string | undefined
  build: () => Record<string, unknown> | undefined
}) {
  const { client, can } = useSession()
  const [report, setReport] = useState<ImpactReport>()
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  if (!can('hooks.impact')) return null

  const preview = async () => {
    const params = build()
    if (!params) return
    setBusy(true)
    setError(undefined)
    try {
      const since = Date.now() - 7 * DAY_MS
      const { name: _name, ...changes } = params
      setReport(
        await client.call<ImpactReport>(
          'hooks.impact',
          id ? { id, changes, since } : { hook: params, since },
        ),
      )
    } catch (e) {
      setError(e)
      setReport(undefined)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div class="impact" aria-live="polite">
      <p>
        <button type="button" onClick={() => void preview()} disabled={busy}>
          Preview against the last 7 days
        </button>
        {busy && <span class="hint"> Replaying recorded decisions…</span>}
      </p>
      <ErrorText error={error} />
      {report && (
        <div class="impact-report" data-testid="impact-report">
          <p>
            <strong>{report.changed}</strong> of {report.replayed} recorded decisions would be decided
            differently (as enforced)
            {report.truncated &&
              ` — stopped early (${report.stoppedBy === 'time' ? 'time limit' : 'row limit'}); older ones were not replayed`}
            .
          </p>
          {report.changed > 0 && (
            <ul class="impact-transitions">
              {Object.entries(report.transitions).map(([transition, count]) => (
                <li key={transition}>
                  <code>{transition}</code>: {count}
                </li>
              ))}
            </ul>
          )}
          {report.events.length > 0 && (
            <ul class="impact-events">
              {report.events.slice(0, 20).map((e) => (
                <li key={e.decisionId}>
                  <a href={href('decisions', e.decisionId)}>{e.decisionId.slice(0, 8)}</a> {e.event}
                  {e.tenant ? ` [${e.tenant}]` : ''}: {e.old.decision} → {e.new.decision} ({e.new.reason})
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  )
}
