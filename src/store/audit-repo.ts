// Decisions, hook executions and approvals: written in batches (see audit-write.ts), each
// row idempotent (a retried batch never doubles a row), read back per tenant.

import type { Kysely, Transaction } from 'kysely'
import type { AuditRowWriter } from './audit-write.js'
import type { Database, DecisionsTable, HookExecutionsTable } from './schema.js'
import type {
  ApprovalRow,
  ApprovalStatus,
  AuditBatch,
  DecisionDetail,
  DecisionQuery,
  DecisionRow,
  ExecutionRow,
} from './types.js'

/** Bound parameters per statement, under SQLite's and PostgreSQL's limits. */
const MAX_PARAMS = 30_000

function chunks<T>(rows: T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMS / columns))
  if (rows.length <= size) return [rows]
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

function fromDecision(row: DecisionsTable): DecisionRow {
  const out: DecisionRow = {
    id: row.id,
    tenant: row.tenant,
    event: row.event,
    decision: row.decision,
    reason: row.reason,
    reasonCode: JSON.parse(row.reason_code) as string[],
    decidingHooks: JSON.parse(row.deciding_hooks) as DecisionRow['decidingHooks'],
    policies: JSON.parse(row.policies) as DecisionRow['policies'],
    durationMs: Number(row.duration_ms),
    blocking: Number(row.blocking) === 1,
    input: JSON.parse(row.input) as unknown,
    output: JSON.parse(row.output) as unknown,
    createdAt: Number(row.created_at),
  }
  if (row.request_id !== null) out.requestId = row.request_id
  if (row.agent_id !== null) out.agentId = row.agent_id
  if (row.session_id !== null) out.sessionId = row.session_id
  if (row.trace_id !== null) out.traceId = row.trace_id
  return out
}

function fromExecution(row: Omit<HookExecutionsTable, 'id'>): ExecutionRow & { hookId?: string } {
  const out: ExecutionRow & { hookId?: string } = {
    dedupKey: row.dedup_key,
    decisionId: row.decision_id,
    tenant: row.tenant,
    hookRef: row.hook_ref,
    hookName: row.hook_name,
    hookVersion: Number(row.hook_version),
    handler: row.handler,
    decision: row.decision,
    durationMs: Number(row.duration_ms),
    position: Number(row.position),
    createdAt: Number(row.created_at),
  }
  if (row.hook_id !== null) out.hookId = row.hook_id
  if (row.reason !== null) out.reason = row.reason
  if (row.error !== null) out.error = row.error
  if (row.error_sealed !== null) out.errorSealed = row.error_sealed
  if (row.error_kind !== null) out.errorKind = row.error_kind
  if (row.skipped !== null) out.skipped = row.skipped
  if (row.policy_id !== null) out.policyId = row.policy_id
  if (row.policy_version !== null) out.policyVersion = row.policy_version
  return out
}

async function insertApprovals(trx: Transaction<Database>, approvals: ApprovalRow[]): Promise<void> {
  for (const part of chunks(approvals, 8)) {
    if (part.length === 0) continue
    await trx
      .insertInto('approvals')
      .values(part.map(approvalValues))
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          status: (eb) => eb.ref('excluded.status'),
          reason: (eb) => eb.ref('excluded.reason'),
          decided_by: (eb) => eb.ref('excluded.decided_by'),
          decided_at: (eb) => eb.ref('excluded.decided_at'),
        }),
      )
      .execute()
  }
}

function approvalValues(row: ApprovalRow) {
  return {
    id: row.id,
    decision_id: row.decisionId,
    tenant: row.tenant,
    status: row.status,
    reason: row.reason ?? null,
    decided_by: row.decidedBy ?? null,
    requested_at: row.requestedAt,
    decided_at: row.decidedAt ?? null,
  }
}

/** Audit queries over one database. */
export class AuditRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly writeRows: AuditRowWriter,
  ) {}

  async write(batch: AuditBatch): Promise<void> {
    if (batch.decisions.length + batch.executions.length > 0) await this.writeRows(batch)
    if (batch.approvals.length > 0)
      await this.db.transaction().execute((trx) => insertApprovals(trx, batch.approvals))
  }

  async list(query: DecisionQuery = {}): Promise<DecisionRow[]> {
    let select = this.db.selectFrom('decisions').selectAll()
    if (query.tenant !== undefined) select = select.where('tenant', '=', query.tenant)
    if (query.since !== undefined) select = select.where('created_at', '>=', query.since)
    if (query.until !== undefined) select = select.where('created_at', '<', query.until)
    if (query.decision !== undefined) select = select.where('decision', '=', query.decision)
    if (query.event !== undefined) select = select.where('event', '=', query.event)
    const limit = Math.min(Math.max(1, query.limit ?? 50), 10_000)
    const offset = Math.max(0, Math.floor(query.offset ?? 0))
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute()
    return rows.map(fromDecision)
  }

  async get(id: string, tenant?: string): Promise<DecisionDetail | undefined> {
    let select = this.db.selectFrom('decisions').selectAll().where('id', '=', id)
    if (tenant !== undefined) select = select.where('tenant', '=', tenant)
    const row = await select.executeTakeFirst()
    if (!row) return undefined
    const executions = await this.db
      .selectFrom('hook_executions')
      .selectAll()
      .where('decision_id', '=', id)
      .where('tenant', '=', row.tenant)
      .orderBy('position')
      .execute()
    return { ...fromDecision(row), executions: executions.map(fromExecution) }
  }

  async count(tenant?: string): Promise<number> {
    let select = this.db.selectFrom('decisions').select((eb) => eb.fn.countAll<number>().as('n'))
    if (tenant !== undefined) select = select.where('tenant', '=', tenant)
    const row = await select.executeTakeFirstOrThrow()
    return Number(row.n)
  }

  async listApprovals(filter: { tenant?: string; status?: ApprovalStatus } = {}): Promise<ApprovalRow[]> {
    let select = this.db.selectFrom('approvals').selectAll()
    if (filter.tenant !== undefined) select = select.where('tenant', '=', filter.tenant)
    if (filter.status !== undefined) select = select.where('status', '=', filter.status)
    const rows = await select.orderBy('requested_at', 'desc').limit(1000).execute()
    return rows.map((r) => {
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
      return out
    })
  }

  async putApproval(row: ApprovalRow): Promise<void> {
    await this.db.transaction().execute((trx) => insertApprovals(trx, [row]))
  }
}
