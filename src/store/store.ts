// The one Store implementation over the Kysely query layer (each concept's queries in a
// repo file of its own, this class delegating to them); the dialect (SQLite or PostgreSQL)
// only decides how the connection is made and how changes are announced: PostgreSQL
// LISTEN/NOTIFY (plus a slow poll as a safety net), SQLite a poll of the change counters
// that every write bumps.

import { type Kysely, sql } from 'kysely'
import { type HookActivity, type HookActivityQuery, hookActivity } from './activity-repo.js'
import { ApprovalsRepo } from './approvals-repo.js'
import { AuditRepo } from './audit-repo.js'
import type { AuditRowWriter } from './audit-write.js'
import { BreakersRepo } from './breakers-repo.js'
import { announce, HooksRepo } from './hooks-repo.js'
import { InstancesRepo } from './instances-repo.js'
import { ManagementRepo } from './management-repo.js'
import { type Overview, type OverviewQuery, overview } from './rollups-repo.js'
import type { Database } from './schema.js'
import type {
  ApprovalQuery,
  ApprovalResolution,
  ApprovalRow,
  AuditBatch,
  BreakerFailureInput,
  BreakerRow,
  BudgetRow,
  ChangeKind,
  ChangeQuery,
  ChangeRow,
  DecisionDetail,
  DecisionQuery,
  DecisionRow,
  ExecutionPage,
  ExecutionQuery,
  HookInput,
  InstanceRow,
  SecretBox,
  Store,
  StoredHook,
  TokenRow,
} from './types.js'

/** How a change feed is started for a dialect: returns its stop function. */
export type ChangeSubscriber = (emit: (kind: ChangeKind) => void) => Promise<() => Promise<void>>

/** What the store needs besides the database. */
export interface KyselyStoreOptions {
  dialect: 'sqlite' | 'postgres'
  location: string
  secrets?: SecretBox
  /** Pushes changes as they happen (PostgreSQL LISTEN); absent = polling only. */
  subscribe?: ChangeSubscriber
  /** How often the change counters are polled, in ms. */
  pollMs: number
  schemaVersion: number
  /** The dialect's fast path for audit rows. */
  writeRows: AuditRowWriter
  /** Folds the overview's pending counts into its rollups now (rollups-roll.ts). */
  foldRollups?: () => void | Promise<void>
  /** Finishes what the dialect does in the background before the database is closed. */
  beforeClose?: () => Promise<void>
  /** Releases what the dialect holds after the Kysely instance is destroyed. */
  onClose?: () => Promise<void>
}

const KINDS: readonly ChangeKind[] = ['hooks', 'breakers', 'budgets', 'tokens', 'approvals']

