// The signed-in session: the client, what the server said about the token, and whether
// the token may call a method. The token is kept in sessionStorage (this tab only).

import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Client } from './api'
import type { ServerInfo } from './types'

export interface Session {
  client: Client
  info: ServerInfo
  can(method: string): boolean
  signOut(): void
}

export const SessionContext = createContext<Session | undefined>(undefined)

/** The current session (only inside the signed-in app). */
export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('no session')
  return session
}

const KEY = 'warden.token'

export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (token: string) => sessionStorage.setItem(KEY, token),
  clear: () => sessionStorage.removeItem(KEY),
}
