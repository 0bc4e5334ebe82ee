// Running instances sharing one database: each writes a heartbeat (with the push topics its
// `/ws` clients listen to), and the pending approvals of an instance that stopped beating
// (killed, its host gone) are marked abandoned, so no approver resolves a call nobody holds.

import { type Kysely, sql } from 'kysely'
import { fromApproval } from './approvals-repo.js'
import { announce } from './hooks-repo.js'
import type { Database } from './schema.js'
import type { ApprovalRow, InstanceRow } from './types.js'

/** Instance queries over one database. */
export class InstancesRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  async beat(row: InstanceRow): Promise<void> {
    const topics = JSON.stringify(row.topics)
    await this.db
      .insertInto('instances')
      .values({ id: row.id, started_at: row.startedAt, heartbeat_at: row.heartbeatAt, topics })
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: row.heartbeatAt, topics }))
      .execute()
  }

  async list(since: number): Promise<InstanceRow[]> {
    const rows = await this.db
      .selectFrom('instances')
      .selectAll()
      .where('heartbeat_at', '>=', since)
      .orderBy('id')
      .execute()
    return rows.map((r) => ({
      id: r.id,
      startedAt: Number(r.started_at),
      heartbeatAt: Number(r.heartbeat_at),
      topics: JSON.parse(r.topics) as string[],
    }))
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('instances').where('id', '=', id).execute()
  }

  async abandonOrphans(aliveSince: number, reason: string): Promise<ApprovalRow[]> {
    const rows = await this.db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('approvals')
        .set({ status: 'abandoned', reason, decided_at: Date.now() })
        .where('status', '=', 'pending')
        .where('instance', 'is not', null)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('instances')
                .select('instances.id')
                .whereRef('instances.id', '=', 'approvals.instance')
                .where('instances.heartbeat_at', '>=', aliveSince),
            ),
          ),
        )
        .returningAll()
        .execute()
      if (changed.length > 0) await announce(trx, this.dialect, 'approvals')
      return changed
    })
    return rows.map(fromApproval)
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db)
  }
}
