// Migrations from an empty database and re-run on an up-to-date one, on SQLite and on a
// real PostgreSQL; two instances starting at once on one PostgreSQL both come up; the
// default SQLite file is created with its folder; bad locations fail with a clear error.

import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_SQLITE_PATH, migrations, openStore, resolveDatabaseLocation } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

let pgDb: TestDatabase | undefined
const dir = mkdtempSync(join(tmpdir(), 'warden-migrate-'))

beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

const count = Object.keys(migrations('sqlite')).length

describe('migrations', () => {
  it('run from empty on SQLite, create the default folder, and re-run as a no-op keeping data', async () => {
    const store = await openStore(undefined, { cwd: dir })
    expect(existsSync(join(dir, DEFAULT_SQLITE_PATH))).toBe(true)
    expect(await store.schemaVersion()).toBe(count)
    await store.putHook({ name: 'kept', event: 'tool.pre', handler: { type: 'command', command: 'x' } })
    await store.close()
    const again = await openStore(DEFAULT_SQLITE_PATH, { cwd: dir })
    expect(await again.schemaVersion()).toBe(count)
    expect((await again.getHook('kept'))?.version).toBe(1)
    await again.close()
  })

  it('run from empty on PostgreSQL, also when two instances start at once', async (ctx) => {
    if (!pgDb) ctx.skip()
    const url = pgDb!.url
    const [a, b] = await Promise.all([openStore(url), openStore(url)])
    expect(await a.schemaVersion()).toBe(count)
    expect(await b.schemaVersion()).toBe(count)
    await a.putHook({ name: 'pg-kept', event: 'tool.pre', handler: { type: 'command', command: 'x' } })
    await Promise.all([a.close(), b.close()])
    const again = await openStore(url)
    expect((await again.getHook('pg-kept'))?.version).toBe(1)
    await again.close()
  })

  it('refuses a database migrated by a newer version', async () => {
    const file = join(dir, 'newer.db')
    const store = await openStore(file)
    const access = store as unknown as {
      db: import('kysely').Kysely<Record<string, Record<string, unknown>>>
    }
    await access.db
      .insertInto('warden_migrations')
      .values({ name: '9999_future', timestamp: new Date().toISOString() })
      .execute()
    await store.close()
    await expect(openStore(file)).rejects.toThrow(/migrated by a newer Warden \(migration 9999_future\)/)
  })

  it('says what is wrong with an unsupported or unreachable database', async () => {
    const unsupported = openStore('mysql://u:pw@127.0.0.1/x')
    await expect(unsupported).rejects.toThrow(/unsupported database "mysql:\/\/u:\*\*\*@127.0.0.1\/x"/)
    await expect(unsupported).rejects.not.toThrow(/:pw@/)
    const refused = openStore('postgres://u:hunter2@127.0.0.1:1/x')
    await expect(refused).rejects.toThrow(
      /cannot connect to PostgreSQL at postgres:\/\/u:\*\*\*@127.0.0.1:1\/x/,
    )
    await expect(refused).rejects.not.toThrow(/hunter2/)
  })

  it('picks --db, then WARDEN_DATABASE_URL, then the config, then the default file', () => {
    const env = { WARDEN_DATABASE_URL: 'postgres://env' }
    expect(resolveDatabaseLocation({ flag: 'postgres://flag', env, config: 'c.db' })).toBe('postgres://flag')
    expect(resolveDatabaseLocation({ env, config: 'c.db' })).toBe('postgres://env')
    expect(resolveDatabaseLocation({ env: {}, config: 'c.db' })).toBe('c.db')
    expect(resolveDatabaseLocation({ env: {} })).toBe(DEFAULT_SQLITE_PATH)
  })
})
