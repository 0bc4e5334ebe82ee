// The outbound HTTP client and its SSRF protection.

export type { OutboundClient, OutboundErrorCode, OutboundRequest, OutboundResponse } from './types.js'
export { OutboundError } from './types.js'
