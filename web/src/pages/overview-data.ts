// The overview's data: the window and tenant chosen (kept in the address, `#/overview?
// window=24h&tenant=acme`), `overview.get` asked again shortly after each push (a decision,
// an approval, a breaker) while live, held while paused, and the connection's state for
// the live indicator. Also the links into the decisions list, filtered to what a point or a
// row counts.

import { useEffect, useRef, useState } from 'preact/hooks'
import { useSession } from '../session'
import type { OverviewView } from '../types'

export const OVERVIEW_WINDOWS = [
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 h' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: 'range', label: 'From … to …' },
] as const

/** What the page shows: a named window or a from/to range (local date-times), and a tenant. */
export interface OverviewChoice {
  window: string
  from: string
  to: string
  tenant: string
}

/** The choice an address names (unknown values fall back to the last 24 h). */
export function choiceFrom(query: URLSearchParams): OverviewChoice {
  const window = query.get('window') ?? '24h'
  return {
    window: OVERVIEW_WINDOWS.some((w) => w.value === window) ? window : '24h',
    from: (query.get('from') ?? '').slice(0, 40),
    to: (query.get('to') ?? '').slice(0, 40),
    tenant: (query.get('tenant') ?? '').slice(0, 200),
  }
}

/** Keeps the choice in the address without a navigation. */
export function writeChoice(choice: OverviewChoice): void {
  const query = new URLSearchParams()
  if (choice.window !== '24h') query.set('window', choice.window)
  if (choice.window === 'range') {
    if (choice.from) query.set('from', choice.from)
    if (choice.to) query.set('to', choice.to)
  }
  if (choice.tenant.trim()) query.set('tenant', choice.tenant.trim())
  const text = query.toString()
  const hash = `#/overview${text ? `?${text}` : ''}`
  if (location.hash !== hash && location.hash.startsWith('#/overview')) {
    history.replaceState(history.state, '', hash)
  }
}

/** A time as `<input type="datetime-local">` writes it, in local time: 2026-11-27T14:05. */
export function localInput(at: number): string {
  const d = new Date(at)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** The `overview.get` params of a choice (undefined while a range is incomplete). */
export function overviewParams(
  choice: OverviewChoice,
  ownTenant: string | null,
): Record<string, unknown> | undefined {
  const tenant = !ownTenant && choice.tenant.trim() ? { tenant: choice.tenant.trim() } : {}
  if (choice.window !== 'range') return { window: choice.window, ...tenant }
  const since = new Date(choice.from).getTime()
  const until = choice.to ? new Date(choice.to).getTime() : Date.now()
  if (!Number.isFinite(since) || !Number.isFinite(until) || since >= until) return undefined
  return { since, until, ...tenant }
}

/** The decisions list filtered to a time range and more (`decision`, `tool`, `agent`, ...). */
export function decisionsHref(
  since: number,
  until: number,
  filters: Record<string, string | undefined>,
): string {
  const query = new URLSearchParams({ since: 'range', from: localInput(since), to: localInput(until) })
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value)
  return `#/decisions?${query.toString()}`
}

/** How fresh the figures are. */
export type LiveState = 'live' | 'paused' | 'disconnected'

/** Waits this long after a push before asking again (pushes in a burst make one call). */
const REFRESH_DELAY_MS = 800
/** And once more this long after that (decisions still queued for the audit writer). */
const FOLLOW_UP_MS = 2500
/** Asks again this often while live, so that a named window keeps ending now. */
const TICK_MS = 60_000
const PUSHES = ['decision', 'approval.requested', 'approval.resolved', 'breaker.tripped']

/** The overview for the params, kept current from the pushes while not paused. */
export function useOverview(params: Record<string, unknown> | undefined, paused: boolean) {
  const { client } = useSession()
  const [view, setView] = useState<OverviewView>()
  const [error, setError] = useState<unknown>()
  const [state, setState] = useState<LiveState>('live')
  const [missed, setMissed] = useState(0)
  const key = JSON.stringify(params ?? null)
  const live = useRef({ paused, key })
  live.current = { paused, key }
  const generation = useRef(0)
  const timer = useRef<ReturnType<typeof setTimeout>>()
  const followUp = useRef<ReturnType<typeof setTimeout>>()
  /** The first client needs no second read: the window's effect reads it. */
  const first = useRef(true)

  const load = () => {
    const asked = live.current.key
    const parsed = JSON.parse(asked) as Record<string, unknown> | null
    if (!parsed) return
    const mine = ++generation.current
    client
      .call<OverviewView>('overview.get', parsed)
      .then((answer) => {
        if (mine !== generation.current) return
        setView(answer)
        setError(undefined)
      })
      .catch((e: unknown) => {
        if (mine === generation.current) setError(e)
      })
  }

  useEffect(() => {
    setView(undefined)
    load()
  }, [key])

  useEffect(() => {
    setState(paused ? 'paused' : 'live')
    if (!paused && missed > 0) {
      setMissed(0)
      load()
    }
  }, [paused])

  useEffect(() => {
    const soon = () => {
      if (live.current.paused) {
        setMissed((n) => n + 1)
        return
      }
      timer.current ??= setTimeout(() => {
        timer.current = undefined
        load()
        // Rows still in the audit writer's queue are counted by a second look.
        if (followUp.current !== undefined) clearTimeout(followUp.current)
        followUp.current = setTimeout(() => {
          followUp.current = undefined
          if (!live.current.paused) load()
        }, FOLLOW_UP_MS)
      }, REFRESH_DELAY_MS)
    }
    const stops = PUSHES.map((event) => client.on(event, soon))
    const closed = client.onClose(() => setState('disconnected'))
    // A new client (first render, or a reconnection): live again, and read afresh.
    setState(live.current.paused ? 'paused' : 'live')
    if (!first.current) load()
    first.current = false
    const tick = setInterval(() => {
      if (!live.current.paused) load()
    }, TICK_MS)
    return () => {
      for (const stop of stops) stop()
      closed()
      clearInterval(tick)
      if (timer.current !== undefined) clearTimeout(timer.current)
      if (followUp.current !== undefined) clearTimeout(followUp.current)
      timer.current = undefined
      followUp.current = undefined
    }
  }, [client])

  return { view, error, state, missed }
}
