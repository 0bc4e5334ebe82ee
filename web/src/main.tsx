// Entry point of the management UI: signs in with a token (kept for this tab only), then
// shows the app.

import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, Client } from './api'
import { App } from './app'
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

  const signIn = async (token: string) => {
    setBusy(true)
    setError(undefined)
    try {
      const opened = await open(token)
      tokenStore.set(token)
      opened.client.onClose((reason) => {
        setSession(undefined)
        setError(`Signed out: ${reason}.`)
      })
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
      <App />
    </SessionContext.Provider>
  )
}

const root = document.getElementById('app')
if (root) render(<Root />, root)
