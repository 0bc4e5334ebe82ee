// Circuit breakers in the database, per hook and tenant: the open ones (shared by every
// instance), and the recent failures of each hook and tenant, counted across instances so
// that a breaker opens after `failures` failures in the window wherever they happened.
// Failures are written only when a hook fails (never on the path of a hook that answers),
// one short transaction each; the row of a hook and tenant is locked first, so failures
// counted at once on several instances are counted one after the other.

import type { Kysely } from 'kysely'
import { announce } from './hooks-repo.js'
import type { Database } from './schema.js'
import type { BreakerFailureInput, BreakerRow } from './types.js'

/** Longest last error kept, in characters. */
const MAX_ERROR_CHARS = 1024

/** The breakers' queries. */
export class BreakersRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  async load(): Promise<BreakerRow[]> {
    const rows = await this.db
      .selectFrom('breakers')
      .selectAll()
      .orderBy('hook_id')
      .orderBy('tenant')
      .execute()
    return rows.map((r) => ({
      hookId: r.hook_id,
      tenant: r.tenant,
      openedAt: Number(r.opened_at),
      failures: Number(r.failures),
      lastError: r.last_error,
    }))
  }

  async save(row: BreakerRow): Promise<void> {
    const tenant = row.tenant ?? ''
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('breakers')
        .values({
          hook_id: row.hookId,
          tenant,
          opened_at: row.openedAt,
          failures: row.failures,
          last_error: row.lastError.slice(0, MAX_ERROR_CHARS),
          updated_at: Date.now(),
        })
        .onConflict((oc) => oc.columns(['hook_id', 'tenant']).doNothing())
        .execute()
      await trx
        .deleteFrom('breaker_failures')
        .where('hook_id', '=', row.hookId)
        .where('tenant', '=', tenant)
        .execute()
      await announce(trx, this.dialect, 'breakers')
    })
  }

  async delete(hookId: string, tenant?: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      let breakers = trx.deleteFrom('breakers').where('hook_id', '=', hookId)
      let failures = trx.deleteFrom('breaker_failures').where('hook_id', '=', hookId)
      if (tenant !== undefined) {
        breakers = breakers.where('tenant', '=', tenant)
        failures = failures.where('tenant', '=', tenant)
      }
      await breakers.execute()
      await failures.execute()
      await announce(trx, this.dialect, 'breakers')
    })
  }

  /**
   * Counts one failure of a hook for a tenant with the others of the window, from every
   * instance; opens the breaker when they reach the threshold.
   * @returns the breaker when this failure opened it, else undefined (also when it was open).
   */
  async recordFailure(failure: BreakerFailureInput): Promise<BreakerRow | undefined> {
    const { hookId, tenant, at } = failure
    const lastError = failure.error.slice(0, MAX_ERROR_CHARS)
    const since = at - failure.windowMs
    return this.db.transaction().execute(async (trx) => {
      // The upsert takes the row's lock: the reads below see every failure committed before.
      await trx
        .insertInto('breaker_failures')
        .values({ hook_id: hookId, tenant, times: '[]', last_error: lastError, updated_at: at })
        .onConflict((oc) => oc.columns(['hook_id', 'tenant']).doUpdateSet({ last_error: lastError }))
        .execute()
      const open = await trx
        .selectFrom('breakers')
        .select('hook_id')
        .where('hook_id', '=', hookId)
        .where('tenant', '=', tenant)
        .executeTakeFirst()
      const row = await trx
        .selectFrom('breaker_failures')
        .select('times')
        .where('hook_id', '=', hookId)
        .where('tenant', '=', tenant)
        .executeTakeFirst()
      if (open) {
        await trx
          .deleteFrom('breaker_failures')
          .where('hook_id', '=', hookId)
          .where('tenant', '=', tenant)
          .execute()
        return undefined
      }
      const times = timesOf(row?.times).filter((t) => t > since)
      times.push(at)
      // Failures of this hook for other tenants that went quiet are dropped on the way.
      await trx
        .deleteFrom('breaker_failures')
        .where('hook_id', '=', hookId)
        .where('tenant', '!=', tenant)
        .where('updated_at', '<=', since)
        .execute()
      if (times.length < failure.failures) {
        await trx
          .updateTable('breaker_failures')
          .set({ times: JSON.stringify(times.slice(-failure.failures)), updated_at: at })
          .where('hook_id', '=', hookId)
          .where('tenant', '=', tenant)
          .execute()
        return undefined
      }
      const trip: BreakerRow = { hookId, tenant, openedAt: at, failures: times.length, lastError }
      await trx
        .deleteFrom('breaker_failures')
        .where('hook_id', '=', hookId)
        .where('tenant', '=', tenant)
        .execute()
      await trx
        .insertInto('breakers')
        .values({
          hook_id: hookId,
          tenant,
          opened_at: at,
          failures: times.length,
          last_error: lastError,
          updated_at: Date.now(),
        })
        .onConflict((oc) => oc.columns(['hook_id', 'tenant']).doNothing())
        .execute()
      await announce(trx, this.dialect, 'breakers')
      return trip
    })
  }
}

/** The failure times of a row (a JSON array of numbers); anything else counts as none. */
function timesOf(text: string | undefined): number[] {
  if (text === undefined) return []
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? parsed.filter((t): t is number => typeof t === 'number') : []
  } catch {
    return []
  }
}
