// Limits on requests and body bytes in flight, shared by `warden serve`, `warden a2a` and
// the MCP HTTP gateway: admission, Fastify and plain-Node adapters, and their metrics.

export { answeredRefusal, InFlightRefusalError, limitInFlight, sendRefusal } from './fastify.js'
export type {
  InFlightLimit,
  InFlightLimits,
  InFlightRefusal,
  InFlightTicket,
  MachineShape,
} from './limiter.js'
export {
  declaredLength,
  InFlightLimiter,
  isRefusal,
  machineInFlightLimits,
  machineShape,
  RETRY_AFTER_SECONDS,
  refusalBody,
  refusalHeaders,
} from './limiter.js'
export { registerInFlightMetrics } from './metrics.js'
export type { BodyFailure } from './node.js'
export { admitNodeRequest, readCountedBody, writeRefusal } from './node.js'
export type { BodyLimit, InFlightSettings } from './settings.js'
export { inFlightLimiterFor } from './settings.js'
export type { SettleOptions, Settler } from './settle.js'
export { settleAfterBursts } from './settle.js'
