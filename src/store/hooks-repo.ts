// Hooks in the database: validated like every other hook definition, secrets sealed, one
// row per hook keyed by the engine's hook id, the version bumped on every update. Every
// query with a tenant is limited to that tenant (plus global hooks when listing).

import { type Kysely, sql, type Transaction } from 'kysely'
import { errorMessage, type HandlerConfig, parseHookDefinition } from '../core/index.js'
import { StoreError } from './errors.js'
import type { Database, HooksTable } from './schema.js'
import { openConfig, sealConfig } from './sealing.js'
import type { HookInput, HookScopeKind, HookSource, SecretBox, StoredHook } from './types.js'

const SOURCES: ReadonlySet<string> = new Set(['builtin', 'user', 'file'])

/** Bumps a change counter and, on PostgreSQL, notifies listeners when the transaction commits. */
export async function announce(
  trx: Transaction<Database> | Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  kind: string,
): Promise<void> {
  await trx.updateTable('revisions').set({ revision: sql`revision + 1` }).where('kind', '=', kind).execute()
  if (dialect === 'postgres') await sql`select pg_notify('warden_changes', ${kind})`.execute(trx)
}

/** The hook row a definition becomes (without timestamps and version). */
function toRow(
  input: HookInput,
  box: SecretBox | undefined,
): Omit<HooksTable, 'created_at' | 'updated_at' | 'version'> {
  let spec: ReturnType<typeof parseHookDefinition>
  try {
    spec = parseHookDefinition({
      name: input.name,
      event: input.event,
      handler: input.handler,
      ...(input.matcher !== undefined ? { matcher: input.matcher } : {}),
      ...(input.if !== undefined ? { if: input.if } : {}),
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
      ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
      ...(input.onTimeout ? { onTimeout: input.onTimeout } : {}),
      ...(input.onError ? { onError: input.onError } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.policy ? { policy: input.policy } : {}),
      ...(input.mode ? { mode: input.mode } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.blocks !== undefined ? { blocks: input.blocks } : {}),
      ...(input.maxInvocationsPerTurn !== undefined
        ? { maxInvocationsPerTurn: input.maxInvocationsPerTurn }
        : {}),
      ...(input.breakerCountsBlocks ? { breakerCountsBlocks: true } : {}),
      ...(input.background ? { background: true } : {}),
      ...(input.home ? { home: input.home } : {}),
      ...(input.tenant || input.agents?.length
        ? {
            scope: {
              ...(input.tenant ? { tenant: input.tenant } : {}),
              ...(input.agents?.length ? { agents: input.agents } : {}),
            },
          }
        : {}),
    })
  } catch (error) {
    throw new StoreError('invalid-hook', errorMessage(error))
  }
  const source = input.source ?? 'user'
  if (!SOURCES.has(source)) {
    throw new StoreError('invalid-hook', `hook "${input.name}": source must be builtin, user or file`)
  }
  const agents = spec.scope.agents ?? []
  const scope: HookScopeKind = agents.length > 0 ? 'agent' : spec.scope.tenant ? 'tenant' : 'global'
  return {
    id: spec.id,
    tenant: spec.scope.tenant ?? '',
    name: spec.name,
    scope,
    agents: JSON.stringify(agents),
    event: spec.event,
    handler_type: spec.handler.type,
    config: JSON.stringify(sealConfig(spec.handler, box, spec.name)),
    matcher: spec.matcher ?? null,
    if_expr: spec.if ?? null,
    priority: spec.priority,
    timeout_ms: spec.timeoutMs,
    on_timeout: spec.onTimeout,
    on_error: spec.onError,
    enabled: spec.enabled ? 1 : 0,
    policy: spec.policy ? JSON.stringify(spec.policy) : null,
    source,
    mode: spec.mode ?? 'enforce',
    description: spec.description ?? null,
    blocks: spec.blocks === undefined ? null : spec.blocks ? 1 : 0,
    max_invocations_per_turn: spec.maxInvocationsPerTurn ?? null,
    breaker_counts_blocks: spec.breakerCountsBlocks ? 1 : null,
    background: spec.background ? 1 : null,
    home: spec.home ?? null,
  }
}

