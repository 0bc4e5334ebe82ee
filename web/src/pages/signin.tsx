// Sign in with an access token made by `warden tokens create`.

import { useState } from 'preact/hooks'

export function SignIn(props: { onSignIn(token: string): void; error: string | undefined; busy: boolean }) {
  const [token, setToken] = useState('')
  return (
    <main class="signin">
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault()
          if (token.trim()) props.onSignIn(token.trim())
        }}
      >
        <h1>Warden</h1>
        <p>
          Sign in with an access token. Make one with <code>warden tokens create --name you</code>.
        </p>
        <label for="token">Access token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          placeholder="wdn_…"
          required
        />
        {props.error && (
          <p class="error" role="alert">
            {props.error}
          </p>
        )}
        <button type="submit" class="primary" disabled={props.busy}>
          {props.busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">The token is kept for this tab only.</p>
      </form>
    </main>
  )
}
