// Approvals of held `ask` decisions: the row as the audit trail and the management plane
// share it (the held request, its deadline and holder, its resolution), upserts that never
// wipe what another writer stored, an atomic resolution (of two concurrent ones, one wins),
// expiry, and newest-first listing with an id cursor. Every write announces `approvals`.

import type { Kysely, Transaction } from 'kysely'
import { StoreError } from './errors.js'
import { announce } from './hooks-repo.js'
import { chunks, jsonOrNull, pageSize } from './rows.js'
import type { ApprovalsTable, Database } from './schema.js'
import type { ApprovalQuery, ApprovalResolution, ApprovalRow, ApprovalStatus } from './types.js'

/** Columns per approval row (for chunking multi-row inserts). */
const APPROVAL_WIDTH = 15

/** The column values of an approval row. */
function approvalValues(row: ApprovalRow): ApprovalsTable {
  return {
    id: row.id,
    decision_id: row.decisionId,
    tenant: row.tenant,
    status: row.status,
    reason: row.reason ?? null,
    decided_by: row.decidedBy ?? null,
    requested_at: row.requestedAt,
    decided_at: row.decidedAt ?? null,
    event: row.event ?? null,
    input: jsonOrNull(row.input),
    asks: jsonOrNull(row.asks),
    deadline: row.deadline ?? null,
    resolution: row.resolution ?? null,
    edited_payload: jsonOrNull(row.editedPayload),
    instance: row.instance ?? null,
  }
}

/** A stored approval row as read back (absent columns omitted). */
export function fromApproval(r: ApprovalsTable): ApprovalRow {
  const out: ApprovalRow = {
    id: r.id,
    decisionId: r.decision_id,
    tenant: r.tenant,
    status: r.status as ApprovalStatus,
    requestedAt: Number(r.requested_at),
  }
  if (r.reason !== null) out.reason = r.reason
  if (r.decided_by !== null) out.decidedBy = r.decided_by
  if (r.decided_at !== null) out.decidedAt = Number(r.decided_at)
  if (r.event !== null) out.event = r.event
  if (r.input !== null) out.input = JSON.parse(r.input) as unknown
  if (r.asks !== null) out.asks = JSON.parse(r.asks) as NonNullable<ApprovalRow['asks']>
  if (r.deadline !== null) out.deadline = Number(r.deadline)
  if (r.resolution !== null) out.resolution = r.resolution as NonNullable<ApprovalRow['resolution']>
  if (r.edited_payload !== null) out.editedPayload = JSON.parse(r.edited_payload) as unknown
  if (r.instance !== null) out.instance = r.instance
  return out
}

/**
 * Upserts approval rows inside a transaction. An existing row takes the new status, reason,
 * decider and decision time; its other columns (the held request, deadline, holder,
 * resolution) are only replaced by values the new row has, never wiped by its nulls. Only
 * a pending row is updated: a resolution once made stays.
 */
export async function upsertApprovals(trx: Transaction<Database>, approvals: ApprovalRow[]): Promise<void> {
  for (const part of chunks(approvals, APPROVAL_WIDTH)) {
    if (part.length === 0) continue
    await trx
      .insertInto('approvals')
      .values(part.map(approvalValues))
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            reason: eb.ref('excluded.reason'),
            decided_by: eb.ref('excluded.decided_by'),
            decided_at: eb.ref('excluded.decided_at'),
            event: eb.fn.coalesce('excluded.event', 'approvals.event'),
            input: eb.fn.coalesce('excluded.input', 'approvals.input'),
            asks: eb.fn.coalesce('excluded.asks', 'approvals.asks'),
            deadline: eb.fn.coalesce('excluded.deadline', 'approvals.deadline'),
            resolution: eb.fn.coalesce('excluded.resolution', 'approvals.resolution'),
            edited_payload: eb.fn.coalesce('excluded.edited_payload', 'approvals.edited_payload'),
            instance: eb.fn.coalesce('excluded.instance', 'approvals.instance'),
          }))
          // A resolution already made (by an approver, or expiry) is final: the audit
          // trail's later write of the same approval does not overwrite it.
          .where('approvals.status', '=', 'pending'),
      )
      .execute()
  }
}

/** Why a resolution came too late: the row is no longer pending (and, if abandoned, nobody waits). */
export function alreadySettled(row: ApprovalRow): string {
  if (row.status === 'abandoned') {
    return `approval "${row.id}" was abandoned: ${row.reason ?? 'the caller is gone'}; nobody is waiting for this decision`
  }
  return `approval "${row.id}" is already ${row.status}`
}

