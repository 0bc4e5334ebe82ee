// Decisions: a live table of recent decisions. Search and filters (decision-filters.tsx)
// re-query the server and stay in the address; decisions pushed while the page is open are
// prepended when they pass the filters, or held while paused. A row: decision-row.tsx; one
// decision: pages/decision-detail.tsx.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { Empty, ErrorText } from '../components/ui'
import { useRoute } from '../router'
import { useSession } from '../session'
import type { DecisionSummary } from '../types'
import { DecisionFilterBar } from './decision-filter-bar'
import { anyFilter, type Filters, filtersFrom, listParams, passes, writeFilters } from './decision-filters'
import { DecisionRow } from './decision-row'

const PAGE = 100
/** Rows kept in the table at most while decisions stream in. */
const MAX_ROWS = 1000

/** Adds rows not already shown (pages overlap when decisions arrived in between). */
function merge(rows: DecisionSummary[], more: DecisionSummary[], atTop: boolean): DecisionSummary[] {
  const seen = new Set(rows.map((r) => r.id))
  const fresh = more.filter((r) => !seen.has(r.id) && seen.add(r.id))
  return atTop ? [...fresh, ...rows] : [...rows, ...fresh]
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

  // Typed filters settle before they query (compared as text); the selects apply at once.
  const typedKey = useDebounced(
    JSON.stringify([
      filters.text,
      filters.tool,
      filters.hook,
      ownTenant ? '' : filters.tenant,
      filters.agent,
      filters.session,
      filters.from,
      filters.to,
    ]),
    300,
  )
  const { event, decision, since } = filters
  const applied = useMemo<Filters>(() => {
    const [text, tool, hook, tenant, agent, session, from, to] = JSON.parse(typedKey) as string[]
    return { text, tool, hook, tenant, agent, session, from, to, event, decision, since } as Filters
  }, [typedKey, event, decision, since])
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
      .call<{ decisions: DecisionSummary[]; next?: number }>('decisions.list', listParams(applied, 0, PAGE))
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
        listParams(applied, next, PAGE),
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

  const narrow = (key: keyof Filters, value: string) => setFilters((f) => ({ ...f, [key]: value }))
  const filtered = anyFilter(filters)

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
      <DecisionFilterBar
        filters={filters}
        events={info.events}
        ownTenant={ownTenant}
        onChange={setFilters}
        filtered={filtered}
      />
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
                <th scope="col">Decision</th>
                <th scope="col">Tool or method · input</th>
                <th scope="col">Decided by · reason</th>
                <th scope="col">Agent · session</th>
                {!ownTenant && <th scope="col">Tenant</th>}
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <DecisionRow
                  key={d.id}
                  d={d}
                  fresh={fresh.current.has(d.id)}
                  showTenant={!ownTenant}
                  narrow={narrow}
                />
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
