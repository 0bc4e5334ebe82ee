// The Store contract: what Warden persists (hooks, decisions and their hook executions,
// approvals, tenant budgets, circuit breakers, management tokens and the change log) and
// the change feed that tells every instance sharing one database about changes. Two
// adapters implement it over one query layer: SQLite (the default) and PostgreSQL.

import type { FailurePolicy, HandlerConfig, HookMode, PolicyRef } from '../core/index.js'
import type { HookActivity, HookActivityQuery } from './activity-repo.js'
import type {
  AuditBatch,
  DecisionDetail,
  DecisionQuery,
  DecisionRow,
  ExecutionPage,
  ExecutionQuery,
} from './audit-types.js'
import type {
  ApprovalQuery,
  ApprovalResolution,
  ApprovalRow,
  ChangeQuery,
  ChangeRow,
  TokenRow,
} from './management-types.js'
import type { Overview, OverviewQuery } from './rollups-repo.js'

export type { HookActivity, HookActivityQuery } from './activity-repo.js'
export type {
  AuditBatch,
  DecisionCorrection,
  DecisionDetail,
  DecisionQuery,
  DecisionRow,
  ExecutionMetadata,
  ExecutionPage,
  ExecutionQuery,
  ExecutionRow,
} from './audit-types.js'
export type {
  ApprovalQuery,
  ApprovalResolution,
  ApprovalRow,
  ApprovalStatus,
  ChangeQuery,
  ChangeRow,
  TokenRole,
  TokenRow,
} from './management-types.js'

/** Encrypts and decrypts small strings (AES-256-GCM in production). */
export interface SecretBox {
  seal(plain: string): string
  open(sealed: string): string
}

/** Where a stored hook came from. */
export type HookSource = 'builtin' | 'user' | 'file'

/** How wide a hook applies. */
export type HookScopeKind = 'global' | 'tenant' | 'agent'

/** A hook as written to the store (the management API, imports). */
export interface HookInput {
  name: string
  /** What the hook is for, in a sentence. */
  description?: string
  /** Omitted for a global hook. */
  tenant?: string
  /** Agent ids the hook is limited to. */
  agents?: string[]
  event: string
  handler: HandlerConfig
  matcher?: string
  if?: string
  priority?: number
  timeoutMs?: number
  onTimeout?: FailurePolicy
  onError?: FailurePolicy
  enabled?: boolean
  policy?: PolicyRef
  source?: HookSource
  /** `shadow`: recorded, never applied. Default `enforce`. */
  mode?: HookMode
  blocks?: boolean
  maxInvocationsPerTurn?: number
  breakerCountsBlocks?: boolean
  background?: boolean
  home?: 'goclaw' | 'loom' | 'harness'
}

/** A hook as read back: secrets in `handler` are open again. */
export interface StoredHook {
  /** `name` for a global hook, `tenant/name` otherwise (the engine's hook id). */
  id: string
  name: string
  description?: string
  tenant?: string
  scope: HookScopeKind
  agents: string[]
  event: string
  handlerType: string
  handler: HandlerConfig
  matcher?: string
  if?: string
  priority: number
  timeoutMs: number
  onTimeout: FailurePolicy
  onError: FailurePolicy
  enabled: boolean
  /** Starts at 1, bumped on every update. */
  version: number
  policy?: PolicyRef
  source: HookSource
  /** Present (`shadow`) only for a hook in shadow mode. */
  mode?: 'shadow'
  blocks?: boolean
  maxInvocationsPerTurn?: number
  breakerCountsBlocks?: boolean
  background?: boolean
  home?: 'goclaw' | 'loom' | 'harness'
  createdAt: number
  updatedAt: number
}

/** An open circuit breaker, as shared between instances. */
export interface BreakerRow {
  hookId: string
  /** The tenant whose traffic opened it ('' or omitted = events without a tenant). */
  tenant?: string
  openedAt: number
  failures: number
  lastError: string
}

/** One failure of a hook for a tenant, with the breaker's thresholds. */
export interface BreakerFailureInput {
  hookId: string
  tenant: string
  at: number
  error: string
  /** Failures within the window that open the breaker. */
  failures: number
  windowMs: number
}

/** A tenant's use of a budget within one period. */
export interface BudgetRow {
  tenant: string
  kind: string
  period: string
  used: number
  limit?: number
}

/** A running instance as the others see it: its last heartbeat and what its `/ws` clients want. */
export interface InstanceRow {
  id: string
  startedAt: number
  heartbeatAt: number
  /** The push topics its subscribers listen to. */
  topics: string[]
}

/** What changed, as announced on the change feed. */
export type ChangeKind = 'hooks' | 'breakers' | 'budgets' | 'tokens' | 'approvals'

