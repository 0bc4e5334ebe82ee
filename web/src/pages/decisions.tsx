// Decisions: a live table of recent decisions. Filters re-query the server and stay in the
// address; decisions pushed while the page is open are prepended when they pass the
// filters, or held while paused. One decision: pages/decision-detail.tsx.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { Badge, Empty, ErrorText, ms } from '../components/ui'
import { href, useRoute } from '../router'
import { useSession } from '../session'
import type { DecisionSummary } from '../types'

const PAGE = 100
/** Rows kept in the table at most while decisions stream in. */
const MAX_ROWS = 1000
const KINDS = ['allow', 'deny', 'modify', 'ask']
const WINDOWS: { value: string; label: string; ms?: number }[] = [
  { value: '15m', label: 'Last 15 min', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 h', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: 'all', label: 'All time' },
]

interface Filters {
  event: string
  decision: string
  tenant: string
  agent: string
  since: string
}

const FILTER_KEYS: (keyof Filters)[] = ['event', 'decision', 'tenant', 'agent', 'since']

function filtersFrom(query: URLSearchParams): Filters {
  const since = query.get('since') ?? 'all'
  return {
    event: query.get('event') ?? '',
    decision: query.get('decision') ?? '',
    tenant: query.get('tenant') ?? '',
    agent: query.get('agent') ?? '',
    since: WINDOWS.some((w) => w.value === since) ? since : 'all',
  }
}

/** Keeps the filters in the address (for links and reloads) without a navigation. */
function writeFilters(filters: Filters): void {
  const query = new URLSearchParams()
  for (const key of FILTER_KEYS) {
    const value = filters[key].trim()
    if (value && !(key === 'since' && value === 'all')) query.set(key, value)
  }
  const text = query.toString()
  const hash = `#/decisions${text ? `?${text}` : ''}`
  if (location.hash !== hash) history.replaceState(history.state, '', hash)
}

function params(filters: Filters, offset: number): Record<string, unknown> {
  const window = WINDOWS.find((w) => w.value === filters.since)?.ms
  return {
    limit: PAGE,
    offset,
    ...(filters.event ? { event: filters.event } : {}),
    ...(filters.decision ? { decision: filters.decision } : {}),
    ...(filters.tenant.trim() ? { tenant: filters.tenant.trim() } : {}),
    ...(filters.agent.trim() ? { agent: filters.agent.trim() } : {}),
    ...(window ? { since: Date.now() - window } : {}),
  }
}

function passes(d: DecisionSummary, f: Filters): boolean {
  return (
    (!f.event || d.event === f.event) &&
    (!f.decision || d.decision === f.decision) &&
    (!f.tenant.trim() || d.tenant === f.tenant.trim()) &&
    (!f.agent.trim() || d.agentId === f.agent.trim())
  )
}

/** Adds rows not already shown (pages overlap when decisions arrived in between). */
function merge(rows: DecisionSummary[], more: DecisionSummary[], atTop: boolean): DecisionSummary[] {
  const seen = new Set(rows.map((r) => r.id))
  const fresh = more.filter((r) => !seen.has(r.id) && seen.add(r.id))
  return atTop ? [...fresh, ...rows] : [...rows, ...fresh]
}

/** A short time: the clock today, the date and clock otherwise. */
function When({ at }: { at: number }) {
  const date = new Date(at)
  const today = date.toDateString() === new Date().toDateString()
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {today ? date.toLocaleTimeString() : date.toLocaleString()}
    </time>
  )
}

/** Waits a moment after typing before re-querying. */
function useDebounced<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay)
    return () => clearTimeout(timer)
  }, [value, delay])
  return settled
}

