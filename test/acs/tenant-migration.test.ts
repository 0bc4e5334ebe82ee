// Migration 0012_acs_tenant_sessions on a database migrated by the release before it: the
// existing chain rows are kept, each taking the tenant of the audit record it chains ('' when
// the record is gone), and the chain is then read per tenant and session.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect } from 'kysely'
import { describe, expect, it } from 'vitest'
import { openAcsLedger } from '../../src/server/index.js'
import { migrations } from '../../src/store/index.js'

describe('0012_acs_tenant_sessions', () => {
  it('moves existing chain rows under the tenant of their decision', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-acs-migration-')), 'warden.db')
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) })
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations('sqlite') },
      migrationTableName: 'warden_migrations',
      migrationLockTableName: 'warden_migrations_lock',
    })
    expect((await migrator.migrateTo('0011_hook_blocks')).error).toBeUndefined()
    const raw = new BetterSqlite3(file)
    raw
      .prepare(
        `insert into decisions (id, tenant, event, decision, reason, reason_code, deciding_hooks, policies,
          duration_ms, blocking, input, output, created_at) values ('d1', 'acme', 'tool.pre', 'allow', '', '[]', '[]', '[]', 1, 1, '{}', '{}', 1)`,
      )
      .run()
    const row = raw.prepare(
      `insert into acs_chain (session_id, seq, entry_id, decision_id, entry, chain_hash, previous_hash, created_at)
        values (?, ?, ?, ?, ?, ?, ?, 1)`,
    )
    row.run('s-1', 1, 'e1', 'd1', JSON.stringify({ entry_id: 'e1', entry_hash: 'h1' }), 'h1', null)
    row.run('s-1', 2, 'e2', 'gone', JSON.stringify({ entry_id: 'e2', entry_hash: 'h2' }), 'h2', 'h1')
    raw.close()
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    await db.destroy()

    const ledger = openAcsLedger(file)
    try {
      expect((await ledger.entries({ tenant: 'acme', session: 's-1' })).map((e) => e.entry_id)).toEqual([
        'e1',
      ])
      expect((await ledger.entries({ tenant: '', session: 's-1' })).map((e) => e.entry_id)).toEqual(['e2'])
      expect(await ledger.head({ tenant: 'globex', session: 's-1' })).toBeNull()
    } finally {
      await ledger.close()
    }
  })
})
