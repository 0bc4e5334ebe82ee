// The decisions list's filter bar: a free-text search, the selects (decision, event, time
// range with from / to) and text fields (tool, hook, tenant, agent, session). A tenant
// token has no tenant field: its own tenant is the only one it can see.

import { type Filters, KINDS, NO_FILTERS, WINDOWS } from './decision-filters'

export function DecisionFilterBar(props: {
  filters: Filters
  events: string[]
  ownTenant: string | null
  onChange(next: Filters): void
  filtered: boolean
}) {
  const { filters, onChange } = props
  const set = (key: keyof Filters) => (e: Event) =>
    onChange({ ...filters, [key]: (e.target as HTMLInputElement | HTMLSelectElement).value })
  const field = (key: keyof Filters, label: string) => (
    <input type="search" aria-label={label} placeholder={label} value={filters[key]} onInput={set(key)} />
  )
  return (
    <search class="filters dec-filters" aria-label="Filter decisions">
      <input
        type="search"
        class="dec-text"
        aria-label="Search decisions"
        placeholder="Search input, reason, ids…"
        maxLength={200}
        value={filters.text}
        onInput={set('text')}
      />
      {field('tool', 'Tool or method')}
      {field('hook', 'Hook')}
      <select aria-label="Decision" value={filters.decision} onChange={set('decision')}>
        <option value="">All decisions</option>
        {KINDS.map((kind) => (
          <option key={kind} value={kind}>
            {kind}
          </option>
        ))}
      </select>
      <select aria-label="Event" value={filters.event} onChange={set('event')}>
        <option value="">All events</option>
        {props.events.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      {!props.ownTenant && field('tenant', 'Tenant')}
      {field('agent', 'Agent')}
      {field('session', 'Session')}
      <select aria-label="Time range" value={filters.since} onChange={set('since')}>
        {WINDOWS.map((w) => (
          <option key={w.value} value={w.value}>
            {w.label}
          </option>
        ))}
      </select>
      {filters.since === 'range' && (
        <>
          <input type="datetime-local" aria-label="From" value={filters.from} onInput={set('from')} />
          <input type="datetime-local" aria-label="To" value={filters.to} onInput={set('to')} />
        </>
      )}
      {props.filtered && (
        <button type="button" class="link" onClick={() => onChange({ ...NO_FILTERS })}>
          Clear filters
        </button>
      )}
    </search>
  )
}
