// One row of the hooks table: the hook (name, description, breaker), its activity over the
// last 24 hours (trend, runs, denials, last run), the on/off switch, then the columns a
// narrow screen leaves out (event, type, scope, matcher, priority, source, version).

import { Sparkline } from '../components/sparkline'
import { Badge, Time } from '../components/ui'
import { href } from '../router'
import type { Hook, HookActivity } from '../types'

/** The activity cell: a trend line, runs and denials, and when the hook last ran. */
function Activity({ activity, loaded }: { activity: HookActivity | undefined; loaded: boolean }) {
  if (!loaded) return <span class="hint">…</span>
  if (!activity || activity.runs === 0) return <span class="hint">no runs in 24 h</span>
  const label = `${activity.runs} run${activity.runs === 1 ? '' : 's'}, ${activity.denials} denied in the last 24 hours`
  return (
    <div class="hk-activity">
      <Sparkline runs={activity.runsByBucket} denials={activity.denialsByBucket} label={label} />
      <span class="hk-counts">
        {activity.runs} run{activity.runs === 1 ? '' : 's'}
        {activity.denials > 0 && <span class="hk-denied"> · {activity.denials} denied</span>}
      </span>
      <span class="sub">
        last <Time at={activity.lastRunAt} />
      </span>
    </div>
  )
}

export function HookRow(props: {
  hook: Hook
  activity: HookActivity | undefined
  activityLoaded: boolean
  canToggle: boolean
  onToggle(hook: Hook): void
}) {
  const { hook } = props
  return (
    <tr data-hook={hook.id}>
      <td class="hk-name">
        <a href={href('hooks', hook.id)}>{hook.name}</a>
        {hook.breaker && (
          <span class="badge tone-bad" title={`breaker open: ${hook.breaker.lastError}`}>
            breaker open
          </span>
        )}
        {hook.mode === 'shadow' && (
          <span class="badge tone-warn" title="verdicts recorded, never applied">
            shadow
          </span>
        )}
        {hook.description && <span class="sub hk-desc">{hook.description}</span>}
        <span class="sub hk-narrow">{hook.event}</span>
      </td>
      <td>
        <Activity activity={props.activity} loaded={props.activityLoaded} />
      </td>
      <td>
        <label class="switch">
          <input
            type="checkbox"
            checked={hook.enabled}
            disabled={!props.canToggle}
            aria-label={`${hook.enabled ? 'Disable' : 'Enable'} ${hook.name}`}
            onChange={(e) => {
              // The switch shows the stored state until the change is confirmed and made.
              ;(e.target as HTMLInputElement).checked = hook.enabled
              props.onToggle(hook)
            }}
          />
          <span>{hook.enabled ? 'on' : 'off'}</span>
        </label>
      </td>
      <td class="hk-wide">{hook.event}</td>
      <td class="hk-wide">{hook.handlerType}</td>
      <td class="hk-wide">
        {hook.scope}
        {hook.tenant && <span class="sub">{hook.tenant}</span>}
        {hook.agents.length > 0 && <span class="sub">{hook.agents.join(', ')}</span>}
      </td>
      <td class="hk-wide">
        <code>{hook.matcher ?? '*'}</code>
      </td>
      <td class="hk-wide">{hook.priority}</td>
      <td class="hk-wide">
        <Badge value={hook.source} title={hook.origin} />
      </td>
      <td class="hk-wide">v{hook.version}</td>
    </tr>
  )
}
