// One hook: a header (state, breaker, edit / delete / toggle — switching off asks for a
// reason; a hook in shadow mode shows its would-be denials and is promoted there, see
// components/shadow-panel.tsx) and four tabs: Overview (pages/hook-overview.tsx), Test
// (pages/hook-test.tsx), History (pages/hook-history.tsx) and Changes (pages/hook-changes.tsx).
// Kept live by `hook.changed` and `breaker.tripped` pushes.

import { useEffect, useState } from 'preact/hooks'
import { ApiError } from '../api'
import { ShadowPanel } from '../components/shadow-panel'
import { ToggleOffDialog } from '../components/toggle-dialog'
import { Badge, Empty, ErrorText, Time } from '../components/ui'
import { href, navigate } from '../router'
import { useSession } from '../session'
import type { DryRun, Hook } from '../types'
import { ChangesTab } from './hook-changes'
import { HistoryTab } from './hook-history'
import { OverviewTab } from './hook-overview'
import { TestTab } from './hook-test'
import { sampleText } from './sample-events'

const TABS = [
  ['overview', 'Overview'],
  ['test', 'Test'],
  ['history', 'History'],
  ['changes', 'Changes'],
] as const

/** The hook page; its state starts afresh for another hook. */
export function HookDetail({ id, tab }: { id: string; tab: string }) {
  return <HookPage key={id} id={id} tab={tab} />
}

function HookPage({ id, tab }: { id: string; tab: string }) {
  const { client, can } = useSession()
  const [hook, setHook] = useState<Hook>()
  const [missing, setMissing] = useState(false)
  const [error, setError] = useState<unknown>()
  const [actionError, setActionError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const [confirming, setConfirming] = useState(false)
  // The Test tab's editor and last result outlive switching tabs.
  const [sample, setSample] = useState<string>()
  const [result, setResult] = useState<DryRun>()

  useEffect(() => {
    let live = true
    const load = () =>
      client
        .call<Hook>('hooks.get', { id })
        .then((found) => {
          if (!live) return
          setHook(found)
          setMissing(false)
          setError(undefined)
        })
        .catch((e: unknown) => {
          if (!live) return
          if (e instanceof ApiError && e.code === 'not-found') setMissing(true)
          else setError(e)
        })
    void load()
    const offs = [
      client.on('hook.changed', (payload) => {
        const change = payload as { id?: string; change?: string }
        if (change.id !== id) return
        if (change.change === 'deleted') setMissing(true)
        else void load()
      }),
      client.on('breaker.tripped', (payload) => {
        if ((payload as { hookId?: string }).hookId === id) void load()
      }),
    ]
    return () => {
      live = false
      for (const off of offs) off()
    }
  }, [client, id])

  if (missing) {
    return (
      <section>
        <h1>Hook not found</h1>
        <p>
          There is no hook <code>{id}</code>, or this token may not see it. It may have just been deleted.
        </p>
        <p>
          <a href={href('hooks')}>← Back to hooks</a>
        </p>
      </section>
    )
  }
  if (!hook) {
    return (
      <section>
        <p>
          <a href={href('hooks')}>← Hooks</a>
        </p>
        {error ? <ErrorText error={error} /> : <Empty>Loading…</Empty>}
      </section>
    )
  }

  const act = async (work: () => Promise<void>) => {
    setBusy(true)
    setActionError(undefined)
    try {
      await work()
    } catch (e) {
      setActionError(e)
    } finally {
      setBusy(false)
    }
  }
  const toggle = (enabled: boolean, reason?: string) =>
    act(async () =>
      setHook(
        await client.call<Hook>('hooks.toggle', { id: hook.id, enabled, ...(reason ? { reason } : {}) }),
      ),
    )
  const remove = () => {
    if (!confirm(`Delete the hook "${hook.name}"? Agents stop seeing it at once; this cannot be undone.`))
      return
    void act(async () => {
      await client.call('hooks.delete', { id: hook.id })
      navigate('/hooks')
    })
  }

  const current = TABS.some(([name]) => name === tab) ? tab : 'overview'
  return (
    <section class="hd">
      <p class="hd-back">
        <a href={href('hooks')}>← Hooks</a>
      </p>
      <div class="titlebar">
        <div class="hd-title">
          <h1>{hook.name}</h1>
          <p class="hd-meta">
            <code>{hook.id}</code>
            <span class={`badge tone-${hook.enabled ? 'ok' : 'muted'}`}>
              {hook.enabled ? 'enabled' : 'disabled'}
            </span>
            {hook.breaker && (
              <span class="badge tone-bad" title={`breaker open: ${hook.breaker.lastError}`}>
                breaker open
              </span>
            )}
            {hook.mode === 'shadow' && <span class="badge tone-warn">shadow</span>}
            <Badge value={hook.source} title={hook.origin} />
            <span class="hint">v{hook.version}</span>
          </p>
        </div>
        <div class="hd-actions">
          {can('hooks.toggle') && (
            <button
              type="button"
              disabled={busy}
              onClick={() => (hook.enabled ? setConfirming(true) : void toggle(true))}
            >
              {hook.enabled ? 'Disable' : 'Enable'}
            </button>
          )}
          {can('hooks.update') && !hook.readOnly && (
            <a class="button" href={href('hooks', hook.id, 'edit')}>
              Edit
            </a>
          )}
          {can('hooks.delete') && hook.source === 'api' && (
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              Delete
            </button>
          )}
        </div>
      </div>
      {hook.breaker && (
        <p class="notice hd-breaker" role="status">
          The circuit breaker switched this hook off <Time at={hook.breaker.openedAt} /> after{' '}
          {hook.breaker.failures} failures; last error: {hook.breaker.lastError}.{' '}
          {can('hooks.toggle') && (
            <button type="button" disabled={busy} onClick={() => void toggle(true)}>
              Re-arm
            </button>
          )}
        </p>
      )}
      <ShadowPanel hook={hook} onPromoted={setHook} />
      {hook.readOnly && (
        <p class="notice">
          This hook comes from <code>{hook.origin ?? 'the configuration'}</code>: change it in that file. Here
          it can only be switched on or off (the switch is kept in the database).
        </p>
      )}
      <ErrorText error={actionError} />
      <nav class="tabs" aria-label="Hook">
        {TABS.map(([name, label]) => (
          <a
            key={name}
            class="tab"
            href={name === 'overview' ? href('hooks', hook.id) : href('hooks', hook.id, name)}
            aria-current={current === name ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      {current === 'overview' && <OverviewTab hook={hook} />}
      {current === 'test' && (
        <TestTab
          hook={hook}
          text={sample ?? sampleText(hook)}
          setText={setSample}
          result={result}
          setResult={setResult}
        />
      )}
      {current === 'history' && <HistoryTab id={hook.id} />}
      {current === 'changes' && <ChangesTab id={hook.id} />}
      {confirming && (
        <ToggleOffDialog
          hook={hook}
          busy={busy}
          onConfirm={(reason) => void toggle(false, reason).then(() => setConfirming(false))}
          onCancel={() => setConfirming(false)}
        />
      )}
    </section>
  )
}
