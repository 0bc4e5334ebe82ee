// OpenTelemetry spans for decisions: one `warden.dispatch` span per event (decision, the
// hooks that decided it, policy version, tenant) with one child `hook.<handler>.<event>`
// per hook that ran, laid end to end from the decision's trace. A hook written in GoClaw's
// format gets GoClaw's span: `hook.<handler>.<goclaw event>` (`pre_tool_use`) with its
// `duration_ms` and `metadata.decision` (allow | block) attributes.
// Only @opentelemetry/api is used, so this is a no-op until the user registers an SDK.

import {
  context,
  isSpanContextValid,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api'
import { type Decision, type DispatchInput, type Engine, eventInfo } from '../core/index.js'

/** The tracer name Warden's spans are created under. */
export const TRACER_NAME = 'warden'

function tenantOf(input: DispatchInput): string | undefined {
  const tenant = input?.context?.tenantId
  return typeof tenant === 'string' ? tenant : undefined
}

function hookSpans(
  tracer: Tracer,
  parent: Span,
  decision: Decision,
  tenant: string | undefined,
  start: number,
) {
  const parentContext = trace.setSpan(context.active(), parent)
  let at = start
  for (const step of decision.trace) {
    // Skipped hooks ran nothing; Warden's own refusal is the dispatch span's (warden.reason).
    if (step.outcome === 'skipped' || step.warden) continue
    const attributes: Record<string, string | number> = {
      'warden.hook': step.hook,
      'warden.hook.version': step.version,
      'warden.handler': step.handler,
      'warden.decision': step.outcome,
      'warden.event': decision.event,
    }
    if (step.shadow) attributes['warden.shadow'] = 1
    if (tenant) attributes['warden.tenant'] = tenant
    // GoClaw names its hook spans by its own event names (pre_tool_use, ...).
    const goclaw = eventInfo(decision.event).aliases.find((a) => a.system === 'goclaw')?.name
    if (goclaw) attributes['goclaw.event'] = goclaw
    if (step.policy) {
      attributes['warden.policy'] = step.policy.id
      if (step.policy.version !== undefined) attributes['warden.policy.version'] = step.policy.version
    }
    const goclawSpan = step.home === 'goclaw' && goclaw !== undefined
    if (goclawSpan) {
      attributes.duration_ms = step.durationMs
      attributes['metadata.decision'] = step.outcome === 'deny' ? 'block' : step.outcome
    }
    const span = tracer.startSpan(
      `hook.${step.handler}.${goclawSpan ? goclaw : decision.event}`,
      { kind: SpanKind.INTERNAL, startTime: at, attributes },
      parentContext,
    )
    if (step.error) span.setStatus({ code: SpanStatusCode.ERROR, message: step.error.message.slice(0, 256) })
    at += step.durationMs
    span.end(at)
  }
}

/**
 * Wraps an engine so every dispatch is traced. The dispatch span is active while the
 * engine runs, so recorders (the audit writer) can read its trace id.
 */
export function traceEngine(engine: Engine, options: { tracer?: Tracer } = {}): Engine {
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME)
  return {
    ...engine,
    dispatch(input) {
      const tenant = tenantOf(input)
      const attributes: Record<string, string> = { 'warden.event': String(input?.event) }
      if (tenant) attributes['warden.tenant'] = tenant
      return tracer.startActiveSpan(
        'warden.dispatch',
        { kind: SpanKind.INTERNAL, attributes },
        async (span) => {
          const start = Date.now()
          try {
            const decision = await engine.dispatch(input)
            span.setAttribute('warden.decision', decision.decision)
            span.setAttribute('warden.decision.id', decision.id)
            span.setAttribute('warden.event', decision.event)
            const deciders = decision.trace.filter((t) => t.outcome === decision.decision && !t.shadow)
            if (deciders.length > 0) span.setAttribute('warden.hook', deciders.map((t) => t.hook).join(','))
            const deciding = decision.policies[0]
            if (deciding) {
              span.setAttribute('warden.policy', deciding.id)
              if (deciding.version !== undefined) span.setAttribute('warden.policy.version', deciding.version)
            }
            if (decision.decision === 'deny')
              span.setAttribute('warden.reason', decision.reason.slice(0, 256))
            hookSpans(tracer, span, decision, tenant, start)
            return decision
          } finally {
            span.end()
          }
        },
      )
    },
  }
}

/** The trace id of the active span, when there is a real one. */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext()
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined
}