/** A stored row as a hook, its secrets opened. */
export function fromRow(row: HooksTable, box: SecretBox | undefined): StoredHook {
  const hook: StoredHook = {
    id: row.id,
    name: row.name,
    scope: row.scope as HookScopeKind,
    agents: JSON.parse(row.agents) as string[],
    event: row.event,
    handlerType: row.handler_type,
    handler: openConfig(JSON.parse(row.config) as HandlerConfig, box, row.id),
    priority: Number(row.priority),
    timeoutMs: Number(row.timeout_ms),
    onTimeout: row.on_timeout as StoredHook['onTimeout'],
    onError: row.on_error as StoredHook['onError'],
    enabled: Number(row.enabled) === 1,
    version: Number(row.version),
    source: row.source as HookSource,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
  if (row.tenant) hook.tenant = row.tenant
  if (row.matcher !== null) hook.matcher = row.matcher
  if (row.if_expr !== null) hook.if = row.if_expr
  if (row.policy !== null) hook.policy = JSON.parse(row.policy) as StoredHook['policy'] & object
  if (row.mode === 'shadow') hook.mode = 'shadow'
  if (row.description) hook.description = row.description
  if (row.blocks !== null && row.blocks !== undefined) hook.blocks = Number(row.blocks) === 1
  if (row.max_invocations_per_turn !== null && row.max_invocations_per_turn !== undefined)
    hook.maxInvocationsPerTurn = Number(row.max_invocations_per_turn)
  if (Number(row.breaker_counts_blocks) === 1) hook.breakerCountsBlocks = true
  if (Number(row.background) === 1) hook.background = true
  if (row.home === 'goclaw' || row.home === 'loom' || row.home === 'harness') hook.home = row.home
  return hook
}

/** Hook queries over one database. */
export class HooksRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
    private readonly box: SecretBox | undefined,
  ) {}

  /** Creates or updates a hook (by tenant and name); an update bumps the version. */
  async put(input: HookInput): Promise<StoredHook> {
    const row = toRow(input, this.box)
    const now = Date.now()
    const { id: _id, tenant: _tenant, name: _name, ...changes } = row
    const saved = await this.db.transaction().execute(async (trx) => {
      const written = await trx
        .insertInto('hooks')
        .values({ ...row, version: 1, created_at: now, updated_at: now })
        .onConflict((oc) =>
          oc.column('id').doUpdateSet({ ...changes, updated_at: now, version: sql`hooks.version + 1` }),
        )
        .returningAll()
        .executeTakeFirstOrThrow()
      await announce(trx, this.dialect, 'hooks')
      return written
    })
    return fromRow(saved, this.box)
  }

  async get(id: string, tenant?: string): Promise<StoredHook | undefined> {
    let query = this.db.selectFrom('hooks').selectAll().where('id', '=', id)
    if (tenant !== undefined) query = query.where('tenant', 'in', [tenant, ''])
    const row = await query.executeTakeFirst()
    return row ? fromRow(row, this.box) : undefined
  }

  async list(tenant?: string): Promise<StoredHook[]> {
    let query = this.db.selectFrom('hooks').selectAll()
    if (tenant !== undefined) query = query.where('tenant', 'in', [tenant, ''])
    const rows = await query.orderBy('priority').orderBy('name').orderBy('id').execute()
    return rows.map((row) => fromRow(row, this.box))
  }

  /** Deletes a hook. With a tenant, only that tenant's own hooks (never a global one). */
  async delete(id: string, tenant?: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      let query = trx.deleteFrom('hooks').where('id', '=', id)
      if (tenant !== undefined) query = query.where('tenant', '=', tenant)
      const result = await query.executeTakeFirst()
      const deleted = Number(result.numDeletedRows) > 0
      if (deleted) await announce(trx, this.dialect, 'hooks')
      return deleted
    })
  }

  /** Switches a hook on or off (a version bump). With a tenant, only that tenant's own hooks. */
  async setEnabled(id: string, enabled: boolean, tenant?: string): Promise<StoredHook | undefined> {
    const row = await this.db.transaction().execute(async (trx) => {
      let query = trx
        .updateTable('hooks')
        .set({ enabled: enabled ? 1 : 0, version: sql`version + 1`, updated_at: Date.now() })
        .where('id', '=', id)
      if (tenant !== undefined) query = query.where('tenant', '=', tenant)
      const updated = await query.returningAll().executeTakeFirst()
      if (updated) await announce(trx, this.dialect, 'hooks')
      return updated
    })
    return row ? fromRow(row, this.box) : undefined
  }
}
