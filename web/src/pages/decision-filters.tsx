// The decisions list's search and filters: free text, tool, hook, decision, event, tenant,
// agent, session and a time range (a recent window, or from / to). They are kept in the
// address (`#/decisions?tool=Bash&since=1h`) so that a view can be shared, sent to the
// server as `decisions.list` params (the server filters, within the token's tenant), and
// applied to decisions pushed while the page is open.

import type { DecisionSummary } from '../types'

export const KINDS = ['allow', 'deny', 'modify', 'ask']

export const WINDOWS: { value: string; label: string; ms?: number }[] = [
  { value: '15m', label: 'Last 15 min', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 h', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: 'all', label: 'All time' },
  { value: 'range', label: 'From … to …' },
]

export interface Filters {
  text: string
  tool: string
  hook: string
  decision: string
  event: string
  tenant: string
  agent: string
  session: string
  since: string
  /** With `since: range`: local date-times as `<input type="datetime-local">` gives them. */
  from: string
  to: string
}

export const FILTER_KEYS: (keyof Filters)[] = [
  'text',
  'tool',
  'hook',
  'decision',
  'event',
  'tenant',
  'agent',
  'session',
  'since',
  'from',
  'to',
]

/** Filters with nothing set. */
export const NO_FILTERS: Filters = {
  text: '',
  tool: '',
  hook: '',
  decision: '',
  event: '',
  tenant: '',
  agent: '',
  session: '',
  since: 'all',
  from: '',
  to: '',
}

/** The filters an address names (unknown values fall back to none). */
export function filtersFrom(query: URLSearchParams): Filters {
  const filters = { ...NO_FILTERS }
  for (const key of FILTER_KEYS) filters[key] = (query.get(key) ?? filters[key]).slice(0, 200)
  if (!WINDOWS.some((w) => w.value === filters.since)) filters.since = 'all'
  if (!KINDS.includes(filters.decision)) filters.decision = ''
  return filters
}

/** Whether any filter is set. */
export function anyFilter(filters: Filters): boolean {
  return FILTER_KEYS.some((k) => (k === 'since' ? filters.since !== 'all' : filters[k].trim() !== ''))
}

/** Keeps the filters in the address (for links and reloads) without a navigation. */
export function writeFilters(filters: Filters): void {
  const query = new URLSearchParams()
  for (const key of FILTER_KEYS) {
    const value = filters[key].trim()
    if (!value || (key === 'since' && value === 'all')) continue
    if ((key === 'from' || key === 'to') && filters.since !== 'range') continue
    query.set(key, value)
  }
  const text = query.toString()
  const hash = `#/decisions${text ? `?${text}` : ''}`
  if (location.hash !== hash) history.replaceState(history.state, '', hash)
}

/** A datetime-local value as epoch ms, or undefined when empty or not a date. */
function localTime(value: string): number | undefined {
  if (!value) return undefined
  const at = new Date(value).getTime()
  return Number.isFinite(at) ? at : undefined
}

/** The time range the filters name, as epoch ms. */
export function rangeOf(filters: Filters, now = Date.now()): { since?: number; until?: number } {
  if (filters.since === 'range') {
    const since = localTime(filters.from)
    const until = localTime(filters.to)
    return { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) }
  }
  const window = WINDOWS.find((w) => w.value === filters.since)?.ms
  return window ? { since: now - window } : {}
}

/** The `decisions.list` params of a page of results. */
export function listParams(filters: Filters, offset: number, limit: number): Record<string, unknown> {
  const trimmed = (key: keyof Filters) => filters[key].trim()
  const params: Record<string, unknown> = { limit, offset, ...rangeOf(filters) }
  const names: [keyof Filters, string][] = [
    ['text', 'text'],
    ['tool', 'tool'],
    ['hook', 'hook'],
    ['decision', 'decision'],
    ['event', 'event'],
    ['tenant', 'tenant'],
    ['agent', 'agent'],
    ['session', 'session'],
  ]
  for (const [key, param] of names) if (trimmed(key)) params[param] = trimmed(key)
  return params
}

/** The hooks whose verdict decided a row (from the list, or from a push's trace). */
export function decidersOf(d: DecisionSummary): string[] {
  if (d.decidingHooks) return d.decidingHooks.map((h) => h.hook)
  return (d.hooks ?? []).filter((h) => h.outcome === d.decision).map((h) => h.hook)
}

/** Whether a pushed decision passes the filters (as the server would filter it). */
export function passes(d: DecisionSummary, f: Filters, now = Date.now()): boolean {
  const has = (key: keyof Filters) => f[key].trim()
  const text = has('text').toLowerCase()
  const { since, until } = rangeOf(f, now)
  return (
    (!has('event') || d.event === has('event')) &&
    (!has('decision') || d.decision === has('decision')) &&
    (!has('tenant') || d.tenant === has('tenant')) &&
    (!has('agent') || d.agentId === has('agent')) &&
    (!has('session') || d.sessionId === has('session')) &&
    (!has('tool') || d.tool === has('tool')) &&
    (!has('hook') || (d.hooks ?? []).some((h) => h.hook === has('hook') && h.outcome !== 'skipped')) &&
    (since === undefined || d.at >= since) &&
    (until === undefined || d.at < until) &&
    (!text ||
      [d.id, d.reason, d.tool, d.agentId, d.sessionId, d.preview].some((v) =>
        v?.toLowerCase().includes(text),
      ))
  )
}
