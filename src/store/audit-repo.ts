// Decisions, hook executions and approvals: written in batches (see audit-write.ts), each
// row idempotent (a retried batch never doubles a row), read back per tenant; a hook's
// execution history, newest first, paged by the executions' serial id.

import type { Kysely } from 'kysely'
import { upsertApprovals } from './approvals-repo.js'
import type { AuditRowWriter } from './audit-write.js'
import { StoreError } from './errors.js'
import { announce } from './hooks-repo.js'
import { pageSize } from './rows.js'
import type { Database, DecisionsTable, HookExecutionsTable } from './schema.js'
import type {
  AuditBatch,
  DecisionDetail,
  DecisionQuery,
  DecisionRow,
  ExecutionPage,
  ExecutionQuery,
  ExecutionRow,
} from './types.js'

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
  if (row.metadata !== null && row.metadata !== undefined)
    out.metadata = JSON.parse(row.metadata) as ExecutionRow['metadata']
  if (row.mode === 'shadow') out.mode = 'shadow'
  return out
}

/** The row id an execution cursor names (a positive integer string). */
function executionCursor(cursor: string): number {
  const id = /^[1-9][0-9]*$/.test(cursor) ? Number(cursor) : Number.NaN
  if (!Number.isSafeInteger(id)) {
    throw new StoreError(
      'invalid-query',
      `execution cursor "${cursor}" is not valid; pass the "next" of the previous page`,
    )
  }
  return id
}

/** Audit queries over one database. */
export class AuditRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
    private readonly writeRows: AuditRowWriter,
  ) {}

  /**
   * Writes a batch; its approvals are upserted (announcing `approvals`) after the rest, then
   * its corrections are applied.
   */
  async write(batch: AuditBatch): Promise<void> {
    if (batch.decisions.length + batch.executions.length > 0) await this.writeRows(batch)
    if (batch.corrections && batch.corrections.length > 0) {
      const corrections = batch.corrections
      await this.db.transaction().execute(async (trx) => {
        for (const c of corrections) {
          await trx
            .updateTable('decisions')
            .set({ decision: c.decision, reason: c.reason, reason_code: JSON.stringify(c.reasonCode) })
            .where('id', '=', c.id)
            .execute()
        }
      })
    }
    if (batch.approvals.length > 0) {
      await this.db.transaction().execute(async (trx) => {
        await upsertApprovals(trx, batch.approvals)
        await announce(trx, this.dialect, 'approvals')
      })
    }
  }

  async list(query: DecisionQuery = {}): Promise<DecisionRow[]> {
    let select = this.db.selectFrom('decisions').selectAll()
    if (query.tenant !== undefined) select = select.where('tenant', '=', query.tenant)
    if (query.since !== undefined) select = select.where('created_at', '>=', query.since)
    if (query.until !== undefined) select = select.where('created_at', '<', query.until)
    if (query.decision !== undefined) select = select.where('decision', '=', query.decision)
    if (query.event !== undefined) select = select.where('event', '=', query.event)
    if (query.agentId !== undefined) select = select.where('agent_id', '=', query.agentId)
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

  /** A hook's executions counted by verdict, under the filters of {@link executions}. */
  async countExecutions(query: ExecutionQuery): Promise<Record<string, number>> {
    let select = this.db
      .selectFrom('hook_executions')
      .select(['decision', (eb) => eb.fn.countAll<number>().as('n')])
      .where('hook_ref', '=', query.hookRef)
    if (query.tenant !== undefined) select = select.where('tenant', '=', query.tenant)
    if (query.decision !== undefined) select = select.where('decision', '=', query.decision)
    if (query.mode === 'shadow') select = select.where('mode', '=', 'shadow')
    if (query.mode === 'enforce') select = select.where('mode', 'is', null)
    if (query.since !== undefined) select = select.where('created_at', '>=', query.since)
    if (query.until !== undefined) select = select.where('created_at', '<', query.until)
    const rows = await select.groupBy('decision').execute()
    const out: Record<string, number> = {}
    for (const row of rows) out[row.decision] = Number(row.n)
    return out
  }

  /**
   * A hook's executions, newest first (by row id); `next` is given when the page is full.
   * @throws StoreError `invalid-query` when the cursor is not a positive integer string.
   */
  async executions(query: ExecutionQuery): Promise<ExecutionPage> {
    let select = this.db.selectFrom('hook_executions').selectAll().where('hook_ref', '=', query.hookRef)
    if (query.cursor !== undefined) select = select.where('id', '<', executionCursor(query.cursor))
    if (query.tenant !== undefined) select = select.where('tenant', '=', query.tenant)
    if (query.decision !== undefined) select = select.where('decision', '=', query.decision)
    if (query.mode === 'shadow') select = select.where('mode', '=', 'shadow')
    if (query.mode === 'enforce') select = select.where('mode', 'is', null)
    if (query.since !== undefined) select = select.where('created_at', '>=', query.since)
    if (query.until !== undefined) select = select.where('created_at', '<', query.until)
    const limit = pageSize(query.limit, 50, 1000)
    const rows = await select.orderBy('id', 'desc').limit(limit).execute()
    const page: ExecutionPage = { rows: rows.map(fromExecution) }
    const last = rows[rows.length - 1]
    if (rows.length === limit && last) page.next = String(last.id)
    return page
  }
}
