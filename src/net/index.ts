// The outbound HTTP client and its SSRF protection; the front door of inbound listeners.

export type { IpAddress, IpRange } from './address.js'
export { blockedCategory, formatIp, inRange, parseCidr, parseIp, unmapIpv4 } from './address.js'
export type { CallerPrincipal } from './caller-access.js'
export { callerTenant, DATA_PLANE_ROLES } from './caller-access.js'
export {
  createOutboundClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REDIRECT_HOPS,
  DEFAULT_TIMEOUT_MS,
  RESERVED_HEADERS,
  systemResolver,
} from './client.js'
export type { DoorRefusal, FrontDoorOptions } from './front-door.js'
export {
  doorRefusalBody,
  doorRefusalHeaders,
  FrontDoor,
  gatewayRefusal,
  hostName,
  isLoopbackAddress,
  jsonBodyRefusal,
  writeDoorRefusal,
} from './front-door.js'
export type { AllowList } from './policy.js'
export { checkUrl, compileAllowList, redactUrl } from './policy.js'
export { networkOptions, networkSettingsSchema } from './settings.js'
export type {
  OutboundClient,
  OutboundClientOptions,
  OutboundErrorCode,
  OutboundRequest,
  OutboundResponse,
  ResolvedAddress,
  Resolver,
} from './types.js'
export { OutboundError } from './types.js'
