// Observability: OpenTelemetry spans around dispatches (no-op without an SDK), Prometheus
// metrics on /metrics, structured JSON logs, and `security.hook.*` lines for hook events.

export { registerApprovalMetrics } from './approval-metrics.js'
export type { BudgetWarn, BudgetWatchOptions } from './budget-watch.js'
export { BudgetWatch } from './budget-watch.js'
export type { Logger, LoggerOptions } from './logger.js'
export {
  createLogger,
  isSecretField,
  REDACTED,
  REDACTED_PATHS,
  redactLogObject,
  scrubText,
} from './logger.js'
export type { RouteHost, WardenMetrics } from './metrics.js'
export { createMetrics, metricsPlugin, registerMetrics } from './metrics.js'
export type { SecurityHookEvent, SecurityLogOptions } from './security-log.js'
export {
  logBreakerTrip,
  logHookSecurity,
  SECURITY_HOOK_EVENTS,
  SECURITY_REASON_CHARS,
  securityEventOf,
  securityLogRecorder,
} from './security-log.js'
export { activeTraceId, TRACER_NAME, traceEngine } from './tracing.js'