/** Approval queries over one database. */
export class ApprovalsRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  /**
   * Approvals newest first (requested_at, then id, descending).
   * @throws StoreError `invalid-query` when `cursor` names no approval visible with the filter's tenant.
   */
  async list(filter: ApprovalQuery = {}): Promise<ApprovalRow[]> {
    let select = this.db.selectFrom('approvals').selectAll()
    if (filter.tenant !== undefined) select = select.where('tenant', '=', filter.tenant)
    if (filter.status !== undefined) select = select.where('status', '=', filter.status)
    if (filter.id !== undefined) select = select.where('id', '=', filter.id)
    if (filter.cursor !== undefined) {
      const after = await this.get(filter.cursor, filter.tenant)
      if (!after) {
        throw new StoreError(
          'invalid-query',
          `approval cursor "${filter.cursor}" is not a known approval; pass the id of the previous page's last row`,
        )
      }
      const at = after.requestedAt
      const id = after.id
      select = select.where((eb) =>
        eb.or([eb('requested_at', '<', at), eb.and([eb('requested_at', '=', at), eb('id', '<', id)])]),
      )
    }
    const rows = await select
      .orderBy('requested_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize(filter.limit, 100, 1000))
      .execute()
    return rows.map(fromApproval)
  }

  async get(id: string, tenant?: string): Promise<ApprovalRow | undefined> {
    let select = this.db.selectFrom('approvals').selectAll().where('id', '=', id)
    if (tenant !== undefined) select = select.where('tenant', '=', tenant)
    const row = await select.executeTakeFirst()
    return row ? fromApproval(row) : undefined
  }

  /** Upserts one approval (see {@link upsertApprovals}) and announces `approvals`. */
  async put(row: ApprovalRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await upsertApprovals(trx, [row])
      await announce(trx, this.dialect, 'approvals')
    })
  }

  /**
   * Resolves a pending approval with one conditional UPDATE (`status = 'pending'`), so of
   * concurrent resolutions exactly one changes the row.
   */
  async resolve(
    id: string,
    resolution: ApprovalResolution,
    tenant?: string,
  ): Promise<{ row: ApprovalRow; resolved: boolean } | undefined> {
    const updated = await this.db.transaction().execute(async (trx) => {
      let update = trx
        .updateTable('approvals')
        .set({
          status: resolution.status,
          resolution: resolution.resolution ?? null,
          decided_by: resolution.decidedBy ?? null,
          reason: resolution.reason ?? null,
          edited_payload: jsonOrNull(resolution.editedPayload),
          decided_at: resolution.decidedAt,
        })
        .where('id', '=', id)
        .where('status', '=', 'pending')
      if (tenant !== undefined) update = update.where('tenant', '=', tenant)
      const row = await update.returningAll().executeTakeFirst()
      if (row) await announce(trx, this.dialect, 'approvals')
      return row
    })
    if (updated) return { row: fromApproval(updated), resolved: true }
    const current = await this.get(id, tenant)
    return current ? { row: current, resolved: false } : undefined
  }

  /**
   * Expires pending approvals matching every filter given (deadline before
   * `deadlineBefore`, held by `instance`), announcing `approvals` when any changed.
   * @throws StoreError `invalid-query` when neither filter is given.
   */
  async expire(filter: {
    deadlineBefore?: number
    instance?: string
    reason: string
  }): Promise<ApprovalRow[]> {
    const { deadlineBefore, instance } = filter
    if (deadlineBefore === undefined && instance === undefined) {
      throw new StoreError(
        'invalid-query',
        'expireApprovals needs deadlineBefore or instance; without either it would expire every pending approval',
      )
    }
    const rows = await this.db.transaction().execute(async (trx) => {
      let update = trx
        .updateTable('approvals')
        .set({ status: 'expired', reason: filter.reason, decided_at: Date.now() })
        .where('status', '=', 'pending')
      if (deadlineBefore !== undefined) update = update.where('deadline', '<', deadlineBefore)
      if (instance !== undefined) update = update.where('instance', '=', instance)
      const expired = await update.returningAll().execute()
      if (expired.length > 0) await announce(trx, this.dialect, 'approvals')
      return expired
    })
    return rows
      .map(fromApproval)
      .sort((a, b) => b.requestedAt - a.requestedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
  }
}
