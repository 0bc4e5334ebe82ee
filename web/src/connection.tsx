// A lost connection to the server, while signed in: the page the operator looks at stays,
// a banner says the connection is lost and when the next attempt is, and the same token
// reconnects on its own (1 s, 2 s, 4 s … at most 15 s apart, or at once with "Retry now").
// Pages that read through the session's client load again on the new one. A token the
// server now refuses (revoked, or the server's tokens changed) signs out instead.

import { useEffect, useRef, useState } from 'preact/hooks'

/** The wait before the n-th attempt (from 0). */
export function reconnectDelay(attempt: number): number {
  return Math.min(15_000, 1000 * 2 ** attempt)
}

export interface LostConnection {
  reason: string
  /** When the next attempt starts (browser clock). */
  retryAt: number
  /** Starts the next attempt now. */
  retryNow(): void
}

/** The banner shown while the connection is lost. */
export function ConnectionLost({ lost }: { lost: LostConnection }) {
  const [now, setNow] = useState(Date.now)
  const button = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 500)
    return () => clearInterval(timer)
  }, [])
  const left = Math.max(0, Math.ceil((lost.retryAt - now) / 1000))
  return (
    <div class="conn-lost" role="alert">
      <span>
        <strong>Disconnected from Warden</strong>: {lost.reason}.{' '}
        {left > 0 ? `Reconnecting in ${left} s…` : 'Reconnecting…'} Figures on this page are not updated until
        then.
      </span>
      <button type="button" ref={button} onClick={lost.retryNow} disabled={left === 0}>
        Retry now
      </button>
    </div>
  )
}
