// One row of the decisions list: when, the outcome, what was acted on (tool or method, the
// event, a one-line preview of the input), the hook that decided and its reason, who (agent
// and session, tenant) and how long it took. A tool, hook, agent or session in the row
// narrows the list to it on a click.

import { Badge, ms, Time } from '../components/ui'
import { href } from '../router'
import type { DecisionSummary } from '../types'
import { decidersOf, type Filters } from './decision-filters'

export function DecisionRow(props: {
  d: DecisionSummary
  fresh: boolean
  showTenant: boolean
  narrow(key: keyof Filters, value: string): void
}) {
  const { d, narrow } = props
  const chip = (key: keyof Filters, value: string | undefined, label: string) =>
    value ? (
      <button
        type="button"
        class="dec-chip"
        title={`Only ${label} ${value}`}
        onClick={() => narrow(key, value)}
      >
        {value}
      </button>
    ) : (
      <span class="hint">-</span>
    )
  const deciders = decidersOf(d)
  return (
    <tr data-decision={d.id} class={props.fresh ? 'dec-new' : undefined}>
      <td class="dec-time">
        <a href={href('decisions', d.id)} title={`decision ${d.id}`}>
          <Time at={d.at} />
          <span class="visually-hidden">: decision {d.id}</span>
        </a>
      </td>
      <td>
        <Badge value={d.decision} />
      </td>
      <td class="dec-what">
        <div>
          {d.tool ? chip('tool', d.tool, 'tool') : null} <span class="hint">{d.event}</span>
        </div>
        {d.preview && (
          <code class="dec-preview" title={d.preview}>
            {d.preview}
          </code>
        )}
      </td>
      <td class="dec-reason">
        <div>
          {deciders.length > 0 ? deciders.map((h) => <span key={h}>{chip('hook', h, 'hook')} </span>) : null}
        </div>
        {d.reason ? (
          <span class="dec-reason-text">{d.reason}</span>
        ) : deciders.length ? null : (
          <span class="hint">-</span>
        )}
      </td>
      <td class="dec-who">
        <div>{chip('agent', d.agentId, 'agent')}</div>
        {d.sessionId && <div class="sub">{chip('session', d.sessionId, 'session')}</div>}
      </td>
      {props.showTenant && <td>{d.tenant || <span class="hint">-</span>}</td>}
      <td class="dec-num">{ms(d.durationMs)}</td>
    </tr>
  )
}