/** A store over a migrated Kysely database. */
export class KyselyStore implements Store {
  readonly dialect: 'sqlite' | 'postgres'
  readonly location: string
  private readonly hooks: HooksRepo
  private readonly audit: AuditRepo
  private readonly approvals: ApprovalsRepo
  private readonly management: ManagementRepo
  private readonly breakers: BreakersRepo
  private readonly instances: InstancesRepo
  private readonly listeners = new Set<(kind: ChangeKind) => void>()
  private feed: Promise<() => Promise<void>> | undefined
  private timer: ReturnType<typeof setInterval> | undefined
  private seen = new Map<string, number>()
  private polling = false
  private closed = false

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: KyselyStoreOptions,
  ) {
    this.dialect = options.dialect
    this.location = options.location
    this.hooks = new HooksRepo(db, options.dialect, options.secrets)
    this.audit = new AuditRepo(db, options.dialect, options.writeRows)
    this.approvals = new ApprovalsRepo(db, options.dialect)
    this.breakers = new BreakersRepo(db, options.dialect)
    this.management = new ManagementRepo(db, options.dialect)
    this.instances = new InstancesRepo(db, options.dialect)
  }

  putHook(hook: HookInput): Promise<StoredHook> {
    return this.hooks.put(hook)
  }
  getHook(id: string, tenant?: string): Promise<StoredHook | undefined> {
    return this.hooks.get(id, tenant)
  }
  listHooks(tenant?: string): Promise<StoredHook[]> {
    return this.hooks.list(tenant)
  }
  deleteHook(id: string, tenant?: string): Promise<boolean> {
    return this.hooks.delete(id, tenant)
  }
  setHookEnabled(id: string, enabled: boolean, tenant?: string): Promise<StoredHook | undefined> {
    return this.hooks.setEnabled(id, enabled, tenant)
  }

  writeAudit(batch: AuditBatch): Promise<void> {
    return this.audit.write(batch)
  }
  listDecisions(query?: DecisionQuery): Promise<DecisionRow[]> {
    return this.audit.list(query)
  }
  getDecision(id: string, tenant?: string): Promise<DecisionDetail | undefined> {
    return this.audit.get(id, tenant)
  }
  countDecisions(tenant?: string): Promise<number> {
    return this.audit.count(tenant)
  }
  listExecutions(query: ExecutionQuery): Promise<ExecutionPage> {
    return this.audit.executions(query)
  }
  countExecutions(query: ExecutionQuery): Promise<Record<string, number>> {
    return this.audit.countExecutions(query)
  }
  hookActivity(query: HookActivityQuery): Promise<HookActivity[]> {
    return hookActivity(this.db, query)
  }
  async overview(query: OverviewQuery): Promise<Overview> {
    const fold = this.options.foldRollups
    // Folded first so that the figures include every decision recorded; a fold that fails
    // leaves its counts pending (the next one takes them) and the rollups answer as they are.
    if (fold) {
      const folded = this.dialect === 'sqlite' ? this.db.connection().execute(async () => fold()) : fold()
      await Promise.resolve(folded).catch(() => undefined)
    }
    return overview(this.db, query)
  }

  listApprovals(filter?: ApprovalQuery): Promise<ApprovalRow[]> {
    return this.approvals.list(filter)
  }
  putApproval(row: ApprovalRow): Promise<void> {
    return this.approvals.put(row)
  }
  getApproval(id: string, tenant?: string): Promise<ApprovalRow | undefined> {
    return this.approvals.get(id, tenant)
  }
  resolveApproval(
    id: string,
    resolution: ApprovalResolution,
    tenant?: string,
  ): Promise<{ row: ApprovalRow; resolved: boolean } | undefined> {
    return this.approvals.resolve(id, resolution, tenant)
  }
  expireApprovals(filter: {
    deadlineBefore?: number
    instance?: string
    reason: string
  }): Promise<ApprovalRow[]> {
    return this.approvals.expire(filter)
  }

  beatInstance(row: InstanceRow): Promise<void> {
    return this.instances.beat(row)
  }
  listInstances(since: number): Promise<InstanceRow[]> {
    return this.instances.list(since)
  }
  removeInstance(id: string): Promise<void> {
    return this.instances.remove(id)
  }
  abandonOrphanedApprovals(aliveSince: number, reason: string): Promise<ApprovalRow[]> {
    return this.instances.abandonOrphans(aliveSince, reason)
  }
  ping(): Promise<void> {
    return this.instances.ping()
  }

  listHookOverrides(): Promise<Map<string, boolean>> {
    return this.management.listHookOverrides()
  }
  setHookOverride(id: string, enabled: boolean | undefined): Promise<void> {
    return this.management.setHookOverride(id, enabled)
  }
  createToken(row: TokenRow): Promise<void> {
    return this.management.createToken(row)
  }
  getToken(id: string): Promise<TokenRow | undefined> {
    return this.management.getToken(id)
  }
  listTokens(): Promise<TokenRow[]> {
    return this.management.listTokens()
  }
  revokeToken(id: string, at: number): Promise<boolean> {
    return this.management.revokeToken(id, at)
  }
  recordChange(row: ChangeRow): Promise<void> {
    return this.management.recordChange(row)
  }
  listChanges(query?: ChangeQuery): Promise<ChangeRow[]> {
    return this.management.listChanges(query)
  }

  async addBudget(tenant: string, kind: string, period: string, amount: number): Promise<number> {
    const now = Date.now()
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('budgets')
        .values({ tenant, kind, period, used: amount, limit_value: null, updated_at: now })
        .onConflict((oc) =>
          oc
            .columns(['tenant', 'kind', 'period'])
            .doUpdateSet({ used: sql`budgets.used + ${amount}`, updated_at: now }),
        )
        .returning('used')
        .executeTakeFirstOrThrow()
      await announce(trx, this.dialect, 'budgets')
      return Number(row.used)
    })
  }

  async getBudget(tenant: string, kind: string, period: string): Promise<BudgetRow | undefined> {
    const row = await this.db
      .selectFrom('budgets')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('kind', '=', kind)
      .where('period', '=', period)
      .executeTakeFirst()
    if (!row) return undefined
    const out: BudgetRow = { tenant, kind, period, used: Number(row.used) }
    if (row.limit_value !== null) out.limit = Number(row.limit_value)
    return out
  }

  async setBudgetLimit(
    tenant: string,
    kind: string,
    period: string,
    limit: number | undefined,
  ): Promise<void> {
    const now = Date.now()
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('budgets')
        .values({ tenant, kind, period, used: 0, limit_value: limit ?? null, updated_at: now })
        .onConflict((oc) =>
          oc
            .columns(['tenant', 'kind', 'period'])
            .doUpdateSet({ limit_value: limit ?? null, updated_at: now }),
        )
        .execute()
      await announce(trx, this.dialect, 'budgets')
    })
  }

  loadBreakers(): Promise<BreakerRow[]> {
    return this.breakers.load()
  }

  saveBreaker(row: BreakerRow): Promise<void> {
    return this.breakers.save(row)
  }

  deleteBreaker(hookId: string, tenant?: string): Promise<void> {
    return this.breakers.delete(hookId, tenant)
  }

  recordBreakerFailure(failure: BreakerFailureInput): Promise<BreakerRow | undefined> {
    return this.breakers.recordFailure(failure)
  }

  watch(listener: (kind: ChangeKind) => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** Starts the change feed: the counters as they are now, LISTEN where there is one, the poll. */
  async start(): Promise<void> {
    this.seen = await this.readRevisions()
    if (this.options.subscribe) {
      this.feed = this.options.subscribe((kind) => {
        if (KINDS.includes(kind)) this.emit(kind)
      })
      await this.feed.catch(() => undefined)
    }
    this.timer = setInterval(() => void this.poll(), this.options.pollMs)
    this.timer.unref?.()
  }

  async schemaVersion(): Promise<number> {
    return this.options.schemaVersion
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    const stop = await this.feed?.catch(() => undefined)
    await stop?.().catch(() => undefined)
    await this.options.beforeClose?.().catch(() => undefined)
    await this.db.destroy()
    await this.options.onClose?.()
  }

  private emit(kind: ChangeKind): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(kind)
      } catch {
        // a listener's failure is its own; the feed goes on for the others
      }
    }
  }

  private async readRevisions(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('revisions').selectAll().execute()
    return new Map(rows.map((r) => [r.kind, Number(r.revision)]))
  }

  private async poll(): Promise<void> {
    if (this.polling || this.closed || this.listeners.size === 0) return
    this.polling = true
    try {
      const current = await this.readRevisions()
      for (const [kind, revision] of current) {
        const before = this.seen.get(kind)
        this.seen.set(kind, revision)
        if (before !== undefined && before !== revision && KINDS.includes(kind as ChangeKind)) {
          this.emit(kind as ChangeKind)
        }
      }
    } catch {
      // the database is unreachable for now; the next poll tries again
    } finally {
      this.polling = false
    }
  }
}
