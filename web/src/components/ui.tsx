// Small shared pieces: decision badges, error and empty states, times, durations, JSON.

import type { ComponentChildren } from 'preact'

export { exactTime, relativeTime, Time } from './time'

const TONES: Record<string, string> = {
  allow: 'ok',
  approved: 'ok',
  modify: 'info',
  edit: 'info',
  ask: 'warn',
  pending: 'warn',
  abstain: 'muted',
  skipped: 'muted',
  expired: 'muted',
  deny: 'bad',
  rejected: 'bad',
  error: 'bad',
}

/** A coloured badge for a decision, outcome or status. */
export function Badge({ value, title }: { value: string; title?: string }) {
  return (
    <span class={`badge tone-${TONES[value] ?? 'muted'}`} title={title}>
      {value}
    </span>
  )
}

/** An error message, shown where the action happened. */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null
  const message = error instanceof Error ? error.message : String(error)
  return (
    <p class="error" role="alert">
      {message}
    </p>
  )
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>
}

/** A duration in ms, short. */
export function ms(value: number | undefined): string {
  if (value === undefined) return '-'
  if (value < 1) return `${(value * 1000).toFixed(0)} µs`
  if (value < 1000) return `${value.toFixed(value < 10 ? 2 : 0)} ms`
  return `${(value / 1000).toFixed(2)} s`
}

/** JSON, pretty-printed. */
export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" title={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  )
}
