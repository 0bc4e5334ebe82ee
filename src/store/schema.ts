// The database schema as the query layer sees it: one interface per table. JSON columns
// are text in both dialects; booleans are integers 0/1; times are epoch milliseconds.

import type { Generated } from 'kysely'

export interface HooksTable {
  id: string
  /** "" for a global hook. */
  tenant: string
  name: string
  scope: string
  agents: string
  event: string
  handler_type: string
  /** The handler config as JSON, secret values sealed. */
  config: string
  matcher: string | null
  if_expr: string | null
  priority: number
  timeout_ms: number
  on_timeout: string
  on_error: string
  enabled: number
  version: number
  policy: string | null
  source: string
  /** What the hook is for (migration 0009); null when not given. */
  description: string | null
  created_at: number
  updated_at: number
  /** `enforce` or `shadow` (0010_hook_mode). */
  mode: string
  /** 1 blocks, 0 only observes, null follows the event's rule (0011_hook_blocks). */
  blocks: number | null
  max_invocations_per_turn: number | null
  /** 1: the hook's own blocks count toward its breaker (0015_hook_rules). */
  breaker_counts_blocks?: number | null
  /** 1: runs in the background, the caller does not wait (0015_hook_rules). */
  background?: number | null
  /** goclaw, loom, harness or null (0015_hook_rules). */
  home?: string | null
}

export interface DecisionsTable {
  id: string
  request_id: string | null
  tenant: string
  agent_id: string | null
  session_id: string | null
  event: string
  decision: string
  reason: string
  reason_code: string
  deciding_hooks: string
  policies: string
  duration_ms: number
  blocking: number
  input: string
  output: string
  trace_id: string | null
  /** The tool name, MCP or A2A method the decision was about (migration 0009). */
  tool: string | null
  created_at: number
}

export interface HookExecutionsTable {
  id: Generated<number>
  dedup_key: string
  decision_id: string
  tenant: string
  hook_id: string | null
  hook_ref: string
  hook_name: string
  hook_version: number
  handler: string
  decision: string
  reason: string | null
  duration_ms: number
  error: string | null
  error_sealed: string | null
  error_kind: string | null
  skipped: string | null
  policy_id: string | null
  policy_version: string | null
  position: number
  created_at: number
  /** JSON: what is known about the run (see ExecutionRow.metadata); null when nothing. */
  metadata: string | null
  /** `shadow` for a run in shadow mode, else null (0010_hook_mode). */
  mode: string | null
}

export interface ApprovalsTable {
  id: string
  decision_id: string
  tenant: string
  status: string
  reason: string | null
  decided_by: string | null
  requested_at: number
  decided_at: number | null
  event: string | null
  /** The held event as JSON. */
  input: string | null
  /** The asking hooks as JSON. */
  asks: string | null
  deadline: number | null
  resolution: string | null
  /** The payload of an `edit` resolution as JSON. */
  edited_payload: string | null
  instance: string | null
}

export interface BudgetsTable {
  tenant: string
  kind: string
  period: string
  used: number
  limit_value: number | null
  updated_at: number
}

export interface BreakersTable {
  hook_id: string
  /** The tenant whose traffic opened it ('' = events without a tenant). */
  tenant: string
  opened_at: number
  failures: number
  last_error: string
  updated_at: number
}

/** The recent failures of a hook for a tenant, counted across instances until its breaker opens. */
export interface BreakerFailuresTable {
  hook_id: string
  tenant: string
  /** JSON array of failure times (ms), the latest `failures` at most. */
  times: string
  last_error: string
  updated_at: number
}

export interface RevisionsTable {
  kind: string
  revision: number
}

export interface TokensTable {
  id: string
  name: string
  /** "" for a master token (every tenant). */
  tenant: string
  role: string
  /** SHA-256 of the secret, hex. */
  hash: string
  created_at: number
  revoked_at: number | null
}

export interface ChangesTable {
  id: string
  at: number
  actor: string
  actor_name: string
  tenant: string
  action: string
  target: string
  /** The object before the change as JSON. */
  before: string | null
  /** The object after the change as JSON. */
  after: string | null
  /** Why, as the person who made the change said it (0010_hook_mode). */
  reason: string | null
}

export interface HookOverridesTable {
  hook_id: string
  enabled: number
  updated_at: number
}

/** Every table of the schema. */
/** Running instances and their heartbeats (0008_instances). */
export interface InstancesTable {
  id: string
  started_at: number
  heartbeat_at: number
  topics: string
}

export interface Database {
  instances: InstancesTable
  hooks: HooksTable
  decisions: DecisionsTable
  hook_executions: HookExecutionsTable
  approvals: ApprovalsTable
  budgets: BudgetsTable
  breakers: BreakersTable
  breaker_failures: BreakerFailuresTable
  revisions: RevisionsTable
  tokens: TokensTable
  changes: ChangesTable
  hook_overrides: HookOverridesTable
}
