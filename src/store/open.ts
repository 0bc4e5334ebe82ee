// Opening a store from a location: a PostgreSQL URL (`postgres://…`) or a SQLite file path
// (default `.warden/warden.db`). Connects, runs the migrations and returns the Store.

import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { errorMessage } from '../core/index.js'
import { sqliteAuditThread } from './audit-thread.js'
import { sqliteAuditWriter } from './audit-write.js'
import { postgresAuditWriter } from './audit-write-postgres.js'
import { StoreError } from './errors.js'
import { migrate } from './migrations.js'
import { postgresFolding, sqliteFolder } from './rollups-roll.js'
import type { Database } from './schema.js'
import { ImmediateSqliteDialect } from './sqlite-dialect.js'
import { type ChangeSubscriber, KyselyStore, type KyselyStoreOptions } from './store.js'
import type { ChangeKind, SecretBox, Store } from './types.js'

/** The SQLite file used when no database is named. */
export const DEFAULT_SQLITE_PATH = '.warden/warden.db'

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** Seals secrets in hook configs and hook errors. */
  secrets?: SecretBox
  /** Folder a relative SQLite path resolves against (default: the working directory). */
  cwd?: string
  /** PostgreSQL pool size. Default 10. */
  poolSize?: number
  /** How often change counters are polled, in ms. Default 250 (SQLite), 2000 (PostgreSQL). */
  pollMs?: number
}

/**
 * Picks the database: `--db` first, then WARDEN_DATABASE_URL, then warden.yaml `db:`,
 * else the default SQLite file.
 */
export function resolveDatabaseLocation(sources: {
  flag?: string | undefined
  env?: NodeJS.ProcessEnv
  config?: string | undefined
}): string {
  return sources.flag || sources.env?.WARDEN_DATABASE_URL || sources.config || DEFAULT_SQLITE_PATH
}

/** The location with any password replaced, safe to print (any URL, not only PostgreSQL's). */
export function redactLocation(location: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return location
  try {
    const url = new URL(location)
    if (url.password) url.password = '***'
    return url.toString()
  } catch {
    return location.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@]*@/i, '$1:***@')
  }
}

function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location)
}

/**
 * Opens (and migrates) the store at a location.
 * @throws StoreError `invalid-db-url`, `store-unavailable` or `store-migration`, naming the fix.
 */
export async function openStore(
  location = DEFAULT_SQLITE_PATH,
  options: OpenStoreOptions = {},
): Promise<Store> {
  if (isPostgresUrl(location)) return openPostgres(location, options)
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new StoreError(
      'invalid-db-url',
      `unsupported database "${redactLocation(location)}": use a postgres:// URL or a SQLite file path`,
    )
  }
  return openSqlite(location.replace(/^sqlite:/i, ''), options)
}

/**
 * Serialises migrations between processes opening the same SQLite file: an IMMEDIATE
 * transaction on a companion lock file is held while migrating (SQLite has no advisory
 * locks, and Kysely's migration lock is a no-op on SQLite). Returns the release function.
 */
function migrationLock(file: string): () => void {
  const lock = new BetterSqlite3(`${file}.migrate-lock`)
  lock.pragma('busy_timeout = 60000')
  lock.exec('BEGIN IMMEDIATE')
  lock.exec('CREATE TABLE IF NOT EXISTS held (at INTEGER)')
  return () => {
    lock.exec('COMMIT')
    lock.close()
  }
}

