// The audit's row types: decisions and hook executions as stored, the batches the audit
// writer hands over, corrections, and the filters and pages that read them back.

import type { PolicyRef } from '../core/index.js'
import type { ApprovalRow } from './management-types.js'

/** One hook's part in a decision, as stored. */
export interface ExecutionRow {
  /** Unique per decision and position; a retried write never doubles the row. */
  dedupKey: string
  decisionId: string
  tenant: string
  /** The engine id of the hook (`name` or `tenant/name`); linked to `hooks` when stored there. */
  hookRef: string
  hookName: string
  hookVersion: number
  handler: string
  /** The verdict, or `skipped`. */
  decision: string
  reason?: string
  durationMs: number
  /** The first 256 characters of the error. */
  error?: string
  /** The full error, sealed. */
  errorSealed?: string
  errorKind?: string
  skipped?: string
  policyId?: string
  policyVersion?: string
  position: number
  createdAt: number
  /** What is known about the run besides its verdict (column `metadata`, JSON). */
  metadata?: ExecutionMetadata
  /** `shadow` when the hook ran in shadow mode: `decision` was recorded, not applied. */
  mode?: 'shadow'
}

/**
 * The `metadata` of a hook execution row: each field only when known. `matcherMatched` and
 * `ifResult` for hooks with a matcher or `if`; `stdoutBytes` and `exitCode` for command
 * hooks; `httpStatus` for http hooks; `model`, `tokens` and `cached` for prompt hooks;
 * `traceId` when the decision was traced.
 */
export interface ExecutionMetadata {
  matcherMatched?: boolean
  ifResult?: boolean
  stdoutBytes?: number
  exitCode?: number
  httpStatus?: number
  model?: string
  tokens?: number
  cached?: boolean
  traceId?: string
}

/** One dispatch, as stored. */
export interface DecisionRow {
  id: string
  requestId?: string
  tenant: string
  agentId?: string
  sessionId?: string
  /** The tool name, or the MCP / A2A method, the event was about. */
  tool?: string
  event: string
  decision: string
  reason: string
  reasonCode: string[]
  /** Hooks whose verdict decided the outcome, with their versions. */
  decidingHooks: { hook: string; version: number }[]
  policies: PolicyRef[]
  durationMs: number
  blocking: boolean
  /** The event as dispatched: `{event, payload, context}`. */
  input: unknown
  /** What was answered: the modified payload, additional context, approval. */
  output: unknown
  traceId?: string
  createdAt: number
}

/** A decision read back with its hook executions. */
export interface DecisionDetail extends DecisionRow {
  executions: (ExecutionRow & { hookId?: string })[]
}

/** Filters of {@link Store.listExecutions}, newest first. */
export interface ExecutionQuery {
  /** The hook's engine id (`name` or `tenant/name`). */
  hookRef: string
  /** Only executions in this tenant's decisions. */
  tenant?: string
  decision?: string
  /** Only runs in this mode (`enforce` or `shadow`). */
  mode?: 'enforce' | 'shadow'
  since?: number
  until?: number
  /** Rows per page (default 50, at most 1000). */
  limit?: number
  /** The `next` of the previous page. */
  cursor?: string
}

/** A page of executions. */
export interface ExecutionPage {
  rows: (ExecutionRow & { hookId?: string })[]
  /** Pass as `cursor` for the next page; absent on the last one. */
  next?: string
}

/**
 * What the caller was told instead of what a written decision row says: a blocking decision
 * whose record timed out was answered deny, and its row (written late) is set to that deny.
 */
export interface DecisionCorrection {
  id: string
  decision: string
  reason: string
  reasonCode: string[]
}

/** A batch the audit writer hands over in one transaction. */
export interface AuditBatch {
  decisions: DecisionRow[]
  executions: ExecutionRow[]
  approvals: ApprovalRow[]
  /** Applied after the rows are written (rows of earlier batches included). */
  corrections?: DecisionCorrection[]
}

/** Filters of {@link Store.listDecisions}. */
export interface DecisionQuery {
  /** Only this tenant's decisions ("" = decisions without a tenant). Omitted = every tenant. */
  tenant?: string
  since?: number
  until?: number
  decision?: string
  event?: string
  /** Only this agent's decisions (the `agent_id` column). */
  agentId?: string
  /** Only this session's decisions. */
  sessionId?: string
  /** Only decisions about this tool (or MCP / A2A method). */
  tool?: string
  /** Only decisions this hook (engine id) ran in, not skipped (its newest 20 000 runs). */
  hook?: string
  /** Text in the id, reason, tool, agent, session or input (any case; newest 20 000 rows). */
  text?: string
  /** Rows per page (default 50, at most 10 000). */
  limit?: number
  /** Rows to skip, newest first: with `limit`, pages through a longer history. */
  offset?: number
}
