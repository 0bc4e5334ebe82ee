// The overview, the UI's home: how the fleet is doing over a window (the last hour, 24 h,
// 7 or 30 days, or from … to …) and for a tenant. Headline counts with the deny rate,
// decisions over time by outcome, the top lists and the hooks' health (overview-lists.tsx),
// open breakers and pending approvals. The figures come from the server's rollups
// (`overview.get`); they follow the pushes while live, and the page says when it is paused
// or disconnected. Every count links to the decisions it counts.

import { useEffect, useState } from 'preact/hooks'
import { DecisionsChart, denyRate, type SeriesPoint } from '../components/charts'
import { Empty, ErrorText } from '../components/ui'
import { useRoute } from '../router'
import { useSession } from '../session'
import type { OverviewView } from '../types'
import {
  choiceFrom,
  decisionsHref,
  type LiveState,
  OVERVIEW_WINDOWS,
  overviewParams,
  useOverview,
  writeChoice,
} from './overview-data'
import { HookPanels, ItemList, NowPanels } from './overview-lists'

const STATE_TEXT: Record<LiveState, string> = {
  live: 'Live',
  paused: 'Paused',
  disconnected: 'Disconnected: figures are no longer updated',
}

function Figure({
  label,
  value,
  sub,
  href,
  kind,
}: {
  label: string
  value: number
  sub?: string
  href?: string
  kind: string
}) {
  const body = (
    <>
      <span class="ov-figure-value">{value.toLocaleString()}</span>
      <span class="ov-figure-label">{label}</span>
      {sub && <span class="ov-figure-sub">{sub}</span>}
    </>
  )
  return (
    <li class={`ov-figure ov-figure-${kind}`} data-figure={kind}>
      {href ? <a href={href}>{body}</a> : body}
    </li>
  )
}

function Figures({ view, tenant }: { view: OverviewView; tenant?: string }) {
  const t = view.totals
  const link = (decision?: string) => decisionsHref(view.since, view.until, { decision, tenant })
  return (
    <ul class="ov-figures" aria-label="Totals of the window">
      <Figure kind="total" label="decisions" value={t.total} href={link()} />
      <Figure
        kind="deny"
        label="denied"
        value={t.deny}
        sub={`${denyRate(t)} deny rate`}
        href={link('deny')}
      />
      <Figure kind="ask" label="asked" value={t.ask} href={link('ask')} />
      <Figure kind="modify" label="modified" value={t.modify} href={link('modify')} />
      <Figure kind="shadow" label="shadow would-deny" value={t.shadowDeny} />
      <Figure kind="approvals" label="pending approvals" value={view.approvals.length} href="#/approvals" />
      <Figure kind="breakers" label="open breakers" value={view.breakers.length} />
    </ul>
  )
}

export function OverviewPage() {
  const { info } = useSession()
  const { query } = useRoute()
  const ownTenant = info.token.tenant
  const [choice, setChoice] = useState(() => choiceFrom(query))
  const [paused, setPaused] = useState(false)
  const params = overviewParams(choice, ownTenant)
  const { view, error, state, missed } = useOverview(params, paused)
  useEffect(() => writeChoice(choice), [choice])
  const tenant = ownTenant ? undefined : choice.tenant.trim() || undefined
  const set = (patch: Partial<typeof choice>) => setChoice({ ...choice, ...patch })
  const pointHref = (p: SeriesPoint) => decisionsHref(p.start, p.end, { tenant })

  return (
    <section class="ov-page">
      <div class="titlebar">
        <h2>Overview</h2>
        <div class="dec-live ov-live" role="status" data-state={state}>
          <span class={state === 'live' ? 'dec-dot' : 'dec-dot dec-dot-paused'} aria-hidden="true" />
          <span class="hint">
            {STATE_TEXT[state]}
            {state === 'paused' && missed > 0 ? ` · ${missed} new` : ''}
          </span>
          {state !== 'disconnected' && (
            <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
              {paused ? 'Resume' : 'Pause'}
            </button>
          )}
        </div>
      </div>
      <div class="filters ov-filters">
        <label class="visually-hidden" for="ov-window">
          Window
        </label>
        <select id="ov-window" value={choice.window} onChange={(e) => set({ window: e.currentTarget.value })}>
          {OVERVIEW_WINDOWS.map((w) => (
            <option key={w.value} value={w.value}>
              {w.label}
            </option>
          ))}
        </select>
        {choice.window === 'range' && (
          <>
            <input
              type="datetime-local"
              aria-label="From"
              value={choice.from}
              onChange={(e) => set({ from: e.currentTarget.value })}
            />
            <input
              type="datetime-local"
              aria-label="To"
              value={choice.to}
              onChange={(e) => set({ to: e.currentTarget.value })}
            />
          </>
        )}
        {ownTenant ? (
          <span class="hint">tenant {ownTenant}</span>
        ) : (
          <input
            type="search"
            aria-label="Tenant"
            placeholder="All tenants"
            value={choice.tenant}
            maxLength={200}
            onChange={(e) => set({ tenant: e.currentTarget.value })}
          />
        )}
      </div>
      <ErrorText error={error} />
      {!params && <Empty>Choose when the range starts (and ends, or it ends now).</Empty>}
      {params && !view && !error && <Empty>Loading…</Empty>}
      {view && (
        <>
          <Figures view={view} tenant={tenant} />
          <section class="card ov-panel" aria-labelledby="ov-series">
            <h3 id="ov-series">Decisions over time</h3>
            {view.totals.total === 0 && view.totals.shadowDeny === 0 ? (
              <Empty>No decisions in this window. They appear here as agents are answered.</Empty>
            ) : (
              <DecisionsChart points={view.series} stepMs={view.stepMs} hrefOf={pointHref} />
            )}
          </section>
          <div class="ov-grid">
            <HookPanels view={view} tenant={tenant} />
            <ItemList
              view={view}
              id="tools"
              title="Tools most denied or asked"
              filter="tool"
              withAsk
              tenant={tenant}
            />
            <ItemList
              view={view}
              id="agents"
              title="Agents with most denials"
              filter="agent"
              withAsk={false}
              tenant={tenant}
            />
            <ItemList
              view={view}
              id="sessions"
              title="Sessions with most denials"
              filter="session"
              withAsk={false}
              tenant={tenant}
            />
            <NowPanels view={view} />
          </div>
        </>
      )}
    </section>
  )
}