export function DecisionsPage() {
  const { client, can, info } = useSession()
  const { query } = useRoute()
  const [filters, setFilters] = useState(() => filtersFrom(query))
  const [rows, setRows] = useState<DecisionSummary[]>()
  const [next, setNext] = useState<number>()
  const [error, setError] = useState<unknown>()
  const [loadingMore, setLoadingMore] = useState(false)
  const [paused, setPaused] = useState(false)
  const [held, setHeld] = useState<DecisionSummary[]>([])
  /** Rows that arrived live: they flash once when they appear. */
  const fresh = useRef(new Set<string>())
  const ownTenant = info.token.tenant
  const allowed = can('decisions.list')

  // Text filters settle before they query; the selects apply at once.
  const { event, decision, since } = filters
  const tenant = useDebounced(ownTenant ? '' : filters.tenant.trim(), 300)
  const agent = useDebounced(filters.agent.trim(), 300)
  const applied = useMemo<Filters>(
    () => ({ event, decision, since, tenant, agent }),
    [event, decision, since, tenant, agent],
  )
  const live = useRef({ applied, paused })
  live.current = { applied, paused }
  const generation = useRef(0)

  useEffect(() => writeFilters(applied), [applied])

  useEffect(() => {
    if (!allowed) return
    const mine = ++generation.current
    setRows(undefined)
    setNext(undefined)
    setHeld([])
    setError(undefined)
    fresh.current.clear()
    client
      .call<{ decisions: DecisionSummary[]; next?: number }>('decisions.list', params(applied, 0))
      .then((page) => {
        if (mine !== generation.current) return
        setRows(page.decisions)
        setNext(page.next)
      })
      .catch((e: unknown) => {
        if (mine === generation.current) setError(e)
      })
  }, [client, applied, allowed])

  useEffect(() => {
    if (!allowed) return
    return client.on('decision', (payload) => {
      const d = payload as DecisionSummary
      const { applied: f, paused: isPaused } = live.current
      if (!passes(d, f)) return
      if (isPaused) {
        setHeld((list) => (list.some((h) => h.id === d.id) ? list : [d, ...list].slice(0, MAX_ROWS)))
        return
      }
      fresh.current.add(d.id)
      setRows((list) => (list ? merge(list, [d], true).slice(0, MAX_ROWS) : list))
    })
  }, [client, allowed])

  const togglePause = () => {
    if (paused) {
      for (const h of held) fresh.current.add(h.id)
      setRows((list) => (list ? merge(list, held, true).slice(0, MAX_ROWS) : list))
      setHeld([])
    }
    setPaused(!paused)
  }

  const loadMore = async () => {
    if (next === undefined) return
    const mine = generation.current
    setLoadingMore(true)
    setError(undefined)
    try {
      const page = await client.call<{ decisions: DecisionSummary[]; next?: number }>(
        'decisions.list',
        params(applied, next),
      )
      if (mine !== generation.current) return
      setRows((list) => merge(list ?? [], page.decisions, false))
      setNext(page.next)
    } catch (e) {
      setError(e)
    } finally {
      setLoadingMore(false)
    }
  }

  const set = (key: keyof Filters) => (e: Event) =>
    setFilters((f) => ({ ...f, [key]: (e.target as HTMLInputElement | HTMLSelectElement).value }))
  const filtered = FILTER_KEYS.some((k) => (k === 'since' ? filters.since !== 'all' : filters[k].trim()))

  if (!allowed) return <Empty>This token may not read decisions.</Empty>

  return (
    <section class="dec-page">
      <div class="titlebar">
        <h1>Decisions</h1>
        <div class="dec-live">
          <span class={paused ? 'dec-dot dec-dot-paused' : 'dec-dot'} aria-hidden="true" />
          <span class="hint">{paused ? 'Paused' : 'Live'}</span>
          <button type="button" aria-pressed={paused} onClick={togglePause}>
            {paused ? 'Resume' : 'Pause'}
          </button>
        </div>
      </div>
      <search class="filters dec-filters" aria-label="Filter decisions">
        <select aria-label="Event" value={filters.event} onChange={set('event')}>
          <option value="">All events</option>
          {info.events.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <select aria-label="Decision" value={filters.decision} onChange={set('decision')}>
          <option value="">All decisions</option>
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
        {!ownTenant && (
          <input
            type="search"
            aria-label="Tenant"
            placeholder="Tenant"
            value={filters.tenant}
            onInput={set('tenant')}
          />
        )}
        <input
          type="search"
          aria-label="Agent"
          placeholder="Agent"
          value={filters.agent}
          onInput={set('agent')}
        />
        <select aria-label="Since" value={filters.since} onChange={set('since')}>
          {WINDOWS.map((w) => (
            <option key={w.value} value={w.value}>
              {w.label}
            </option>
          ))}
        </select>
        {filtered && (
          <button
            type="button"
            class="link"
            onClick={() => setFilters({ event: '', decision: '', tenant: '', agent: '', since: 'all' })}
          >
            Clear filters
          </button>
        )}
      </search>
      <div role="status" class="dec-held-wrap">
        {paused && held.length > 0 && (
          <p class="notice dec-held">
            {held.length === MAX_ROWS ? `${MAX_ROWS}+` : held.length} new — resume to see them
          </p>
        )}
      </div>
      <ErrorText error={error} />
      {rows === undefined ? (
        error ? null : (
          <Empty>Loading…</Empty>
        )
      ) : rows.length === 0 ? (
        <Empty>
          {filtered ? 'No decision matches the filters.' : 'No decisions yet.'} New ones appear here as they
          are made.
        </Empty>
      ) : (
        <div class="table-wrap">
          <table class="dec-table">
            <caption class="visually-hidden">Decisions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Decision</th>
                <th scope="col">Reason</th>
                <th scope="col">Tenant</th>
                <th scope="col">Agent</th>
                <th scope="col">Duration</th>
                <th scope="col">Id</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} data-decision={d.id} class={fresh.current.has(d.id) ? 'dec-new' : undefined}>
                  <td class="dec-time">
                    <a href={href('decisions', d.id)}>
                      <When at={d.at} />
                      <span class="visually-hidden">: decision {d.id}</span>
                    </a>
                  </td>
                  <td>{d.event}</td>
                  <td>
                    <Badge value={d.decision} />
                  </td>
                  <td class="dec-reason">{d.reason || <span class="hint">-</span>}</td>
                  <td>{d.tenant || <span class="hint">-</span>}</td>
                  <td>{d.agentId ?? <span class="hint">-</span>}</td>
                  <td class="dec-num">{ms(d.durationMs)}</td>
                  <td>
                    <code class="dec-id">{d.id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="dec-more">
        <p class="hint">{rows ? `${rows.length} shown` : ''}</p>
        {next !== undefined && (
          <button type="button" onClick={() => void loadMore()} disabled={loadingMore}>
            {loadingMore ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
    </section>
  )
}
