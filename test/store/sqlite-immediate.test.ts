// SQLite transactions begin IMMEDIATE: a transaction that reads and then writes holds the
// write lock from its start, so another connection that commits in between (the audit
// writer's thread) waits for it, and the transaction's own write never fails with
// "database is locked" on a snapshot gone stale. Kysely's plain dialect shows the failure.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { ImmediateSqliteDialect } from '../../src/store/index.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-sqlite-immediate-'))

function prepared(name: string): { file: string; other: BetterSqlite3.Database } {
  const file = join(dir, `${name}.db`)
  const setup = new BetterSqlite3(file)
  setup.pragma('journal_mode = WAL')
  setup.exec('create table t (n integer)')
  setup.exec('insert into t values (1)')
  setup.close()
  const other = new BetterSqlite3(file)
  other.pragma('busy_timeout = 0')
  return { file, other }
}

/** Reads, lets the other connection try to commit a row, then writes; says what happened. */
async function readThenWrite(db: Kysely<unknown>, other: BetterSqlite3.Database) {
  let otherError: string | undefined
  let ownError: string | undefined
  try {
    await db.transaction().execute(async (trx) => {
      await sql`select count(*) from t`.execute(trx)
      try {
        other.exec('insert into t values (2)')
      } catch (error) {
        otherError = (error as Error).message
      }
      await sql`insert into t values (3)`.execute(trx)
    })
  } catch (error) {
    ownError = (error as Error).message
  }
  return { otherError, ownError }
}

describe('SQLite transactions on the store', () => {
  const opened: Kysely<unknown>[] = []
  afterAll(async () => {
    for (const db of opened) await db.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  it('with a plain BEGIN, a read-then-write transaction fails when another connection commits in between', async () => {
    const { file, other } = prepared('deferred')
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) })
    opened.push(db)
    const seen = await readThenWrite(db, other)
    other.close()
    expect(seen.otherError).toBeUndefined()
    expect(seen.ownError).toMatch(/database is locked/)
  })

  it('with BEGIN IMMEDIATE, the other connection waits and the transaction commits', async () => {
    const { file, other } = prepared('immediate')
    const db = new Kysely<unknown>({
      dialect: new ImmediateSqliteDialect({ database: new BetterSqlite3(file) }),
    })
    opened.push(db)
    const seen = await readThenWrite(db, other)
    expect(seen.ownError).toBeUndefined()
    expect(seen.otherError).toMatch(/database is locked/)
    expect(other.prepare('select count(*) as n from t').get()).toEqual({ n: 2 })
    other.close()
  })
})
