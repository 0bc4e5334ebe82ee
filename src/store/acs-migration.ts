// The ACS migrations. 0004_acs: the session chains (one row per ContextEntry, its hash and
// the decision it records) and the replay memory of request ids and nonces, shared by every
// instance on the same database. 0012_acs_tenant_sessions: chains keyed by tenant and
// session (existing rows take the tenant of the decision they record). 0013_acs_session_state:
// the sessions' handshakes, Intents, pending ASKs and deferral counts, shared by the cluster.

import { type Kysely, type Migration, sql } from 'kysely'

/** Creates `acs_chain` and `acs_replay`. */
export function acsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('acs_chain')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('entry_id', 'text', (c) => c.notNull())
        .addColumn('decision_id', 'text', (c) => c.notNull())
        .addColumn('entry', 'text', (c) => c.notNull())
        .addColumn('chain_hash', 'text', (c) => c.notNull())
        .addColumn('previous_hash', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('acs_chain_pk', ['session_id', 'seq'])
        .execute()
      await db.schema.createIndex('acs_chain_decision').on('acs_chain').columns(['decision_id']).execute()
      await db.schema
        .createTable('acs_replay')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('acs_replay_expiry').on('acs_replay').columns(['expires_at']).execute()
    },
  }
}

/** Creates the per-tenant chain table (the tenant, session and seq are its key). */
async function createChainTable(db: Kysely<unknown>, name: string): Promise<void> {
  await db.schema
    .createTable(name)
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('entry_id', 'text', (c) => c.notNull())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('chain_hash', 'text', (c) => c.notNull())
    .addColumn('previous_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${name}_pk`, ['tenant_id', 'session_id', 'seq'])
    .execute()
}

/**
 * Keys `acs_chain` by tenant and session: the table is rebuilt with `tenant_id` in its
 * primary key, each existing row taking the tenant of the audit record it chains ('' when
 * the record is gone). Replay keys already name the tenant from this release on; the old
 * ones expire within the timestamp window.
 */
export function acsTenantMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await createChainTable(db, 'acs_chain_t')
      await sql`INSERT INTO acs_chain_t (tenant_id, session_id, seq, entry_id, decision_id, entry, chain_hash, previous_hash, created_at)
        SELECT COALESCE((SELECT d.tenant FROM decisions d WHERE d.id = c.decision_id), ''), c.session_id, c.seq,
          c.entry_id, c.decision_id, c.entry, c.chain_hash, c.previous_hash, c.created_at
        FROM acs_chain c`.execute(db)
      await db.schema.dropTable('acs_chain').execute()
      await db.schema.alterTable('acs_chain_t').renameTo('acs_chain').execute()
      await db.schema.createIndex('acs_chain_decision_t').on('acs_chain').columns(['decision_id']).execute()
    },
  }
}

/**
 * Creates `acs_session_state`: one row per part of a session's state (handshake, Intent, each
 * extension, each pending ASK, the deferral count) under (tenant, session, name), with its
 * expiry.
 */
export function acsSessionStateMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('acs_session_state')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('acs_session_state_pk', ['tenant_id', 'session_id', 'name'])
        .execute()
      await db.schema
        .createIndex('acs_session_state_expiry')
        .on('acs_session_state')
        .columns(['expires_at'])
        .execute()
    },
  }
}
