// Persistence: the Store interface, its SQLite and PostgreSQL adapters over one query
// layer, forward-only migrations, the change feed, shared breaker state and stored hooks.

export { MAX_ACTIVITY_BUCKETS } from './activity-repo.js'
export { alreadySettled } from './approvals-repo.js'
export { DECISION_SEARCH_WINDOW } from './audit-repo.js'
export type { StoreBreakerOptions } from './breaker.js'
export { openStoreBreakerState, StoreBreakerState } from './breaker.js'
export type { StoreErrorCode } from './errors.js'
export { StoreError } from './errors.js'
export type { HookSync } from './hook-sync.js'
export { loadHooksFromStore, syncHooksFromStore, toHookDefinition } from './hook-sync.js'
export { migrations } from './migrations.js'
export type { OpenStoreOptions } from './open.js'
export { DEFAULT_SQLITE_PATH, openStore, redactLocation, resolveDatabaseLocation } from './open.js'
export type {
  OutcomeCounts,
  Overview,
  OverviewHook,
  OverviewItem,
  OverviewPoint,
  OverviewQuery,
} from './rollups-repo.js'
export { histogramQuantile, MAX_OVERVIEW_POINTS, MINUTE_WINDOW_MS } from './rollups-repo.js'
export { rollupFolder } from './rollups-roll.js'
export { LATENCY_BOUNDS_MS, SQLITE_ROLLUP_SQL } from './rollups-write.js'
export type { SecretKind } from './sealing.js'
export { isSecretKey, mapSecretValues, maskUrl, urlCarriesSecret } from './sealing.js'
export { ImmediateSqliteDialect } from './sqlite-dialect.js'
export type {
  ApprovalQuery,
  ApprovalResolution,
  ApprovalRow,
  ApprovalStatus,
  AuditBatch,
  BreakerRow,
  BudgetRow,
  ChangeKind,
  ChangeQuery,
  ChangeRow,
  DecisionCorrection,
  DecisionDetail,
  DecisionQuery,
  DecisionRow,
  ExecutionMetadata,
  ExecutionPage,
  ExecutionQuery,
  ExecutionRow,
  HookActivity,
  HookActivityQuery,
  HookInput,
  HookScopeKind,
  HookSource,
  InstanceRow,
  SecretBox,
  Store,
  StoredHook,
  TokenRole,
  TokenRow,
} from './types.js'
