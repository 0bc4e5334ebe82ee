// One decision as an OCSF 1.5 event of class API Activity (6003, category Application
// Activity), the class AOS and ACS-Trace map agent steps to: the step is the API call
// (`api.operation` is the event, `api.service.name` the tool or method it concerns), the
// agent is the actor (`actor.user` of type "AI Agent", `actor.session` its session), the
// tenant is `metadata.tenant_uid`, and the decision is carried by the Security Control
// profile: `action_id` (allowed, denied, modified), `disposition_id` and `policy` (the
// hooks that decided). Payloads are never copied into the event; the reason is.

import type { DecisionRecord } from '../../core/index.js'
import { subjectOf } from '../../core/index.js'

/** The OCSF schema version the events follow. */
export const OCSF_VERSION = '1.5.0'
/** API Activity. */
export const API_ACTIVITY_CLASS = 6003
/** Application Activity. */
export const APPLICATION_CATEGORY = 6
/** API Activity's "Other" activity: an agent step is none of create, read, update, delete. */
const ACTIVITY_OTHER = 99
/** Characters of a reason kept in `message`. */
const MESSAGE_CHARS = 1000

/** An OCSF event as emitted. */
export type OcsfEvent = Record<string, unknown>

const ACTIONS = {
  allow: { action_id: 1, action: 'Allowed', disposition_id: 1, disposition: 'Allowed', severity_id: 1 },
  deny: { action_id: 2, action: 'Denied', disposition_id: 2, disposition: 'Blocked', severity_id: 3 },
  modify: { action_id: 4, action: 'Modified', disposition_id: 11, disposition: 'Corrected', severity_id: 2 },
  ask: { action_id: 99, action: 'Ask', disposition_id: 14, disposition: 'Delayed', severity_id: 2 },
} as const

const SEVERITIES = ['Unknown', 'Informational', 'Low', 'Medium'] as const

function text(value: unknown, chars = 200): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, chars) : undefined
}

/**
 * The OCSF API Activity event of one decision. Attributes Warden does not know are left
 * `undefined`, so that serializing the event (JSON) leaves them out, as OCSF asks.
 */
export function ocsfEventOf(record: DecisionRecord, product: { version: string }): OcsfEvent {
  const { decision, event } = record
  const context = event.context
  const tenant = text(context.tenantId)
  const agentId = text(context.agent?.id)
  const agentName = text(context.agent?.name)
  const sessionId = text(context.session?.id)
  const action = ACTIONS[decision.decision]
  const time = Date.parse(typeof context.timestamp === 'string' ? context.timestamp : '') || Date.now()
  const deciding = decision.reasonCode.length > 0 ? decision.reasonCode : decision.trace.map((t) => t.id)
  const firstPolicy = decision.policies[0]
  const hooks = decision.trace
    .filter((t) => t.outcome !== 'skipped')
    .map((t) => ({
      id: t.id,
      handler: t.handler,
      outcome: t.outcome,
      duration_ms: Math.round(t.durationMs),
      error: t.error?.kind,
      shadow: t.shadow,
    }))
  return {
    class_uid: API_ACTIVITY_CLASS,
    class_name: 'API Activity',
    category_uid: APPLICATION_CATEGORY,
    category_name: 'Application Activity',
    activity_id: ACTIVITY_OTHER,
    activity_name: decision.event,
    type_uid: API_ACTIVITY_CLASS * 100 + ACTIVITY_OTHER,
    type_name: `API Activity: ${decision.event}`,
    time,
    duration: Math.round(decision.durationMs),
    severity_id: action.severity_id,
    severity: SEVERITIES[action.severity_id],
    status_id: 1,
    status: 'Success',
    message: decision.reason.slice(0, MESSAGE_CHARS),
    metadata: {
      version: OCSF_VERSION,
      uid: decision.id,
      product: { name: 'Warden', vendor_name: 'Warden', version: product.version },
      profiles: ['security_control'],
      log_name: 'decisions',
      tenant_uid: tenant,
      correlation_uid: text(context.turnId),
    },
    actor: {
      user:
        agentId || agentName ? { uid: agentId, name: agentName, type_id: 99, type: 'AI Agent' } : undefined,
      session: sessionId ? { uid: sessionId } : undefined,
      app_name: 'Warden',
    },
    api: {
      operation: decision.event,
      service: { name: subjectOf(event.payload) ?? decision.event },
      request: text(context.requestId) ? { uid: text(context.requestId) } : undefined,
    },
    src_endpoint: { name: agentName ?? agentId ?? 'agent', uid: agentId },
    action_id: action.action_id,
    action: action.action,
    disposition_id: action.disposition_id,
    disposition: action.disposition,
    is_alert: decision.decision === 'deny',
    policy: {
      uid: deciding.join(',').slice(0, 500) || 'none',
      name: deciding.join(', ').slice(0, 500) || 'no hook objected',
      version: firstPolicy?.version === undefined ? undefined : String(firstPolicy.version),
      is_applied: true,
    },
    unmapped: {
      warden: {
        decision: decision.decision,
        reason_code: decision.reasonCode,
        hooks,
        blocking: decision.blocking,
        approval: decision.approval,
        depth: typeof context.depth === 'number' ? context.depth : undefined,
      },
    },
  }
}