async function openSqlite(path: string, options: OpenStoreOptions): Promise<Store> {
  const file = path === ':memory:' ? path : resolve(options.cwd ?? process.cwd(), path)
  let database: BetterSqlite3.Database | undefined
  // Held from before the file is opened: switching a new file to WAL needs it alone, and
  // processes started together would otherwise find it locked.
  let release: (() => void) | undefined
  try {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true })
      release = migrationLock(file)
    }
    database = new BetterSqlite3(file)
    database.pragma('busy_timeout = 5000')
    database.pragma('journal_mode = WAL')
    database.pragma('synchronous = NORMAL')
    database.pragma('foreign_keys = ON')
  } catch (error) {
    database?.close()
    release?.()
    throw new StoreError(
      'store-unavailable',
      `cannot open the SQLite database ${file}: ${errorMessage(error)}`,
    )
  }
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }) })
  let version: number
  try {
    version = await migrateOrClose(db, 'sqlite')
  } finally {
    release?.()
  }
  const thread = file === ':memory:' ? undefined : sqliteAuditThread(file)
  const fold = sqliteFolder(database)
  return started(db, {
    dialect: 'sqlite',
    location: file,
    writeRows: thread ? thread.write : sqliteAuditWriter(db, database, fold),
    foldRollups: fold,
    ...(thread ? { onClose: thread.close } : {}),
    pollMs: options.pollMs ?? 250,
    schemaVersion: version,
    ...(options.secrets ? { secrets: options.secrets } : {}),
  })
}

/** bigint (int8) and numeric counts as numbers: every value Warden stores fits in 2^53. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format as 'text')
  },
}

async function openPostgres(url: string, options: OpenStoreOptions): Promise<Store> {
  const shown = redactLocation(url)
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    types: pgTypes as pg.CustomTypesConfig,
  })
  pool.on('error', () => undefined)
  // A connection that breaks while checked out (between the queries of a transaction)
  // emits 'error' on its client, which the pool listens to only while the client is idle:
  // unheard, it crashes the process when the database restarts. The query then fails on
  // its own, and the pool drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined))
  try {
    const client = await pool.connect()
    client.release()
  } catch (error) {
    await pool.end().catch(() => undefined)
    throw new StoreError(
      'store-unavailable',
      `cannot connect to PostgreSQL at ${shown}: ${errorMessage(error)}`,
    )
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  const version = await migrateOrClose(db, 'postgres')
  const folding = postgresFolding(db)
  return started(db, {
    dialect: 'postgres',
    location: shown,
    writeRows: postgresAuditWriter(db, { folding }),
    foldRollups: folding.now,
    beforeClose: folding.close,
    pollMs: options.pollMs ?? 2000,
    schemaVersion: version,
    subscribe: listen(url),
    ...(options.secrets ? { secrets: options.secrets } : {}),
  })
}

async function started(db: Kysely<Database>, options: KyselyStoreOptions): Promise<Store> {
  const store = new KyselyStore(db, options)
  try {
    await store.start()
  } catch (error) {
    await store.close().catch(() => undefined)
    throw new StoreError(
      'store-unavailable',
      `cannot read the database ${options.location}: ${errorMessage(error)}`,
    )
  }
  return store
}

async function migrateOrClose(db: Kysely<Database>, dialect: 'sqlite' | 'postgres'): Promise<number> {
  try {
    return await migrate(db, dialect)
  } catch (error) {
    await db.destroy().catch(() => undefined)
    throw error
  }
}

/** LISTEN on a dedicated connection, reconnecting after a second when it drops. */
function listen(url: string): ChangeSubscriber {
  return async (emit) => {
    let stopped = false
    let client: pg.Client | undefined
    let retry: ReturnType<typeof setTimeout> | undefined
    const connect = async (): Promise<void> => {
      if (stopped) return
      const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
      const again = () => {
        if (stopped || client !== next) return
        client = undefined
        next.end().catch(() => undefined)
        retry = setTimeout(() => void connect(), 1000)
        retry.unref?.()
      }
      client = next
      next.on('error', again)
      next.on('end', again)
      next.on('notification', (message) => {
        if (message.payload) emit(message.payload as ChangeKind)
      })
      try {
        await next.connect()
        await next.query('LISTEN warden_changes')
      } catch {
        again()
      }
    }
    await connect()
    return async () => {
      stopped = true
      if (retry) clearTimeout(retry)
      const current = client
      client = undefined
      await current?.end().catch(() => undefined)
    }
  }
}
