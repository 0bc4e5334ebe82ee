// A database made by the previous release (migrations 0001–0002, with data) upgrades to the
// management schema and keeps its rows, on SQLite and on a real PostgreSQL; and processes
// racing to resolve one approval in a shared SQLite file: exactly one wins.

import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ApprovalRow, migrations, openStore } from '../../src/store/index.js'
import { ROOT } from '../helpers/cli.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

let pgOld: TestDatabase | undefined
const dir = mkdtempSync(join(tmpdir(), 'warden-management-up-'))

beforeAll(async () => {
  pgOld = await postgresForTests()
})
afterAll(async () => {
  await pgOld?.release()
  rmSync(dir, { recursive: true, force: true })
})

/** Resolves an approval in a process of its own at `startAt`; prints the result as JSON. */
function resolveInChild(file: string, id: string, by: string, startAt: number): Promise<string> {
  const script = `import { openStore } from ${JSON.stringify(`${ROOT}src/store/index.ts`)}
const store = await openStore(${JSON.stringify(file)})
await new Promise((r) => setTimeout(r, ${startAt} - Date.now()))
const result = await store.resolveApproval(${JSON.stringify(id)}, { status: 'approved', decidedBy: ${JSON.stringify(by)}, decidedAt: Date.now() })
await store.close()
process.stdout.write(JSON.stringify(result))`
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      err += d
    })
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`)),
    )
  })
}

describe('resolving one SQLite approval from several processes', () => {
  it('lets exactly one process win', async () => {
    const file = join(dir, 'race.db')
    const store = await openStore(file)
    await store.putApproval({
      id: 'ap-proc',
      decisionId: 'ap-proc',
      tenant: 'acme',
      status: 'pending',
      requestedAt: 1,
    })
    await store.close()
    const startAt = Date.now() + 3000
    const outs = await Promise.all(
      ['p0', 'p1', 'p2', 'p3'].map((by) => resolveInChild(file, 'ap-proc', by, startAt)),
    )
    const results = outs.map((out) => JSON.parse(out) as { row: ApprovalRow; resolved: boolean })
    const winners = results.filter((r) => r.resolved)
    expect(winners).toHaveLength(1)
    for (const r of results) expect(r.row).toEqual(winners[0]?.row)
    const check = await openStore(file)
    expect((await check.getApproval('ap-proc'))?.decidedBy).toBe(winners[0]?.row.decidedBy)
    await check.close()
  }, 60_000)
})

describe('upgrading a database made by the previous release', () => {
  const previous = (dialect: 'sqlite' | 'postgres') =>
    Object.fromEntries(
      Object.entries(migrations(dialect)).filter(([name]) =>
        ['0001_initial', '0002_partial_hook_index'].includes(name),
      ),
    )
  async function migrateOld(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => previous(dialect) },
      migrationTableName: 'warden_migrations',
      migrationLockTableName: 'warden_migrations_lock',
    })
    const { error } = await migrator.migrateToLatest()
    if (error) throw error
    await db
      .insertInto('approvals' as never)
      .values({
        id: 'old',
        decision_id: 'old',
        tenant: 't',
        status: 'approved',
        requested_at: 1,
        decided_at: 2,
      } as never)
      .execute()
    // Open breakers of that release: a stored tenant hook's and a hook from a file's.
    await db
      .insertInto('hooks' as never)
      .values({
        id: 'acme/old-hook',
        tenant: 'acme',
        name: 'old-hook',
        scope: 'tenant',
        event: 'tool.pre',
        handler_type: 'deny',
        config: '{"type":"deny"}',
        timeout_ms: 5000,
        on_timeout: 'deny',
        on_error: 'deny',
        source: 'user',
        created_at: 1,
        updated_at: 1,
      } as never)
      .execute()
    for (const hookId of ['acme/old-hook', 'from-file']) {
      await db
        .insertInto('breakers' as never)
        .values({ hook_id: hookId, opened_at: 5, failures: 5, last_error: 'down', updated_at: 5 } as never)
        .execute()
    }
    await db.destroy()
  }
  async function check(where: string): Promise<void> {
    const store = await openStore(where)
    try {
      expect(await store.schemaVersion()).toBe(Object.keys(migrations('sqlite')).length)
      expect(await store.getApproval('old')).toEqual({
        id: 'old',
        decisionId: 'old',
        tenant: 't',
        status: 'approved',
        requestedAt: 1,
        decidedAt: 2,
      })
      expect(await store.loadBreakers()).toEqual([
        { hookId: 'acme/old-hook', tenant: 'acme', openedAt: 5, failures: 5, lastError: 'down' },
        { hookId: 'from-file', tenant: '', openedAt: 5, failures: 5, lastError: 'down' },
      ])
      await store.createToken({ id: 'after-upgrade', name: 'n', role: 'admin', hash: 'h', createdAt: 1 })
      expect(await store.revokeToken('after-upgrade', 2)).toBe(true)
    } finally {
      await store.close()
    }
  }

  it('on SQLite', async () => {
    const file = join(dir, 'old.db')
    await migrateOld(
      new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) }),
      'sqlite',
    )
    await check(file)
  })

  it('on PostgreSQL', async (ctx) => {
    if (!pgOld) ctx.skip()
    const url = pgOld!.url
    await migrateOld(
      new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) }),
      'postgres',
    )
    await check(url)
  })
})
