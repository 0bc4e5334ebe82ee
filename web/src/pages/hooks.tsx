// The hooks table: every hook the token may see (from the API and from files), filtered
// and searched, with each hook's activity over 24 hours, toggled inline (switching off asks
// for a confirmation and a reason), with the circuit breaker's state; kept live by pushes.
// A row: hook-row.tsx.

import { useEffect, useMemo, useState } from 'preact/hooks'
import { ToggleOffDialog } from '../components/toggle-dialog'
import { Empty, ErrorText } from '../components/ui'
import { navigate } from '../router'
import { useSession } from '../session'
import type { Hook, HookPage } from '../types'
import { useHookActivity } from './hook-activity'
import { HookRow } from './hook-row'

/** Every visible hook, page by page. */
async function loadAll(call: <T>(m: string, p?: unknown) => Promise<T>): Promise<Hook[]> {
  const all: Hook[] = []
  let offset = 0
  for (;;) {
    const page = await call<HookPage>('hooks.list', { limit: 1000, offset })
    all.push(...page.hooks)
    if (page.next === undefined) return all
    offset = page.next
  }
}

export function HooksPage() {
  const { client, can } = useSession()
  const [hooks, setHooks] = useState<Hook[]>()
  const [error, setError] = useState<unknown>()
  const [search, setSearch] = useState('')
  const [event, setEvent] = useState('')
  const [source, setSource] = useState('')
  const [state, setState] = useState('')
  const [confirming, setConfirming] = useState<Hook>()
  const [busy, setBusy] = useState(false)
  const activity = useHookActivity()

  useEffect(() => {
    const refresh = () =>
      void loadAll((m, p) => client.call(m, p))
        .then(setHooks)
        .catch(setError)
    refresh()
    const offs = [client.on('hook.changed', refresh), client.on('breaker.tripped', refresh)]
    return () => {
      for (const off of offs) off()
    }
  }, [client])

  const events = useMemo(() => [...new Set((hooks ?? []).map((h) => h.event))].sort(), [hooks])
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase()
    return (hooks ?? []).filter(
      (h) =>
        (!event || h.event === event) &&
        (!source || h.source === source) &&
        (!state || (state === 'on' ? h.enabled : state === 'off' ? !h.enabled : Boolean(h.breaker))) &&
        (!needle ||
          `${h.id} ${h.event} ${h.handlerType} ${h.matcher ?? ''} ${h.tenant ?? ''} ${h.agents.join(' ')} ${h.description ?? ''}`
            .toLowerCase()
            .includes(needle)),
    )
  }, [hooks, search, event, source, state])

  const setEnabled = async (hook: Hook, enabled: boolean, reason?: string) => {
    setError(undefined)
    setBusy(true)
    try {
      const updated = await client.call<Hook>('hooks.toggle', {
        id: hook.id,
        enabled,
        ...(reason ? { reason } : {}),
      })
      setHooks((list) => list?.map((h) => (h.id === updated.id ? updated : h)))
      setConfirming(undefined)
    } catch (e) {
      setError(e)
      setConfirming(undefined)
    } finally {
      setBusy(false)
    }
  }
  /** Switching on is immediate; switching off asks first (see ToggleOffDialog). */
  const toggle = (hook: Hook) => {
    if (hook.enabled) setConfirming(hook)
    else void setEnabled(hook, true)
  }

  return (
    <section>
      <div class="titlebar">
        <h1>Hooks</h1>
        {can('hooks.create') && (
          <button type="button" class="primary" onClick={() => navigate('/hooks/new')}>
            New hook
          </button>
        )}
      </div>
      <search class="filters">
        <input
          type="search"
          aria-label="Search hooks"
          placeholder="Search name, event, type, matcher…"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
        <select
          aria-label="Event"
          value={event}
          onChange={(e) => setEvent((e.target as HTMLSelectElement).value)}
        >
          <option value="">All events</option>
          {events.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <select
          aria-label="Source"
          value={source}
          onChange={(e) => setSource((e.target as HTMLSelectElement).value)}
        >
          <option value="">All sources</option>
          <option value="api">API</option>
          <option value="file">Files</option>
          <option value="builtin">Built-in packs</option>
        </select>
        <select
          aria-label="State"
          value={state}
          onChange={(e) => setState((e.target as HTMLSelectElement).value)}
        >
          <option value="">Any state</option>
          <option value="on">Enabled</option>
          <option value="off">Disabled</option>
          <option value="breaker">Breaker open</option>
        </select>
      </search>
      <ErrorText error={error} />
      {hooks === undefined ? (
        <Empty>Loading…</Empty>
      ) : shown.length === 0 ? (
        <Empty>{hooks.length === 0 ? 'No hooks yet.' : 'No hook matches the filters.'}</Empty>
      ) : (
        <div class="table-wrap">
          <table class="hooks">
            <thead>
              <tr>
                <th scope="col">Hook</th>
                <th scope="col">Last 24 h</th>
                <th scope="col">Enabled</th>
                <th scope="col" class="hk-wide">
                  Event
                </th>
                <th scope="col" class="hk-wide">
                  Type
                </th>
                <th scope="col" class="hk-wide">
                  Scope
                </th>
                <th scope="col" class="hk-wide">
                  Matcher
                </th>
                <th scope="col" class="hk-wide">
                  Priority
                </th>
                <th scope="col" class="hk-wide">
                  Source
                </th>
                <th scope="col" class="hk-wide">
                  Version
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((hook) => (
                <HookRow
                  key={hook.id}
                  hook={hook}
                  activity={activity?.get(hook.id)}
                  activityLoaded={activity !== undefined}
                  canToggle={can('hooks.toggle')}
                  onToggle={toggle}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="hint">
        {shown.length} of {hooks?.length ?? 0} hooks
      </p>
      {confirming && (
        <ToggleOffDialog
          hook={confirming}
          busy={busy}
          onConfirm={(reason) => void setEnabled(confirming, false, reason)}
          onCancel={() => setConfirming(undefined)}
        />
      )}
    </section>
  )
}
