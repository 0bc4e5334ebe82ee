// The one way the UI shows a time: relative ("5 min ago"), with the exact date, time and
// time zone on hover (and for screen readers through the title). One shared clock ticks
// every 30 s so that "just now" ages without a timer per row.

import { useEffect, useState } from 'preact/hooks'

const listeners = new Set<(now: number) => void>()
let timer: ReturnType<typeof setInterval> | undefined

/** The current time, updated every 30 s while something shows it. */
export function useClock(): number {
  const [now, setNow] = useState(Date.now)
  useEffect(() => {
    listeners.add(setNow)
    timer ??= setInterval(() => {
      const at = Date.now()
      for (const listener of listeners) listener(at)
    }, 30_000)
    return () => {
      listeners.delete(setNow)
      if (listeners.size === 0 && timer !== undefined) {
        clearInterval(timer)
        timer = undefined
      }
    }
  }, [])
  return now
}

// dateStyle / timeStyle cannot be combined with timeZoneName: the fields are named instead.
const EXACT = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
})
const DAY_FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })

/** The exact time with its zone: "Nov 25, 2026, 11:32:44 PM UTC". */
export function exactTime(at: number): string {
  return EXACT.format(new Date(at))
}

/** "just now", "40 s ago", "5 min ago", "3 h ago", "2 d ago", "in 4 min"; a date past a week. */
export function relativeTime(at: number, now: number): string {
  const delta = now - at
  const ahead = delta < 0
  const abs = Math.abs(delta)
  if (abs < 5_000) return 'just now'
  if (abs >= 7 * 86_400_000) return DAY_FORMAT.format(new Date(at))
  const [value, unit] =
    abs < 60_000
      ? [Math.round(abs / 1000), 's']
      : abs < 3_600_000
        ? [Math.round(abs / 60_000), 'min']
        : abs < 86_400_000
          ? [Math.round(abs / 3_600_000), 'h']
          : [Math.round(abs / 86_400_000), 'd']
  return ahead ? `in ${value} ${unit}` : `${value} ${unit} ago`
}

/** A time, relative, with the exact time and zone on hover; "-" when there is none. */
export function Time({ at, fallback = '-' }: { at: number | undefined; fallback?: string }) {
  const now = useClock()
  if (at === undefined) return <span class="hint">{fallback}</span>
  const exact = exactTime(at)
  return (
    <time dateTime={new Date(at).toISOString()} title={exact}>
      {relativeTime(at, now)}
    </time>
  )
}
