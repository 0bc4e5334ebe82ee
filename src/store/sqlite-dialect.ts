// Kysely's SQLite dialect with one change: transactions begin IMMEDIATE. The audit writer's
// thread writes to the same WAL database on its own connection; a deferred transaction that
// reads first (a correction reads the row it moves, an approval the row it answers) and then
// writes fails at once with "database is locked" when that thread committed in between,
// since SQLite cannot wait for a snapshot that is already stale. Taking the write lock at
// BEGIN makes such a transaction wait its turn (the busy timeout) instead.

import type { SqliteDialectConfig } from 'kysely'
import { CompiledQuery, type DatabaseConnection, type Driver, SqliteDialect, SqliteDriver } from 'kysely'

/** A driver whose transactions take SQLite's write lock when they begin. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

/** Kysely's SQLite dialect, with transactions that begin IMMEDIATE. */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig

  constructor(config: SqliteDialectConfig) {
    super(config)
    this.#config = config
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config)
  }
}
