// AOS (Agent Observability Standard) over JSON-RPC 2.0: every method mapped onto Warden's
// events and back, the JSON-RPC checks and errors, and the service the server mounts.

export { aosEvents, createAosGuardianCodec } from './codec.js'
export type { RequestMeta } from './context.js'
export { checkTenant, completeStepContext, fromStepContext, toolName, toStepContext } from './context.js'
export type { RpcErrorData, RpcId, RpcRequest } from './jsonrpc.js'
export {
  checkEnvelope,
  decodeBody,
  errorResponse,
  RPC_ERRORS,
  RpcError,
  readableId,
  rpcError,
} from './jsonrpc.js'
export type { MappedEvent, MappingState, MethodMapping } from './mapping.js'
export { createMappingState } from './mapping.js'
export { AOS_METHODS, aosMethodFor, eventToRequest, mapRequest, modifiedRequest } from './methods.js'
export { answerToVerdict, decisionResult, GuardianAnswerError, pingResult } from './result.js'
export type { AosReply, AosService, AosServiceOptions } from './service.js'
export { AOS_DEFAULTS, createAosService } from './service.js'
export { TOOL_CALL_ECHO_LIMIT_BYTES } from './tool-call.js'
export { A2A_METHODS, JOCH_A2A_METHODS } from './wire.js'
