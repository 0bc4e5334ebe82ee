// Observability: OpenTelemetry spans around dispatches (no-op without an SDK), Prometheus
// metrics on /metrics, and structured JSON logs.

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
export { activeTraceId, TRACER_NAME, traceEngine } from './tracing.js'
