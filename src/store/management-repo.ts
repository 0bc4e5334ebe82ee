// What the management plane keeps besides hooks: access tokens (only a hash of the secret),
// the log of changes made through it (newest first, paged by change id), and enabled /
// disabled overrides of hooks that are not stored (files, config). Token writes announce
// `tokens`, override writes `hooks`.

import type { Kysely } from 'kysely'
import { StoreError } from './errors.js'
import { announce } from './hooks-repo.js'
import { jsonOrNull, pageSize } from './rows.js'
import type { ChangesTable, Database, TokensTable } from './schema.js'
import type { ChangeQuery, ChangeRow, TokenRole, TokenRow } from './types.js'

/** A stored token row as read back (no tenant = every tenant). */
function fromToken(r: TokensTable): TokenRow {
  const out: TokenRow = {
    id: r.id,
    name: r.name,
    role: r.role as TokenRole,
    hash: r.hash,
    createdAt: Number(r.created_at),
  }
  if (r.tenant) out.tenant = r.tenant
  if (r.revoked_at !== null) out.revokedAt = Number(r.revoked_at)
  return out
}

/** A stored change row as read back (absent before/after omitted). */
function fromChange(r: ChangesTable): ChangeRow {
  const out: ChangeRow = {
    id: r.id,
    at: Number(r.at),
    actor: r.actor,
    actorName: r.actor_name,
    tenant: r.tenant,
    action: r.action,
    target: r.target,
  }
  if (r.before !== null) out.before = JSON.parse(r.before) as unknown
  if (r.after !== null) out.after = JSON.parse(r.after) as unknown
  if (r.reason !== null && r.reason !== undefined) out.reason = r.reason
  return out
}

/** Token, change-log and hook-override queries over one database. */
export class ManagementRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  /** Stores a new token and announces `tokens`. */
  async createToken(row: TokenRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('tokens')
        .values({
          id: row.id,
          name: row.name,
          tenant: row.tenant ?? '',
          role: row.role,
          hash: row.hash,
          created_at: row.createdAt,
          revoked_at: row.revokedAt ?? null,
        })
        .execute()
      await announce(trx, this.dialect, 'tokens')
    })
  }

  async getToken(id: string): Promise<TokenRow | undefined> {
    const row = await this.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst()
    return row ? fromToken(row) : undefined
  }

  /** Every token, revoked ones included, oldest first. */
  async listTokens(): Promise<TokenRow[]> {
    const rows = await this.db.selectFrom('tokens').selectAll().orderBy('created_at').orderBy('id').execute()
    return rows.map(fromToken)
  }

  /** Revokes a live token; announces `tokens` and returns true when one was revoked. */
  async revokeToken(id: string, at: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('tokens')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      const changed = Number(result.numUpdatedRows) > 0
      if (changed) await announce(trx, this.dialect, 'tokens')
      return changed
    })
  }

  /** Appends a change to the log. */
  async recordChange(row: ChangeRow): Promise<void> {
    await this.db
      .insertInto('changes')
      .values({
        id: row.id,
        at: row.at,
        actor: row.actor,
        actor_name: row.actorName,
        tenant: row.tenant,
        action: row.action,
        target: row.target,
        before: jsonOrNull(row.before),
        after: jsonOrNull(row.after),
        reason: row.reason ?? null,
      })
      .execute()
  }

  /**
   * Changes newest first (at, then id, descending).
   * @throws StoreError `invalid-query` when `cursor` names no change visible with the query's tenant.
   */
  async listChanges(query: ChangeQuery = {}): Promise<ChangeRow[]> {
    let select = this.db.selectFrom('changes').selectAll()
    if (query.tenant !== undefined) select = select.where('tenant', '=', query.tenant)
    if (query.target !== undefined) select = select.where('target', '=', query.target)
    if (query.cursor !== undefined) {
      let find = this.db.selectFrom('changes').select(['id', 'at']).where('id', '=', query.cursor)
      if (query.tenant !== undefined) find = find.where('tenant', '=', query.tenant)
      const after = await find.executeTakeFirst()
      if (!after) {
        throw new StoreError(
          'invalid-query',
          `change cursor "${query.cursor}" is not a known change; pass the id of the previous page's last row`,
        )
      }
      const at = Number(after.at)
      select = select.where((eb) =>
        eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', after.id)])]),
      )
    }
    const rows = await select
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize(query.limit, 100, 1000))
      .execute()
    return rows.map(fromChange)
  }

  /** The enabled/disabled overrides, by hook id. */
  async listHookOverrides(): Promise<Map<string, boolean>> {
    const rows = await this.db.selectFrom('hook_overrides').select(['hook_id', 'enabled']).execute()
    return new Map(rows.map((r) => [r.hook_id, Number(r.enabled) === 1]))
  }

  /** Sets a hook's override, or removes it with `undefined`; announces `hooks`. */
  async setHookOverride(id: string, enabled: boolean | undefined): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (enabled === undefined) {
        await trx.deleteFrom('hook_overrides').where('hook_id', '=', id).execute()
      } else {
        const values = { enabled: enabled ? 1 : 0, updated_at: Date.now() }
        await trx
          .insertInto('hook_overrides')
          .values({ hook_id: id, ...values })
          .onConflict((oc) => oc.column('hook_id').doUpdateSet(values))
          .execute()
      }
      await announce(trx, this.dialect, 'hooks')
    })
  }
}
