// The overview's lists: the top denying hooks, the tools most denied or asked, the agents
// and sessions with most denials (each row a link to the decisions list filtered to it), the
// slowest hooks (p50, p99), hooks with errors or timeouts, shadow hooks and their would-be
// denials, open breakers and pending approvals with their age.

import type { ComponentChildren } from 'preact'
import { Meter } from '../components/charts'
import { Empty, ms, Time } from '../components/ui'
import { href } from '../router'
import type { OverviewHook, OverviewItem, OverviewView } from '../types'
import { decisionsHref } from './overview-data'

const TOP = 10

/** How long something has waited: "45 s", "3 min", "2.5 h". */
function age(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`
  return `${(ms / 3_600_000).toFixed(1)} h`
}

function Panel({ title, id, children }: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="card ov-panel" aria-labelledby={`ov-${id}`} data-panel={id}>
      <h3 id={`ov-${id}`}>{title}</h3>
      {children}
    </section>
  )
}

/** Tools, agents or sessions with their denials (and asks), each linking to its decisions. */
export function ItemList({
  view,
  id,
  title,
  filter,
  withAsk,
  tenant,
}: {
  view: OverviewView
  id: string
  title: string
  filter: 'tool' | 'agent' | 'session'
  withAsk: boolean
  tenant?: string
}) {
  const items: OverviewItem[] = view[id as 'tools' | 'agents' | 'sessions']
  const max = Math.max(0, ...items.map((i) => i.deny + (withAsk ? i.ask : 0)))
  const link = (item: OverviewItem, decision: string) =>
    decisionsHref(view.since, view.until, { [filter]: item.name, decision, tenant })
  return (
    <Panel title={title} id={id}>
      {items.length === 0 ? (
        <Empty>None denied{withAsk ? ' or asked' : ''} in this window.</Empty>
      ) : (
        <table class="ov-table">
          <thead>
            <tr>
              <th scope="col">{filter}</th>
              <th scope="col">denied</th>
              {withAsk && <th scope="col">asked</th>}
              {filter !== 'session' && <th scope="col">of</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.name} data-item={item.name}>
                <td class="ov-name">
                  <a href={link(item, 'deny')}>{item.name}</a>
                  <Meter value={item.deny + (withAsk ? item.ask : 0)} max={max} tone="deny" />
                </td>
                <td class="num">
                  <a href={link(item, 'deny')} data-count="deny">
                    {item.deny}
                  </a>
                </td>
                {withAsk && (
                  <td class="num">
                    <a href={link(item, 'ask')} data-count="ask">
                      {item.ask}
                    </a>
                  </td>
                )}
                {filter !== 'session' && <td class="num hint">{item.total}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  )
}

function HookName({ view, hook, tenant }: { view: OverviewView; hook: string; tenant?: string }) {
  return (
    <>
      <a href={href('hooks', hook)}>{hook}</a>{' '}
      <a
        class="hint"
        href={decisionsHref(view.since, view.until, { hook, tenant })}
        aria-label={`decisions ${hook} ran in`}
      >
        decisions
      </a>
    </>
  )
}

function HookTable({
  view,
  rows,
  columns,
  tenant,
}: {
  view: OverviewView
  rows: OverviewHook[]
  columns: [string, (h: OverviewHook) => string | number][]
  tenant?: string
}) {
  return (
    <table class="ov-table">
      <thead>
        <tr>
          <th scope="col">hook</th>
          {columns.map(([name]) => (
            <th key={name} scope="col">
              {name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((h) => (
          <tr key={h.hook} data-hook={h.hook}>
            <td class="ov-name">
              <HookName view={view} hook={h.hook} tenant={tenant} />
            </td>
            {columns.map(([name, value]) => (
              <td key={name} class="num" data-col={name}>
                {value(h)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** The hooks panels: top denying, slowest, failing, shadow. */
export function HookPanels({ view, tenant }: { view: OverviewView; tenant?: string }) {
  const hooks = view.hooks
  const denying = hooks
    .filter((h) => h.deny > 0)
    .sort((a, b) => b.deny - a.deny || a.hook.localeCompare(b.hook))
  const slowest = [...hooks].sort((a, b) => b.p99Ms - a.p99Ms || b.p50Ms - a.p50Ms).slice(0, TOP)
  const failing = hooks
    .filter((h) => h.errors + h.timeouts > 0)
    .sort((a, b) => b.errors + b.timeouts - (a.errors + a.timeouts))
  const shadow = hooks.filter((h) => h.shadowRuns > 0).sort((a, b) => b.shadowDeny - a.shadowDeny)
  const none = (what: string) => <Empty>{what}</Empty>
  return (
    <>
      <Panel title="Top denying hooks" id="denying">
        {denying.length === 0 ? (
          none('No hook denied in this window.')
        ) : (
          <HookTable
            view={view}
            tenant={tenant}
            rows={denying.slice(0, TOP)}
            columns={[
              ['denied', (h) => h.deny],
              ['asked', (h) => h.ask],
              ['runs', (h) => h.runs],
            ]}
          />
        )}
      </Panel>
      <Panel title="Slowest hooks" id="slowest">
        {slowest.length === 0 ? (
          none('No hook ran in this window.')
        ) : (
          <HookTable
            view={view}
            tenant={tenant}
            rows={slowest}
            columns={[
              ['p50', (h) => ms(h.p50Ms)],
              ['p99', (h) => ms(h.p99Ms)],
              ['runs', (h) => h.runs],
            ]}
          />
        )}
      </Panel>
      <Panel title="Hooks with errors or timeouts" id="failing">
        {failing.length === 0 ? (
          none('No hook failed or timed out in this window.')
        ) : (
          <HookTable
            view={view}
            tenant={tenant}
            rows={failing.slice(0, TOP)}
            columns={[
              ['errors', (h) => h.errors],
              ['timeouts', (h) => h.timeouts],
              ['runs', (h) => h.runs],
            ]}
          />
        )}
      </Panel>
      <Panel title="Shadow hooks" id="shadow">
        {shadow.length === 0 ? (
          none('No hook ran in shadow mode in this window.')
        ) : (
          <HookTable
            view={view}
            tenant={tenant}
            rows={shadow.slice(0, TOP)}
            columns={[
              ['would deny', (h) => h.shadowDeny],
              ['runs', (h) => h.shadowRuns],
            ]}
          />
        )}
      </Panel>
    </>
  )
}

/** Open breakers and pending approvals (now, whatever the window). */
export function NowPanels({ view }: { view: OverviewView }) {
  return (
    <>
      <Panel title="Open breakers" id="breakers">
        {view.breakers.length === 0 ? (
          <Empty>No breaker is open.</Empty>
        ) : (
          <ul class="ov-plain">
            {view.breakers.map((b) => (
              <li key={`${b.hook}:${b.tenant}`} data-breaker={b.hook}>
                <a href={href('hooks', b.hook)}>{b.hook}</a>
                {b.tenant && <span class="hint"> · tenant {b.tenant}</span>} · opened <Time at={b.openedAt} />{' '}
                after {b.failures} failures
                <span class="ov-error">{b.lastError}</span>
              </li>
            ))}
          </ul>
        )}
      </Panel>
      <Panel title="Pending approvals" id="approvals">
        {view.approvals.length === 0 ? (
          <Empty>Nothing is waiting for a person.</Empty>
        ) : (
          <ul class="ov-plain">
            {view.approvals.map((a) => (
              <li key={a.id} data-approval={a.id}>
                <a href={href('approvals')}>{a.event ?? 'held request'}</a>
                {a.hooks.length > 0 && <span class="hint"> · asked by {a.hooks.join(', ')}</span>}
                {a.tenant && <span class="hint"> · tenant {a.tenant}</span>} · waiting{' '}
                <span data-age={a.ageMs}>{age(a.ageMs)}</span>
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </>
  )
}
