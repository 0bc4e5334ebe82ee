// A decision's per-hook trace as a timeline: the hooks in the order they ran, each with a
// bar as wide as its share of the total time (placed after the ones before it, as the chain
// runs them one by one), its outcome, reason, error, skip reason and version.

import { href } from '../router'
import type { TraceEntry } from '../types'
import { Badge, Empty, ms } from './ui'

/** The name a hook goes by in a replay's comparison (its name, not its tenant/name id). */
export function traceName(entry: TraceEntry): string {
  return entry.name ?? entry.hook
}

export function DecisionTrace({
  trace,
  durationMs,
  changed,
}: {
  trace: TraceEntry[]
  /** The decision's own duration: the bars are shares of it (or of the hooks' sum when longer). */
  durationMs: number
  /** Names of hooks whose verdict changed in a replay: highlighted. */
  changed?: ReadonlySet<string> | undefined
}) {
  if (trace.length === 0) return <Empty>No hook applied to this event.</Empty>
  const sum = trace.reduce((total, t) => total + Math.max(0, t.durationMs), 0)
  const total = Math.max(sum, durationMs, 0.001)
  let start = 0
  return (
    <ol class="dec-trace">
      {trace.map((t, i) => {
        const share = Math.max(0, t.durationMs) / total
        const left = start / total
        start += Math.max(0, t.durationMs)
        const isChanged = changed?.has(traceName(t)) ?? false
        const pct = (share * 100).toFixed(share < 0.1 ? 1 : 0)
        return (
          <li key={`${t.hook}-${i}`} class={isChanged ? 'dec-step dec-changed' : 'dec-step'}>
            <div class="dec-step-head">
              <span class="dec-step-n" aria-hidden="true">
                {i + 1}
              </span>
              <a href={href('hooks', t.hook)} class="dec-step-name">
                {traceName(t)}
              </a>
              <Badge value={t.outcome} />
              <span class="dec-step-meta">
                v{t.version} · {t.handler} · {ms(t.durationMs)}
              </span>
              {isChanged && <span class="badge tone-warn">verdict changed</span>}
            </div>
            <div
              class="dec-bar-track"
              role="img"
              aria-label={`${ms(t.durationMs)}, ${pct}% of the total time`}
            >
              <div
                class={`dec-bar tone-${barTone(t.outcome)}${t.durationMs > 0 ? '' : ' dec-bar-none'}`}
                style={{ left: `${(left * 100).toFixed(2)}%`, width: `${(share * 100).toFixed(2)}%` }}
              />
            </div>
            {t.reason && <p class="dec-step-line">{t.reason}</p>}
            {t.error && (
              <p class="dec-step-line error">
                {t.error.kind ? `${t.error.kind}: ` : ''}
                {t.error.message}
              </p>
            )}
            {t.skipped && <p class="dec-step-line hint">Skipped: {t.skipped}</p>}
            {t.logs && t.logs.length > 0 && (
              <details class="dec-step-logs">
                <summary>Logs ({t.logs.length})</summary>
                <pre class="json">{t.logs.join('\n')}</pre>
              </details>
            )}
          </li>
        )
      })}
    </ol>
  )
}

function barTone(outcome: string): string {
  if (outcome === 'allow') return 'ok'
  if (outcome === 'deny' || outcome === 'error') return 'bad'
  if (outcome === 'ask') return 'warn'
  if (outcome === 'modify') return 'info'
  return 'muted'
}
