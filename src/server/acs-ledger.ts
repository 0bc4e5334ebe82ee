// The ACS ledger on the store's database (SQLite or PostgreSQL): request ids and nonces
// remembered across instances, and each session's chain appended under the primary key
// (tenant, session, seq), so two instances racing for the same head cannot both append and
// no tenant's session reaches another's; with them, the sessions' state (acs-sessions.ts).

import BetterSqlite3 from 'better-sqlite3'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { AcsLedger, ChainEntry } from '../protocols/acs/index.js'
import { ImmediateSqliteDialect } from '../store/index.js'
import { type AcsSessionTables, acsSessionsOn } from './acs-sessions.js'

interface AcsTables extends AcsSessionTables {
  acs_chain: {
    tenant_id: string
    session_id: string
    seq: number
    entry_id: string
    decision_id: string
    entry: string
    chain_hash: string
    previous_hash: string | null
    created_at: number
  }
  acs_replay: { key: string; expires_at: number }
}

/** A ledger and the connection it holds. */
export interface SqlAcsLedger extends AcsLedger {
  close(): Promise<void>
}

/**
 * Opens the ledger and the session state on a database the store already migrated (0004_acs,
 * 0012_acs_tenant_sessions, 0013_acs_session_state).
 * @param location a postgres:// URL or a SQLite file path, as for the store.
 */
export function openAcsLedger(location: string): SqlAcsLedger {
  const postgres = /^postgres(ql)?:\/\//i.test(location)
  const db = postgres
    ? new Kysely<AcsTables>({ dialect: new PostgresDialect({ pool: postgresPool(location) }) })
    : new Kysely<AcsTables>({ dialect: new ImmediateSqliteDialect({ database: sqliteFile(location) }) })
  return {
    ...acsLedgerOn(db),
    sessions: acsSessionsOn(db as unknown as Kysely<AcsSessionTables>, postgres),
    database: postgres ? 'PostgreSQL' : 'SQLite',
    close: () => db.destroy(),
  }
}

/** A pool whose lost connections are reported to the query that uses them, never thrown. */
function postgresPool(location: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: location, max: 4 })
  pool.on('error', () => undefined)
  pool.on('connect', (client) => client.on('error', () => undefined))
  return pool
}

/** The SQLite file, waiting for the audit writer's transactions rather than failing. */
function sqliteFile(location: string): BetterSqlite3.Database {
  const database = new BetterSqlite3(location.replace(/^sqlite:/i, ''))
  database.pragma('busy_timeout = 5000')
  return database
}

function isConflict(error: unknown): boolean {
  const e = error as { code?: string; message?: string }
  return e.code === '23505' || /UNIQUE|PRIMARY KEY/i.test(e.message ?? '')
}

/** The ledger over an open Kysely instance. */
export function acsLedgerOn(db: Kysely<AcsTables>): AcsLedger {
  let sweeps = 0
  return {
    async remember(key, expiresAt, now) {
      if (++sweeps % 500 === 0) await db.deleteFrom('acs_replay').where('expires_at', '<=', now).execute()
      // One statement: a new key is inserted, an expired one taken over, a live one left (0 rows).
      const result = await db
        .insertInto('acs_replay')
        .values({ key, expires_at: expiresAt })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({ expires_at: expiresAt }).where('acs_replay.expires_at', '<=', now),
        )
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1
    },
    async head(ref) {
      const row = await db
        .selectFrom('acs_chain')
        .select('chain_hash')
        .where('tenant_id', '=', ref.tenant)
        .where('session_id', '=', ref.session)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row?.chain_hash ?? null
    },
    async append(ref, entry) {
      const last = await db
        .selectFrom('acs_chain')
        .select(['seq', 'chain_hash'])
        .where('tenant_id', '=', ref.tenant)
        .where('session_id', '=', ref.session)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst()
      if ((last?.chain_hash ?? null) !== entry.previous_hash) return false
      try {
        await db
          .insertInto('acs_chain')
          .values({
            tenant_id: ref.tenant,
            session_id: ref.session,
            seq: (last?.seq ?? 0) + 1,
            entry_id: entry.entry_id,
            decision_id: entry.decision_id,
            entry: JSON.stringify(entry),
            chain_hash: entry.entry_hash,
            previous_hash: entry.previous_hash,
            created_at: Date.now(),
          })
          .execute()
        return true
      } catch (error) {
        if (isConflict(error)) return false
        throw error
      }
    },
    async entries(ref) {
      const rows = await db
        .selectFrom('acs_chain')
        .select('entry')
        .where('tenant_id', '=', ref.tenant)
        .where('session_id', '=', ref.session)
        .orderBy('seq', 'asc')
        .execute()
      return rows.map((row) => JSON.parse(row.entry) as ChainEntry)
    },
  }
}
