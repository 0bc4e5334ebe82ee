// What one decision becomes in the audit tables: a decision row (who, which event, what
// was decided, by which hooks and policy versions, on which input, with which output), one
// row per hook that took part (with its metadata: matcher and `if` results, what the
// handler reported, the trace id; marked `shadow` for a hook in shadow mode, whose verdict
// was recorded, not applied), and an approval row when a human was asked.

import { type DecisionRecord, type HookTrace, type JsonObject, subjectOf } from '../core/index.js'
import type {
  ApprovalRow,
  ApprovalStatus,
  DecisionRow,
  ExecutionMetadata,
  ExecutionRow,
  SecretBox,
} from '../store/index.js'

/** Characters of a hook error kept in clear; the full error is sealed. */
export const ERROR_CLEAR_CHARS = 256

/** The rows of one decision. */
export interface AuditRows {
  decision: DecisionRow
  executions: ExecutionRow[]
  approval?: ApprovalRow
}

/** How rows are built. */
export interface RowOptions {
  secrets?: SecretBox | undefined
  /** The trace id of the current span, when tracing is on. */
  traceId?: string | undefined
  /** Where the hooks came from (`warden serve`'s files and folders), kept with the input for replay. */
  sources?: JsonObject | undefined
  now?: number
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

function idOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? text((value as { id?: unknown }).id) : undefined
}

const APPROVAL_STATUS: Record<string, ApprovalStatus> = {
  approved: 'approved',
  edited: 'approved',
  rejected: 'rejected',
  timeout: 'expired',
  unavailable: 'expired',
}

/** The hooks whose verdict made the final decision. */
function decidingHooks(kind: string, trace: HookTrace[]): DecisionRow['decidingHooks'] {
  const wanted = kind === 'allow' ? 'allow' : kind
  return trace
    .filter((t) => t.outcome === wanted && !t.shadow)
    .map((t) => ({ hook: t.hook, version: t.version, ...(t.policy ? { policy: t.policy } : {}) }))
}

/**
 * What the hooks in shadow mode would have decided (recorded in the decision's output as
 * `shadow`), or undefined when none ran.
 */
function shadowVerdicts(trace: HookTrace[]): JsonObject[] | undefined {
  let out: JsonObject[] | undefined
  for (const t of trace) {
    if (!t.shadow || t.outcome === 'skipped') continue
    const entry: JsonObject = { hook: t.id, decision: t.outcome }
    if (t.reason !== undefined) entry.reason = t.reason
    if (t.error) entry.error = t.error.kind
    out ??= []
    out.push(entry)
  }
  return out
}

/** Builds the audit rows of one decision record. */
export function toAuditRows(record: DecisionRecord, options: RowOptions = {}): AuditRows {
  const { decision, event } = record
  const now = options.now ?? Date.now()
  const context = event.context
  const tenant = text(context.tenantId) ?? ''
  const output: JsonObject = { additionalContext: decision.additionalContext }
  if (decision.payload) output.payload = decision.payload
  if (decision.approval) output.approval = decision.approval as unknown as JsonObject
  const shadow = shadowVerdicts(decision.trace)
  if (shadow) output.shadow = shadow
  const row: DecisionRow = {
    id: decision.id,
    tenant,
    event: decision.event,
    decision: decision.decision,
    reason: decision.reason,
    reasonCode: decision.reasonCode,
    decidingHooks: decidingHooks(decision.decision, decision.trace),
    policies: decision.policies,
    durationMs: decision.durationMs,
    blocking: decision.blocking,
    input: options.sources
      ? { event: event.event, payload: event.payload, context, sources: options.sources }
      : { event: event.event, payload: event.payload, context },
    output,
    createdAt: now,
  }
  const requestId = text(context.requestId)
  if (requestId) row.requestId = requestId
  const agentId = idOf(context.agent)
  if (agentId) row.agentId = agentId
  const sessionId = idOf(context.session)
  if (sessionId) row.sessionId = sessionId
  const tool = subjectOf(event.payload)
  if (tool) row.tool = tool
  const traceId = options.traceId ?? text(context.traceId)
  if (traceId) row.traceId = traceId
  // Warden's own refusals are in the decision's trace, never hook executions.
  const executions = decision.trace
    .filter((t) => t.warden !== true)
    .map((t, position) => executionRow(t, position, row, options.secrets))
  const rows: AuditRows = { decision: row, executions }
  if (decision.approval) {
    const approval: ApprovalRow = {
      id: decision.id,
      decisionId: decision.id,
      tenant,
      status: APPROVAL_STATUS[decision.approval.outcome] ?? 'expired',
      requestedAt: Math.round(now - decision.durationMs),
      decidedAt: now,
    }
    if (decision.approval.by) approval.decidedBy = decision.approval.by
    if (decision.approval.reason) approval.reason = decision.approval.reason
    rows.approval = approval
  }
  return rows
}

function executionRow(
  trace: HookTrace,
  position: number,
  decision: DecisionRow,
  secrets: SecretBox | undefined,
): ExecutionRow {
  const row: ExecutionRow = {
    dedupKey: `${decision.id}:${position}`,
    decisionId: decision.id,
    tenant: decision.tenant,
    // The engine's id of the hook; traces built by hand may lack it.
    hookRef: trace.id || (decision.tenant ? `${decision.tenant}/${trace.hook}` : trace.hook),
    hookName: trace.hook,
    hookVersion: trace.version,
    handler: trace.handler,
    decision: trace.outcome,
    durationMs: trace.durationMs,
    position,
    createdAt: decision.createdAt,
  }
  if (trace.reason !== undefined) row.reason = trace.reason
  if (trace.skipped) row.skipped = trace.skipped
  if (trace.shadow) row.mode = 'shadow'
  if (trace.policy) {
    row.policyId = trace.policy.id
    if (trace.policy.version !== undefined) row.policyVersion = trace.policy.version
  }
  if (trace.error) {
    row.errorKind = trace.error.kind
    row.error = trace.error.message.slice(0, ERROR_CLEAR_CHARS)
    if (secrets) row.errorSealed = secrets.seal(trace.error.message)
  }
  const metadata = executionMetadata(trace, decision.traceId)
  if (metadata) row.metadata = metadata
  return row
}

/**
 * What an execution row's `metadata` holds: the trace's matcher and `if` results and
 * handler facts, and the decision's trace id; undefined when nothing is known.
 */
export function executionMetadata(
  trace: HookTrace,
  traceId: string | undefined,
): ExecutionMetadata | undefined {
  const meta = trace.meta
  if (!meta && traceId === undefined) return undefined
  const out: ExecutionMetadata = meta ? { ...meta } : {}
  if (traceId !== undefined) out.traceId = traceId
  return out
}
