// The A2A gateway: Warden between two A2A agents, over JSON-RPC and HTTP+JSON, with
// every request, answer and streamed event checked by the hooks.

export {
  CARD_PATHS,
  type CardInterface,
  CardSource,
  readCard,
  rewriteCard,
  type UpstreamCard,
} from './card.js'
export { A2aChecks, type A2aChecksOptions, a2aLetThroughRecorder, LET_THROUGH_REASON_CODE } from './checks.js'
export { A2A_DEFAULTS, type A2aLimits, a2aLimits, a2aSettingsSchema, type StreamBuffer } from './limits.js'
export {
  A2A_JSONRPC_METHODS,
  type A2aMethodInfo,
  type A2aOperation,
  methodInfo,
  OPERATION_EVENTS,
} from './methods.js'
export {
  type Caller,
  type ResponseKind,
  type RpcId,
  requestPayload,
  responseKind,
  responsePayload,
  rpcRequest,
  rpcResponse,
  type Target,
} from './payload.js'
export { PushUrlPolicy, pushUrls } from './push-policy.js'
export { restRoute } from './rest.js'
export { type A2aGateway, type A2aGatewayOptions, startA2aGateway } from './server.js'
export { answerShape, requestShape, type ShapeVerdict } from './shapes.js'
export { SSE_HEADERS, type SseEvent, SseParser, SseTooLargeError, sseFrame } from './sse.js'
export { joinText } from './stream.js'
export {
  A2A_EVENT_TABLE,
  A2A_FILE_TABLE,
  A2A_METHOD_TABLE,
  A2A_PART_TABLE,
  A2A_ROUTE_TABLE,
  A2A_TABLES,
  A2A_UNKNOWN_SETTING,
  a2aTablesMarkdown,
  a2aUnknownTypePolicy,
} from './tables.js'
export { TaskTenants } from './tenancy.js'
export { A2A_DENIED_CODE, A2A_UPSTREAM_ERROR_CODE, restError, rpcError } from './wire.js'
