// Entry point of the management UI: signs in with a token (kept for this tab only), then
// shows the app; a lost connection reconnects with the same token (connection.tsx).

import { render } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, Client, REVOKED_CLOSE_CODE } from './api'
import { App } from './app'
import { ConnectionLost, type LostConnection, reconnectDelay } from './connection'
import { SignIn } from './pages/signin'
import { type Session, SessionContext, tokenStore } from './session'
import { redeemSignInCode, takeSignInCode } from './signin-link'
import type { ServerInfo } from './types'
import './styles/base.css'
import './styles/layout.css'
import './styles/form.css'
import './styles/hooks.css'
import './styles/hooks-list.css'
import './styles/decisions.css'
import './styles/approvals.css'
import './styles/overview.css'

/** A one-time sign-in link's code, taken out of the address bar before the first render. */
const signInCode = takeSignInCode()

async function open(token: string): Promise<Session> {
  const client = await Client.connect(token)
  const info = await client.call<ServerInfo>('server.info')
  if (info.methods.includes('subscribe')) {
    await client.call('subscribe', {
      events: ['decision', 'approval.requested', 'approval.resolved', 'hook.changed', 'breaker.tripped'],
    })
  }
  const methods = new Set(info.methods)
  return {
    client,
    info,
    can: (method) => methods.has(method),
    signOut() {
      tokenStore.clear()
      client.close()
      location.hash = ''
      location.reload()
    },
  }
}

function Root() {
  const [session, setSession] = useState<Session>()
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(() => signInCode !== undefined || tokenStore.get() !== null)
  const [lost, setLost] = useState<LostConnection>()
  const retry = useRef<ReturnType<typeof setTimeout>>()

  const signedOut = (message: string) => {
    clearTimeout(retry.current)
    tokenStore.clear()
    setLost(undefined)
    setSession(undefined)
    setError(message)
  }

  /** Watches a session's connection: a revoked token signs out, anything else reconnects. */
  const watch = (opened: Session, token: string) => {
    opened.client.onClose((reason, code) => {
      if (code === REVOKED_CLOSE_CODE) signedOut(`Signed out: ${reason}.`)
      else reconnect(token, reason, 0)
    })
  }

  const reconnect = (token: string, reason: string, attempt: number) => {
    const attemptNow = async () => {
      clearTimeout(retry.current)
      setLost((now) => (now ? { ...now, retryAt: Date.now() } : now))
      try {
        const opened = await open(token)
        watch(opened, token)
        setLost(undefined)
        setSession(opened)
      } catch (e) {
        if (e instanceof ApiError && e.code === 'unauthorized') signedOut(e.message)
        else reconnect(token, e instanceof ApiError ? e.message : String(e), attempt + 1)
      }
    }
    const wait = reconnectDelay(attempt)
    clearTimeout(retry.current)
    retry.current = setTimeout(() => void attemptNow(), wait)
    setLost({ reason, retryAt: Date.now() + wait, retryNow: () => void attemptNow() })
  }

  const signIn = async (token: string) => {
    setBusy(true)
    setError(undefined)
    try {
      const opened = await open(token)
      tokenStore.set(token)
      watch(opened, token)
      setSession(opened)
    } catch (e) {
      tokenStore.clear()
      setError(e instanceof ApiError ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }

  useEffect(() => {
    if (signInCode) {
      redeemSignInCode(signInCode).then(signIn, (e: Error) => {
        setBusy(false)
        setError(e.message)
      })
      return
    }
    const saved = tokenStore.get()
    if (saved) void signIn(saved)
  }, [])

  if (!session) return <SignIn onSignIn={signIn} error={error} busy={busy} />
  return (
    <SessionContext.Provider value={session}>
      {lost && <ConnectionLost lost={lost} />}
      <App />
    </SessionContext.Provider>
  )
}

const root = document.getElementById('app')
if (root) render(<Root />, root)
