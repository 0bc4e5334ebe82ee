// Hook security events as log lines with GoClaw-style keys: every line carries
// `event: "security.hook.<what>"` and the hook, the event and the decision it concerns, so
// a log pipeline can alert on them. One line per hook that blocked, timed out, failed, was
// refused by its open breaker or its per-turn cap, and one when a breaker trips. Payloads
// are never logged; reasons are cut to 256 characters and go through the logger's
// redaction (secret keys, URL passwords, bearer tokens).

import type { BreakerTrip, DecisionRecord, HookSpec, HookTrace, Recorder } from '../core/index.js'
import { BUDGET_FAILURE_PREFIX } from '../handlers/index.js'
import type { Logger } from './logger.js'

/** The `event` values of hook security lines. */
export const SECURITY_HOOK_EVENTS = {
  /** A hook answered deny (exit 2, a webhook's block, the judge's deny, ...). Level info. */
  blocked: 'security.hook.blocked',
  /** A hook ran out of time; its onTimeout decision applied. Level warn. */
  timeout: 'security.hook.timeout',
  /** A hook failed or answered garbage; its onError decision applied. Level warn. */
  error: 'security.hook.error',
  /** A hook's breaker is open; its onError decision applied without running it. Level warn. */
  circuitOpen: 'security.hook.circuit_open',
  /** A hook's breaker tripped (once per trip). Level warn. */
  circuitBreaker: 'security.hook.circuit_breaker',
  /** A hook reached its maxInvocationsPerTurn; its onError decision applied. Level warn. */
  turnCap: 'security.hook.turn_cap',
  /** The LLM judge answered without a usable `decide` call (free text, bad fields). Level warn. */
  promptParseError: 'security.hook.prompt_parse_error',
  /** The judge's token budget could not be read before the call. Level warn. */
  budgetPrecheckFailed: 'security.hook.budget_precheck_failed',
  /** The tokens a judge call used could not be counted. Level warn. */
  budgetDeductFailed: 'security.hook.budget_deduct_failed',
  /** An event came deeper than the sub-agent depth cap and was denied. Level warn. */
  loopDepthExceeded: 'security.hook.loop_depth_exceeded',
  /** A decision's audit record could not be written (a blocking event is then denied). Level error. */
  auditWriteFailed: 'security.hook.audit_write_failed',
} as const

/** One of {@link SECURITY_HOOK_EVENTS}. */
export type SecurityHookEvent = (typeof SECURITY_HOOK_EVENTS)[keyof typeof SECURITY_HOOK_EVENTS]

/** Characters of a reason kept in a log line. */
export const SECURITY_REASON_CHARS = 256

/** Options of {@link securityLogRecorder}. */
export interface SecurityLogOptions {
  /** Whether a trip also switches the hook off in the store (said on the trip line). */
  disableOnTrip?: boolean
}

/** The security event a hook's trace entry is, if any. */
export function securityEventOf(trace: HookTrace): SecurityHookEvent | undefined {
  switch (trace.error?.kind) {
    case undefined:
      return trace.outcome === 'deny' && !trace.shadow ? SECURITY_HOOK_EVENTS.blocked : undefined
    case 'timeout':
      return SECURITY_HOOK_EVENTS.timeout
    case 'breaker-open':
      return SECURITY_HOOK_EVENTS.circuitOpen
    case 'turn-cap':
      return SECURITY_HOOK_EVENTS.turnCap
    default:
      if (trace.handler === 'prompt') return promptEventOf(trace)
      return SECURITY_HOOK_EVENTS.error
  }
}

/** A failed judge run: its budget, an unusable answer (tokens were spent), else an error. */
function promptEventOf(trace: HookTrace): SecurityHookEvent {
  const message = trace.error?.message ?? ''
  if (message.startsWith(BUDGET_FAILURE_PREFIX.precheck)) return SECURITY_HOOK_EVENTS.budgetPrecheckFailed
  if (message.startsWith(BUDGET_FAILURE_PREFIX.deduct)) return SECURITY_HOOK_EVENTS.budgetDeductFailed
  if (trace.meta?.tokens !== undefined) return SECURITY_HOOK_EVENTS.promptParseError
  return SECURITY_HOOK_EVENTS.error
}

function idOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' ? id : undefined
}

