// Versioned, forward-only migrations, run at start by every instance (a lock in the
// database keeps two instances from running them at once). A migration is never edited
// once released; a change to the schema is a new entry at the end of the list.

import { type Kysely, type Migration, Migrator, sql } from 'kysely'
import { acsMigration, acsSessionStateMigration, acsTenantMigration } from './acs-migration.js'
import { StoreError } from './errors.js'
import { hookBlocks, hookDescription, hookMode } from './hook-column-migrations.js'
import { hookRulesMigration } from './hook-rules-migration.js'
import { rollupsMigration } from './rollups-migration.js'
import { rollupPendingMigration } from './rollups-pending-migration.js'
import type { Database } from './schema.js'

type Dialect = 'sqlite' | 'postgres'

function initial(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const serial = dialect === 'postgres' ? 'bigserial' : 'integer'
      await db.schema
        .createTable('hooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('agents', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('handler_type', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('matcher', 'text')
        .addColumn('if_expr', 'text')
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('timeout_ms', 'integer', (c) => c.notNull())
        .addColumn('on_timeout', 'text', (c) => c.notNull())
        .addColumn('on_error', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('policy', 'text')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('hooks_tenant_name', ['tenant', 'name'])
        .execute()
      await db.schema.createIndex('hooks_event').on('hooks').columns(['event']).execute()

      await db.schema
        .createTable('decisions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('request_id', 'text')
        .addColumn('tenant', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('agent_id', 'text')
        .addColumn('session_id', 'text')
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('reason_code', 'text', (c) => c.notNull())
        .addColumn('deciding_hooks', 'text', (c) => c.notNull())
        .addColumn('policies', 'text', (c) => c.notNull())
        .addColumn('duration_ms', 'double precision', (c) => c.notNull())
        .addColumn('blocking', 'integer', (c) => c.notNull())
        .addColumn('input', 'text', (c) => c.notNull())
        .addColumn('output', 'text', (c) => c.notNull())
        .addColumn('trace_id', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('decisions_tenant_created')
        .on('decisions')
        .columns(['tenant', 'created_at'])
        .execute()
      await db.schema.createIndex('decisions_created').on('decisions').columns(['created_at']).execute()

      await db.schema
        .createTable('hook_executions')
        .addColumn('id', serial, (c) =>
          dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
        )
        .addColumn('dedup_key', 'text', (c) => c.notNull().unique())
        .addColumn('decision_id', 'text', (c) => c.notNull().references('decisions.id').onDelete('cascade'))
        .addColumn('tenant', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('hook_id', 'text', (c) => c.references('hooks.id').onDelete('set null'))
        .addColumn('hook_ref', 'text', (c) => c.notNull())
        .addColumn('hook_name', 'text', (c) => c.notNull())
        .addColumn('hook_version', 'integer', (c) => c.notNull())
        .addColumn('handler', 'text', (c) => c.notNull())
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('duration_ms', 'double precision', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('error_sealed', 'text')
        .addColumn('error_kind', 'text')
        .addColumn('skipped', 'text')
        .addColumn('policy_id', 'text')
        .addColumn('policy_version', 'text')
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('hook_executions_decision')
        .on('hook_executions')
        .columns(['decision_id'])
        .execute()
      await db.schema.createIndex('hook_executions_hook').on('hook_executions').columns(['hook_id']).execute()

      await db.schema
        .createTable('approvals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('decision_id', 'text', (c) => c.notNull())
        .addColumn('tenant', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('decided_by', 'text')
        .addColumn('requested_at', 'bigint', (c) => c.notNull())
        .addColumn('decided_at', 'bigint')
        .execute()
      await db.schema
        .createIndex('approvals_tenant_status')
        .on('approvals')
        .columns(['tenant', 'status'])
        .execute()

      await db.schema
        .createTable('budgets')
        .addColumn('tenant', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('used', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('limit_value', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('budgets_pk', ['tenant', 'kind', 'period'])
        .execute()

      await db.schema
        .createTable('breakers')
        .addColumn('hook_id', 'text', (c) => c.primaryKey())
        .addColumn('opened_at', 'bigint', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('last_error', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('revisions')
        .addColumn('kind', 'text', (c) => c.primaryKey())
        .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute()
      await sql`insert into revisions (kind, revision) values ('hooks', 0), ('breakers', 0), ('budgets', 0)`.execute(
        db,
      )
    },
  }
}

/**
 * Executions of hooks from files and config have no stored hook (hook_id is null): the
 * hook_id index only needs the others, which saves one index insert per execution row.
 */
const partialHookIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('hook_executions_hook').execute()
    await db.schema
      .createIndex('hook_executions_hook')
      .on('hook_executions')
      .columns(['hook_id'])
      .where(sql.ref('hook_id'), 'is not', null)
      .execute()
  },
}

/** The columns approvals gain for the management plane (all nullable). */
const APPROVAL_COLUMNS = [
  ['event', 'text'],
  ['input', 'text'],
  ['asks', 'text'],
  ['deadline', 'bigint'],
  ['resolution', 'text'],
  ['edited_payload', 'text'],
  ['instance', 'text'],
] as const

/**
 * The management plane: access tokens, the change log, enabled/disabled overrides of hooks
 * that are not stored, the held request on an approval (and its resolution), and an index
 * for a hook's execution history.
 */
const management: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute()

    await db.schema
      .createTable('changes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('actor_name', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('before', 'text')
      .addColumn('after', 'text')
      .execute()
    await db.schema.createIndex('changes_tenant_at').on('changes').columns(['tenant', 'at']).execute()
    await db.schema.createIndex('changes_target').on('changes').columns(['target']).execute()

    await db.schema
      .createTable('hook_overrides')
      .addColumn('hook_id', 'text', (c) => c.primaryKey())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    // One statement per column: SQLite adds a single column per ALTER TABLE.
    for (const [column, type] of APPROVAL_COLUMNS) {
      await db.schema.alterTable('approvals').addColumn(column, type).execute()
    }
    await db.schema
      .createIndex('approvals_status_deadline')
      .on('approvals')
      .columns(['status', 'deadline'])
      .execute()

    await db.schema
      .createIndex('hook_executions_ref')
      .on('hook_executions')
      .columns(['hook_ref', 'id'])
      .execute()

    await sql`insert into revisions (kind, revision) values ('tokens', 0), ('approvals', 0)`.execute(db)
  },
}

/**
 * GoClaw's `hook_executions.metadata`: a nullable JSON column with what is known about each
 * run besides its verdict (matcher and `if` results, a command's stdout size and exit code,
 * an HTTP status, the judge's model and tokens, the trace id). Older rows have none.
 */
const hookMetadata: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('hook_executions').addColumn('metadata', 'text').execute()
  },
}

/**
 * Circuit breakers per hook and tenant (a global hook's breaker opened by one tenant's
 * traffic stays closed for the others), and the recent failures of each, counted across
 * every instance on the database. A breaker open before the upgrade keeps its stored hook's
 * tenant, else tenant ''.
 */
const breakerTenants: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('breakers_by_tenant')
      .addColumn('hook_id', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('opened_at', 'bigint', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('last_error', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('breakers_by_tenant_pk', ['hook_id', 'tenant'])
      .execute()
    // A stored tenant hook's open breaker moves to its tenant (the only one whose events it sees).
    await sql`insert into breakers_by_tenant (hook_id, tenant, opened_at, failures, last_error, updated_at)
      select b.hook_id, coalesce((select h.tenant from hooks h where h.id = b.hook_id), ''),
        b.opened_at, b.failures, b.last_error, b.updated_at from breakers b`.execute(db)
    await db.schema.dropTable('breakers').execute()
    await db.schema.alterTable('breakers_by_tenant').renameTo('breakers').execute()
    await db.schema
      .createTable('breaker_failures')
      .addColumn('hook_id', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('times', 'text', (c) => c.notNull())
      .addColumn('last_error', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('breaker_failures_pk', ['hook_id', 'tenant'])
      .execute()
  },
}

/**
 * 0008: running instances and their heartbeats, so that the approvals an instance held when
 * it died are marked abandoned by the others.
 */
const instances: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('instances')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
      .addColumn('topics', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute()
  },
}

/** The migrations in order; names sort in the order they run. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0002_partial_hook_index': partialHookIndex,
    '0003_management': management,
    '0004_acs': acsMigration(),
    '0005_hook_metadata': hookMetadata,
    '0007_breaker_tenants': breakerTenants,
    '0008_instances': instances,
    '0009_hook_description': hookDescription(dialect),
    '0010_hook_mode': hookMode,
    '0011_hook_blocks': hookBlocks,
    '0012_acs_tenant_sessions': acsTenantMigration(),
    '0013_acs_session_state': acsSessionStateMigration(),
    '0014_rollups': rollupsMigration(dialect),
    '0015_hook_rules': hookRulesMigration,
    '0016_rollup_pending': rollupPendingMigration(dialect),
  }
}

/**
 * Brings the schema up to date.
 * @returns the number of migrations applied in total.
 * @throws StoreError `store-migration` naming the migration that failed.
 */
export async function migrate(db: Kysely<Database>, dialect: Dialect): Promise<number> {
  const all = migrations(dialect)
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => all },
    migrationTableName: 'warden_migrations',
    migrationLockTableName: 'warden_migrations_lock',
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const message = error instanceof Error ? error.message : String(error)
    const newer = /previously executed migration (\S+) is missing/.exec(message)
    if (newer) {
      throw new StoreError(
        'store-migration',
        `the database was migrated by a newer Warden (migration ${newer[1]}); upgrade Warden to use it`,
      )
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new StoreError('store-migration', `database migration ${failed} failed: ${message}`)
  }
  const applied = await migrator.getMigrations()
  return applied.filter((m) => m.executedAt).length
}
