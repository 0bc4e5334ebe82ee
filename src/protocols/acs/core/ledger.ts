// What the ACS endpoint remembers between requests: seen request ids and nonces (replay
// protection, §10.3) and each session's chain head and entries (§8), every one of them per
// tenant and session (two tenants' sessions of the same id never meet). The in-memory ledger
// serves one instance; a SQL ledger (see the store) shares both across instances. Entries
// are appended one at a time per session, each hashed onto the head it was computed on.

import { randomUUID } from 'node:crypto'
import { entryHash } from './crypto.js'
import { refKey, type SessionRef } from './session-ref.js'
import { type AcsSessionState, createMemorySessionState } from './session-state.js'

/** A ContextEntry as hashed and stored (§8.1). */
export interface ChainEntry {
  entry_id: string
  step_id: string
  step_type: string
  request_hash: string
  timestamp: string
  /** The ACS disposition answered. */
  decision: string
  /** The audit record's id and the decision kind it records (before ACS substitutions). */
  decision_id: string
  recorded_decision: string
  previous_hash: string | null
  entry_hash: string
}

/** Replay memory and session chains. */
export interface AcsLedger {
  /** The database the ledger is kept in ("PostgreSQL", "SQLite"), named in outage answers. */
  readonly database?: string
  /**
   * Remembers `key` (a request id or nonce, already scoped by session) until `expiresAt`.
   * @returns false when it was already remembered and has not expired (a replay).
   */
  remember(key: string, expiresAt: number, now: number): Promise<boolean>
  /** The session's chain head, or null before its first entry. */
  head(ref: SessionRef): Promise<string | null>
  /**
   * Appends an entry whose `previous_hash` is the head it was computed on.
   * @returns false when the head moved meanwhile (the caller recomputes and retries).
   */
  append(ref: SessionRef, entry: ChainEntry): Promise<boolean>
  /** Every entry of a session, oldest first. */
  entries(ref: SessionRef): Promise<ChainEntry[]>
  /**
   * The sessions' handshakes, Intents, pending ASKs and deferral counts, kept with the chains
   * (on a database, shared by every instance). Without it, the service keeps them in memory.
   */
  readonly sessions?: AcsSessionState
}

/**
 * The synchronous forms of a ledger held in this process's memory: no I/O, so nothing to
 * wait for or bound, and no other writer between reading a head and appending to it.
 */
export interface SyncLedger {
  remember(key: string, expiresAt: number, now: number): boolean
  head(ref: SessionRef): string | null
  append(ref: SessionRef, entry: ChainEntry): boolean
}

/** The memory ledgers' synchronous forms, by the exact object handed out (a copy has none). */
const SYNC_FORMS = new WeakMap<AcsLedger, SyncLedger>()

/** The synchronous forms of a ledger made by {@link createMemoryLedger}, else undefined. */
export function syncFormOf(ledger: AcsLedger): SyncLedger | undefined {
  return SYNC_FORMS.get(ledger)
}

/** Options of {@link createMemoryLedger}. */
export interface MemoryLedgerOptions {
  /**
   * Most ids remembered at once. Ids are forgotten only once they expire: when this many are
   * still within the window, new requests are refused (a forgotten id could be replayed).
   * Default 200 000.
   */
  maxKeys?: number
  /** Most sessions whose chains are kept. Default 10 000. */
  maxSessions?: number
}

/** The in-memory replay memory holds its maximum of ids that have not expired yet. */
export class ReplayMemoryFull extends Error {
  constructor(readonly maxKeys: number) {
    super(
      `the replay memory holds ${maxKeys} request ids still within the timestamp window, so this request cannot be checked for replay; retry later, or serve ACS with a database store (warden serve --db)`,
    )
  }
}

