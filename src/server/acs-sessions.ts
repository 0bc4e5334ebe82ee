// ACS session state on the store's database (SQLite or PostgreSQL, the same code): each
// session's handshake, Intent, session-scoped extensions, ASKs awaiting an answer and deferral
// count, one row per part under (tenant, session, name), so every instance of a cluster serves
// any step of any session as one instance would. A first write wins where two instances race
// (handshake, Intent), an ASK's answer is taken by one caller only, and rows expire.

import { randomUUID } from 'node:crypto'
import { CompiledQuery, type Kysely, sql } from 'kysely'
import type {
  AcsSessionState,
  ExtensionRecord,
  HandshakeRecord,
  PendingAskRecord,
  SessionRef,
  SessionSnapshot,
} from '../protocols/acs/index.js'

/** The table of migration 0013_acs_session_state. */
export interface AcsSessionTables {
  acs_session_state: {
    tenant_id: string
    session_id: string
    name: string
    value: string
    created_at: number
    expires_at: number
  }
}

/** How long a session's state is kept after it was written (its handshake, Intent, ...): 7 days. */
export const SESSION_STATE_TTL_MS = 7 * 24 * 60 * 60 * 1000

/** How long an ASK's row outlives its expiry, so a late answer is told it expired. */
const ASK_GRACE_MS = 60 * 60 * 1000

/** Most rows of one session read at once (a session with more extensions is refused). */
const MAX_ROWS = 1_000

const HANDSHAKE = 'handshake'
const INTENT = 'intent'
const DEFERRALS = 'deferrals'
const EXTENSION = 'ext:'
const ASK = 'ask:'

type Db = Kysely<AcsSessionTables>

/**
 * The read of every step: one session's rows but its ASKs, oldest first, as SQL text compiled
 * once (the query builder's work per call costs as much as SQLite's). `$n` placeholders for
 * PostgreSQL, `?` for SQLite.
 */
function loadQuery(postgres: boolean): string {
  const at = (n: number) => (postgres ? `$${n}` : '?')
  return `select name, value from acs_session_state where tenant_id = ${at(1)} and session_id = ${at(2)} and expires_at > ${at(3)} and name not like 'ask:%' order by created_at, name limit ${MAX_ROWS + 1}`
}

/**
 * The session state over an open Kysely instance of the store's database.
 * @param postgres whether the database is PostgreSQL (else SQLite).
 */
export function acsSessionsOn(db: Db, postgres: boolean, now: () => number = Date.now): AcsSessionState {
  let writes = 0
  const loadText = loadQuery(postgres)

  /** Inserts a row unless the session has one of that name; expired rows are replaced. */
  async function insertOnce(ref: SessionRef, name: string, value: string, expiresAt: number): Promise<void> {
    const t = now()
    if (++writes % 500 === 0) await db.deleteFrom('acs_session_state').where('expires_at', '<=', t).execute()
    await db
      .deleteFrom('acs_session_state')
      .where('tenant_id', '=', ref.tenant)
      .where('session_id', '=', ref.session)
      .where('name', '=', name)
      .where('expires_at', '<=', t)
      .execute()
    await db
      .insertInto('acs_session_state')
      .values({
        tenant_id: ref.tenant,
        session_id: ref.session,
        name,
        value,
        created_at: t,
        expires_at: expiresAt,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'session_id', 'name']).doNothing())
      .execute()
  }

  async function keptValue(ref: SessionRef, name: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('acs_session_state')
      .select('value')
      .where('tenant_id', '=', ref.tenant)
      .where('session_id', '=', ref.session)
      .where('name', '=', name)
      .where('expires_at', '>', now())
      .executeTakeFirst()
    return row?.value
  }

  /** Keeps `value` under `name` unless one is kept: the value kept. */
  async function claim(ref: SessionRef, name: string, value: string): Promise<string> {
    await insertOnce(ref, name, value, now() + SESSION_STATE_TTL_MS)
    return (await keptValue(ref, name)) ?? value
  }

  async function load(ref: SessionRef): Promise<SessionSnapshot> {
    const { rows } = await db.executeQuery<{ name: string; value: string }>(
      CompiledQuery.raw(loadText, [ref.tenant, ref.session, now()]),
    )
    if (rows.length > MAX_ROWS) {
      throw new Error(`session state holds more than ${MAX_ROWS} rows; start a new session`)
    }
    const snapshot: SessionSnapshot = { deferrals: 0 }
    const extensions: ExtensionRecord[] = []
    let intent: string | undefined
    for (const row of rows) {
      if (row.name === HANDSHAKE) snapshot.handshake = JSON.parse(row.value) as HandshakeRecord
      else if (row.name === INTENT) intent = row.value
      else if (row.name === DEFERRALS) snapshot.deferrals = Number(row.value)
      else if (row.name.startsWith(EXTENSION)) extensions.push(JSON.parse(row.value) as ExtensionRecord)
    }
    if (intent !== undefined) snapshot.intent = { canonical: intent, extensions }
    return snapshot
  }

  return {
    load,
    async claimHandshake(ref, record) {
      return JSON.parse(await claim(ref, HANDSHAKE, JSON.stringify(record))) as HandshakeRecord
    },
    establishIntent: (ref, canonical) => claim(ref, INTENT, canonical),
    async extendIntent(ref, extension) {
      const name = `${EXTENSION}${now().toString().padStart(15, '0')}:${randomUUID()}`
      await insertOnce(ref, name, JSON.stringify(extension), now() + SESSION_STATE_TTL_MS)
    },
    async countDeferral(ref) {
      const t = now()
      await db
        .insertInto('acs_session_state')
        .values({
          tenant_id: ref.tenant,
          session_id: ref.session,
          name: DEFERRALS,
          value: '1',
          created_at: t,
          expires_at: t + SESSION_STATE_TTL_MS,
        })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'session_id', 'name']).doUpdateSet({
            value: sql<string>`CAST(CAST(acs_session_state.value AS INTEGER) + 1 AS TEXT)`,
            expires_at: t + SESSION_STATE_TTL_MS,
          }),
        )
        .execute()
    },
    async raiseAsk(ref, stepId, ask) {
      await insertOnce(ref, `${ASK}${stepId}`, JSON.stringify(ask), ask.expiresAt + ASK_GRACE_MS)
    },
    async pendingAsk(ref, stepId) {
      const value = await keptValue(ref, `${ASK}${stepId}`)
      return value === undefined ? undefined : (JSON.parse(value) as PendingAskRecord)
    },
    async takeAsk(ref, stepId) {
      const taken = await db
        .deleteFrom('acs_session_state')
        .where('tenant_id', '=', ref.tenant)
        .where('session_id', '=', ref.session)
        .where('name', '=', `${ASK}${stepId}`)
        .where('expires_at', '>', now())
        .executeTakeFirst()
      return Number(taken.numDeletedRows) === 1
    },
  }
}
