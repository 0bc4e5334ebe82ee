// What a Guardian remembers of each session beyond its chain and replay memory: the
// handshake's terms, the Intent and its session-scoped extensions, the ASKs awaiting an
// approver, and the deferrals used. Every part is keyed by tenant and session. The memory
// form serves one instance (the last 10 000 sessions); a database form (see the store) lets
// every instance of a cluster serve any step of any session with the same answers.

import { refKey, type SessionRef } from './session-ref.js'

/** A session's negotiated terms as kept (methods as a list; null: all allowed). */
export interface HandshakeRecord {
  methods: string[] | null
  terms: string
  answerAlgorithm?: string
}

/** An ASK raised for a request outside the Intent, awaiting its approver's answer. */
export interface PendingAskRecord {
  method: string
  capability: string
  /** The agent whose step raised the ASK: only it may re-send the step with the answer. */
  agentId: string
  /** The canonical hash of the request asked about (method, capability, payload). */
  requestHash: string
  approverId: string
  expiresAt: number
}

/** A session-scoped capability grant of an approver, as kept (its JSON). */
export type ExtensionRecord = Record<string, unknown>

/** What one read of a session's state gives. */
export interface SessionSnapshot {
  handshake?: HandshakeRecord
  /** The canonical JSON of the Intent established, and the extensions granted since, in order. */
  intent?: { canonical: string; extensions: ExtensionRecord[] }
  deferrals: number
}

/** The state of a Guardian's sessions. Every call may fail (a database's outage). */
export interface AcsSessionState {
  /** The database the state is kept in ("PostgreSQL", "SQLite"), named in outage answers. */
  readonly database?: string
  /** The session's handshake, Intent and deferral count, in one read. */
  load(ref: SessionRef): Promise<SessionSnapshot>
  /** {@link load} at once, for state in this process's memory (nothing to wait for). */
  loadNow?(ref: SessionRef): SessionSnapshot
  /** Keeps `record` unless the session has a handshake already: the one kept. */
  claimHandshake(ref: SessionRef, record: HandshakeRecord): Promise<HandshakeRecord>
  /** Keeps the Intent unless the session has one already: the canonical JSON kept. */
  establishIntent(ref: SessionRef, canonical: string): Promise<string>
  /** Appends a session-scoped extension. */
  extendIntent(ref: SessionRef, extension: ExtensionRecord): Promise<void>
  /** Counts one deferral of the session. */
  countDeferral(ref: SessionRef): Promise<void>
  /** Remembers an ASK raised by the step `stepId`. */
  raiseAsk(ref: SessionRef, stepId: string, ask: PendingAskRecord): Promise<void>
  /** The ASK raised by `stepId`, if it still awaits an answer. */
  pendingAsk(ref: SessionRef, stepId: string): Promise<PendingAskRecord | undefined>
  /** Removes the ASK: true for the one caller that removed it (an answer is used once). */
  takeAsk(ref: SessionRef, stepId: string): Promise<boolean>
}

/** Options of {@link createMemorySessionState}. */
export interface MemorySessionStateOptions {
  /** Most sessions kept (oldest dropped first; such a session re-handshakes). Default 10 000. */
  maxSessions?: number
  /** Most ASKs awaiting an answer at once (oldest dropped first). Default 10 000. */
  maxAsks?: number
}

interface MemorySession {
  handshake?: HandshakeRecord
  intent?: { canonical: string; extensions: ExtensionRecord[] }
  deferrals: number
}

/** Sets `key` as the newest entry of `map`, dropping the oldest past `max` entries. */
function keepNewest<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key)
  map.set(key, value)
  if (map.size > max) {
    const oldest = map.keys().next().value
    if (oldest !== undefined) map.delete(oldest)
  }
}

/** Session state in this process's memory, bounded. */
export function createMemorySessionState(options: MemorySessionStateOptions = {}): AcsSessionState {
  const maxSessions = options.maxSessions ?? 10_000
  const maxAsks = options.maxAsks ?? 10_000
  const sessions = new Map<string, MemorySession>()
  const asks = new Map<string, PendingAskRecord>()
  const EMPTY: SessionSnapshot = Object.freeze({ deferrals: 0 })

  function session(ref: SessionRef): MemorySession {
    const key = refKey(ref)
    let found = sessions.get(key)
    if (!found) {
      found = { deferrals: 0 }
      keepNewest(sessions, key, found, maxSessions)
    }
    return found
  }
  const askKey = (ref: SessionRef, stepId: string) => `${refKey(ref)}\u0000${stepId}`

  return {
    load: async (ref) => sessions.get(refKey(ref)) ?? EMPTY,
    loadNow: (ref) => sessions.get(refKey(ref)) ?? EMPTY,
    async claimHandshake(ref, record) {
      const s = session(ref)
      s.handshake ??= record
      return s.handshake
    },
    async establishIntent(ref, canonical) {
      const s = session(ref)
      s.intent ??= { canonical, extensions: [] }
      return s.intent.canonical
    },
    async extendIntent(ref, extension) {
      session(ref).intent?.extensions.push(extension)
    },
    async countDeferral(ref) {
      session(ref).deferrals++
    },
    async raiseAsk(ref, stepId, ask) {
      keepNewest(asks, askKey(ref, stepId), ask, maxAsks)
    },
    pendingAsk: async (ref, stepId) => asks.get(askKey(ref, stepId)),
    takeAsk: async (ref, stepId) => asks.delete(askKey(ref, stepId)),
  }
}
