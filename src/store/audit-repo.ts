// Decisions, hook executions and approvals: written in batches (see audit-write.ts), each
// row idempotent (a retried batch never doubles a row), read back per tenant; a hook's
// execution history, newest first, paged by the executions' serial id.

import { type Kysely, type SelectQueryBuilder, sql } from 'kysely'
import { upsertApprovals } from './approvals-repo.js'
import type { AuditRowWriter } from './audit-write.js'
import { StoreError } from './errors.js'
import { announce } from './hooks-repo.js'
import { correctRollups } from './rollups-correct.js'
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
  if (row.tool !== null && row.tool !== undefined) out.tool = row.tool
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

/** Most decisions a free-text search looks through (the newest the other filters leave). */
export const DECISION_SEARCH_WINDOW = 20_000

/** The columns a free-text search looks in. */
const SEARCHED_COLUMNS = ['id', 'reason', 'tool', 'agent_id', 'session_id', 'input'] as const

/** A LIKE pattern's wildcards and escape character taken literally. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
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
          await correctRollups(trx, this.dialect, c.id, c.decision)
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
    let select = this.filtered(this.db.selectFrom('decisions').selectAll(), query)
    if (query.text !== undefined && query.text !== '') {
      // The text is searched within a bounded window: the newest rows the other filters leave.
      const window = this.filtered(this.db.selectFrom('decisions').select('id'), query)
        .orderBy('created_at', 'desc')
        .limit(DECISION_SEARCH_WINDOW)
      const pattern = `%${escapeLike(query.text.slice(0, 200))}%`
      const like = sql.raw(this.dialect === 'postgres' ? 'ilike' : 'like')
      const escapeClause = sql.raw("escape '\\'")
      const matches = SEARCHED_COLUMNS.map(
        (column) => sql`coalesce(${sql.ref(column)}, '') ${like} ${pattern} ${escapeClause}`,
      )
      select = select.where('id', 'in', window).where(sql<boolean>`(${sql.join(matches, sql` or `)})`)
    }
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

  /** Applies the structured filters of a decision query (every value a bound parameter). */
  private filtered<Q extends SelectQueryBuilder<Database, 'decisions', object>>(
    select: Q,
    query: DecisionQuery,
  ): Q {
    let q = select as SelectQueryBuilder<Database, 'decisions', object>
    if (query.tenant !== undefined) q = q.where('tenant', '=', query.tenant)
    if (query.since !== undefined) q = q.where('created_at', '>=', query.since)
    if (query.until !== undefined) q = q.where('created_at', '<', query.until)
    if (query.decision !== undefined) q = q.where('decision', '=', query.decision)
    if (query.event !== undefined) q = q.where('event', '=', query.event)
    if (query.agentId !== undefined) q = q.where('agent_id', '=', query.agentId)
    if (query.sessionId !== undefined) q = q.where('session_id', '=', query.sessionId)
    if (query.tool !== undefined) q = q.where('tool', '=', query.tool)
    if (query.hook !== undefined) {
      // Through the executions' (hook_ref, id) index: the hook's newest runs, bounded.
      let runs = this.db
        .selectFrom('hook_executions')
        .select('decision_id')
        .where('hook_ref', '=', query.hook)
        .where('decision', '!=', 'skipped')
      if (query.tenant !== undefined) runs = runs.where('tenant', '=', query.tenant)
      q = q.where('id', 'in', runs.orderBy('id', 'desc').limit(DECISION_SEARCH_WINDOW))
    }
    return q as Q
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
