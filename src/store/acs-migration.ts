// Migration 0004_acs: the ACS session chains (one row per ContextEntry, its hash and the
// decision it records) and the replay memory of request ids and nonces, shared by every
// instance on the same database.

import type { Kysely, Migration } from 'kysely'

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