/** Logs the security events of one decision. */
export function logHookSecurity(logger: Logger, record: DecisionRecord): void {
  const { decision, event } = record
  for (const trace of decision.trace) {
    // Warden's own refusals have their own keys (loop_depth_exceeded, audit_write_failed).
    if (trace.warden) continue
    const name = securityEventOf(trace)
    if (name === undefined) continue
    const context = event.context
    const fields: Record<string, unknown> = {
      event: name,
      hook_id: trace.id,
      handler: trace.handler,
      hook_event: decision.event,
      decision_id: decision.id,
      outcome: trace.outcome,
      duration_ms: trace.durationMs,
    }
    if (context.tenantId) fields.tenant_id = context.tenantId
    const agent = idOf(context.agent)
    if (agent) fields.agent_id = agent
    const session = idOf(context.session)
    if (session) fields.session_id = session
    const reason = trace.error?.message ?? trace.reason
    if (reason) fields.reason = reason.slice(0, SECURITY_REASON_CHARS)
    const message = `hook "${trace.hook}" ${name.slice('security.hook.'.length).replace('_', ' ')} on ${decision.event}`
    if (name === SECURITY_HOOK_EVENTS.blocked) logger.info(fields, message)
    else logger.warn(fields, message)
  }
  if (decision.reasonCode[0] === 'depth-cap') {
    logger.warn(
      {
        event: SECURITY_HOOK_EVENTS.loopDepthExceeded,
        hook_event: decision.event,
        decision_id: decision.id,
        depth: event.context.depth ?? 0,
        ...(event.context.tenantId ? { tenant_id: event.context.tenantId } : {}),
        reason: decision.reason.slice(0, SECURITY_REASON_CHARS),
      },
      `${decision.event} denied: ${decision.reason}`,
    )
  }
}

/** Logs a decision whose audit record could not be written. */
function logAuditWriteFailed(logger: Logger, record: DecisionRecord, error: unknown): void {
  const cause = error instanceof Error ? error.message : String(error)
  logger.error(
    {
      event: SECURITY_HOOK_EVENTS.auditWriteFailed,
      hook_event: record.decision.event,
      decision_id: record.decision.id,
      blocking: record.decision.blocking,
      reason: cause.slice(0, SECURITY_REASON_CHARS),
    },
    `the audit record of ${record.decision.event} decision ${record.decision.id} could not be written: ${cause.slice(0, SECURITY_REASON_CHARS)}`,
  )
}

/** Logs a breaker trip. */
export function logBreakerTrip(
  logger: Logger,
  trip: BreakerTrip,
  hook: HookSpec,
  options: SecurityLogOptions = {},
): void {
  // A global hook tripped by one tenant's traffic is never switched off for the others.
  const switchedOff =
    options.disableOnTrip === true && (hook.scope.tenant !== undefined || trip.tenant === '')
  logger.warn(
    {
      event: SECURITY_HOOK_EVENTS.circuitBreaker,
      hook_id: trip.hookId,
      tenant: trip.tenant,
      hook_event: hook.event,
      failures: trip.failures,
      opened_at: new Date(trip.openedAt).toISOString(),
      last_error: trip.lastError.slice(0, SECURITY_REASON_CHARS),
      disable_on_trip: switchedOff,
    },
    `hook "${hook.name}" tripped its circuit breaker after ${trip.failures} failures${trip.tenant ? ` of tenant "${trip.tenant}"` : ''}${switchedOff ? '; it is switched off until hooks.toggle turns it back on' : trip.tenant && hook.scope.tenant === undefined ? '; it stays on for the other tenants' : ''}`,
  )
}

/** A recorder that logs hook security events, then hands the record on. */
export function securityLogRecorder(
  logger: Logger,
  next: Recorder,
  options: SecurityLogOptions = {},
): Recorder {
  return {
    record(record) {
      try {
        logHookSecurity(logger, record)
      } catch {
        // A log line that cannot be written must not cost the decision its record.
      }
      let written: void | Promise<void>
      try {
        written = next.record(record)
      } catch (error) {
        logAuditWriteFailed(logger, record, error)
        throw error
      }
      if (!written) return written
      return written.then(undefined, (error: unknown) => {
        logAuditWriteFailed(logger, record, error)
        throw error
      })
    },
    breakerTripped(trip, hook) {
      logBreakerTrip(logger, trip, hook, options)
      return next.breakerTripped?.(trip, hook)
    },
  }
}