/** A ledger in this process's memory, bounded. */
export function createMemoryLedger(options: MemoryLedgerOptions = {}): AcsLedger {
  const maxKeys = options.maxKeys ?? 200_000
  const maxSessions = options.maxSessions ?? 10_000
  const seen = new Map<string, number>()
  const chains = new Map<string, ChainEntry[]>()

  /** Forgets expired ids (insertion order is expiry order: every id gets the same window). */
  function sweep(now: number): void {
    for (const [key, expiresAt] of seen) {
      if (expiresAt > now) break
      seen.delete(key)
    }
  }

  const sync: SyncLedger = {
    remember(key, expiresAt, now) {
      const known = seen.get(key)
      if (known !== undefined && known > now) return false
      if (seen.size % 1024 === 0 || seen.size >= maxKeys) sweep(now)
      if (known === undefined && seen.size >= maxKeys) throw new ReplayMemoryFull(maxKeys)
      // An expired id taken over moves to the end, so insertion order stays expiry order.
      if (known !== undefined) seen.delete(key)
      seen.set(key, expiresAt)
      return true
    },
    head(ref) {
      const chain = chains.get(refKey(ref))
      return chain?.[chain.length - 1]?.entry_hash ?? null
    },
    append(ref, entry) {
      const key = refKey(ref)
      let chain = chains.get(key)
      const head = chain?.[chain.length - 1]?.entry_hash ?? null
      if (head !== entry.previous_hash) return false
      if (!chain) {
        chain = []
        chains.set(key, chain)
        if (chains.size > maxSessions) {
          const oldest = chains.keys().next().value
          if (oldest !== undefined) chains.delete(oldest)
        }
      }
      chain.push(entry)
      return true
    },
  }
  const ledger: AcsLedger = {
    remember: async (key, expiresAt, now) => sync.remember(key, expiresAt, now),
    head: async (ref) => sync.head(ref),
    append: async (ref, entry) => sync.append(ref, entry),
    entries: async (ref) => [...(chains.get(refKey(ref)) ?? [])],
    sessions: createMemorySessionState({ maxSessions }),
  }
  SYNC_FORMS.set(ledger, sync)
  return ledger
}

/**
 * Runs tasks of one key after every earlier task of that key (one appender per session
 * head in this process; across instances the ledger's append check settles races).
 */
export function createSerializer(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>()
  return (key, task) => {
    const before = tails.get(key) ?? Promise.resolve()
    const run = before.then(task, task)
    const tail = run.catch(() => undefined)
    tails.set(key, tail)
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key)
    })
    return run
  }
}

/** What a chain entry records of its step; the appender adds the id, time and hashes. */
export type StepRecord = Pick<
  ChainEntry,
  'step_id' | 'step_type' | 'request_hash' | 'decision' | 'decision_id' | 'recorded_decision'
> & {
  /** Further fields of the entry (an Intent established, an extension's approver, ...), hashed with it. */
  fields?: Record<string, unknown>
}

/** The ISO 8601 form of a time in ms, remembered for the last time asked (one per request path). */
export const isoAt = (() => {
  let lastMs = Number.NaN
  let lastText = ''
  return (ms: number): string => {
    if (ms !== lastMs) {
      lastMs = ms
      lastText = new Date(ms).toISOString()
    }
    return lastText
  }
})()

/** A chain entry for a step on the head `previous`, hashed. */
function entryFor(step: StepRecord, previous: string | null, at: number): ChainEntry {
  const entry: ChainEntry = {
    entry_id: randomUUID(),
    step_id: step.step_id,
    step_type: step.step_type,
    request_hash: step.request_hash,
    timestamp: isoAt(at),
    decision: step.decision,
    decision_id: step.decision_id,
    recorded_decision: step.recorded_decision,
    previous_hash: previous,
    entry_hash: '',
  }
  if (step.fields) {
    for (const [name, value] of Object.entries(step.fields))
      if (!(name in entry)) (entry as unknown as Record<string, unknown>)[name] = value
  }
  entry.entry_hash = entryHash(entry as unknown as Record<string, unknown>, previous)
  return entry
}

/** Appends a step to a session's chain: the new head, at once on a memory ledger. */
export type ChainAppender = (ref: SessionRef, step: StepRecord) => string | Promise<string>

/**
 * Appends entries to session chains: one at a time per session in this process, retried on
 * the current head when another instance appended meanwhile. On a memory ledger the head is
 * read and the entry appended in one synchronous step, so nothing can come between them and
 * the new head is known without waiting.
 * @returns a function giving the new entry's hash (the session's new head).
 */
export function createChainAppender(ledger: AcsLedger, now: () => number): ChainAppender {
  const sync = syncFormOf(ledger)
  if (sync) {
    return (ref, step) => {
      const entry = entryFor(step, sync.head(ref), now())
      if (!sync.append(ref, entry)) throw new Error('the session chain moved during a synchronous append')
      return entry.entry_hash
    }
  }
  const serialized = createSerializer()
  async function appendNow(ref: SessionRef, step: StepRecord): Promise<string> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const entry = entryFor(step, await ledger.head(ref), now())
      if (await ledger.append(ref, entry)) return entry.entry_hash
    }
    throw new Error('the session chain kept moving; the entry could not be appended')
  }
  return (ref, step) => serialized(refKey(ref), () => appendNow(ref, step))
}