/**
 * Everything persisted. `tenant` arguments restrict a call to that tenant (a tenant never
 * reads or changes another tenant's rows); omitted, the call acts as an operator over all.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres'
  /** Where the data lives, without credentials. */
  readonly location: string

  putHook(hook: HookInput): Promise<StoredHook>
  getHook(id: string, tenant?: string): Promise<StoredHook | undefined>
  /** With `tenant`: that tenant's hooks plus the global ones. */
  listHooks(tenant?: string): Promise<StoredHook[]>
  deleteHook(id: string, tenant?: string): Promise<boolean>
  setHookEnabled(id: string, enabled: boolean, tenant?: string): Promise<StoredHook | undefined>

  /** Writes a batch in one transaction; rows already written are skipped (idempotent). */
  writeAudit(batch: AuditBatch): Promise<void>
  listDecisions(query?: DecisionQuery): Promise<DecisionRow[]>
  getDecision(id: string, tenant?: string): Promise<DecisionDetail | undefined>
  countDecisions(tenant?: string): Promise<number>

  /** Newest first. */
  listApprovals(filter?: ApprovalQuery): Promise<ApprovalRow[]>
  /** Upserts an approval row (the audit trail's final state); announces `approvals`. */
  putApproval(row: ApprovalRow): Promise<void>
  getApproval(id: string, tenant?: string): Promise<ApprovalRow | undefined>
  /**
   * Resolves an approval that is still pending (atomically: of two concurrent resolutions
   * one wins) and announces `approvals`.
   * @returns the row after the call and whether this call resolved it; undefined when no
   * such approval is visible to the tenant.
   */
  resolveApproval(
    id: string,
    resolution: ApprovalResolution,
    tenant?: string,
  ): Promise<{ row: ApprovalRow; resolved: boolean } | undefined>
  /**
   * Marks pending approvals expired: those whose deadline is before `deadlineBefore`, and/or
   * those held by `instance`. Returns the rows it expired.
   */
  expireApprovals(filter: {
    deadlineBefore?: number
    instance?: string
    reason: string
  }): Promise<ApprovalRow[]>

  /** Records an instance's heartbeat (and what its subscribers want). */
  beatInstance(row: InstanceRow): Promise<void>
  /** The instances whose last heartbeat is at or after `since`. */
  listInstances(since: number): Promise<InstanceRow[]>
  /** Forgets an instance (a clean shutdown). */
  removeInstance(id: string): Promise<void>
  /**
   * Marks `abandoned` the pending approvals whose holding instance has no heartbeat at or
   * after `aliveSince` (it died), announcing `approvals`. Returns the rows it changed.
   */
  abandonOrphanedApprovals(aliveSince: number, reason: string): Promise<ApprovalRow[]>
  /** One round trip to the database; rejects when it cannot be reached. */
  ping(): Promise<void>

  /** A hook's executions, newest first, cursor-paged. */
  listExecutions(query: ExecutionQuery): Promise<ExecutionPage>
  /**
   * A hook's executions counted by verdict (`deny`, `allow`, `skipped`, ...) under the same
   * filters as {@link Store.listExecutions} (`limit` and `cursor` are ignored).
   */
  countExecutions(query: ExecutionQuery): Promise<Record<string, number>>
  /** Runs and denials of each hook within a window, per bucket (skipped runs left out). */
  hookActivity(query: HookActivityQuery): Promise<HookActivity[]>
  /** Decisions, tools, agents, sessions and hooks of a window, from the rollups. */
  overview(query: OverviewQuery): Promise<Overview>

  /** Enabled/disabled overrides of hooks that are not stored (files, config), by engine id. */
  listHookOverrides(): Promise<Map<string, boolean>>
  /** Sets (or with `undefined` removes) a hook's override; announces `hooks`. */
  setHookOverride(id: string, enabled: boolean | undefined): Promise<void>

  createToken(row: TokenRow): Promise<void>
  getToken(id: string): Promise<TokenRow | undefined>
  listTokens(): Promise<TokenRow[]>
  /** Marks a token revoked; announces `tokens`. False when no such live token. */
  revokeToken(id: string, at: number): Promise<boolean>

  recordChange(row: ChangeRow): Promise<void>
  listChanges(query?: ChangeQuery): Promise<ChangeRow[]>

  /** Adds to a budget and returns the new total (atomic across instances). */
  addBudget(tenant: string, kind: string, period: string, amount: number): Promise<number>
  getBudget(tenant: string, kind: string, period: string): Promise<BudgetRow | undefined>
  setBudgetLimit(tenant: string, kind: string, period: string, limit: number | undefined): Promise<void>

  /** Every open breaker, of every hook and tenant. */
  loadBreakers(): Promise<BreakerRow[]>
  /** Opens a breaker (kept when already open) and forgets the failures counted toward it. */
  saveBreaker(row: BreakerRow): Promise<void>
  /** Closes a hook's breaker for one tenant, or for every tenant when omitted, with its failures. */
  deleteBreaker(hookId: string, tenant?: string): Promise<void>
  /**
   * Counts a hook's failure for a tenant with those of the window from every instance;
   * opens the breaker when they reach the threshold.
   * @returns the breaker when this failure opened it.
   */
  recordBreakerFailure(failure: BreakerFailureInput): Promise<BreakerRow | undefined>

  /**
   * Calls `listener` when another instance (or this one) changes hooks (or hook overrides),
   * breakers, budgets, tokens or approvals.
   */
  watch(listener: (kind: ChangeKind) => void): () => void
  /** The version of the schema after migrations. */
  schemaVersion(): Promise<number>
  close(): Promise<void>
}
