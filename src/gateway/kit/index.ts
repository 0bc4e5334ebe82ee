// The gateways' shared kit: what `warden llm`, `warden mcp` and `warden a2a` have in common,
// built once. Each protocol folder keeps only its protocol's mapping.

export {
  type CallerIdentity,
  type CallerRefusal,
  callerIdentity,
  headerIdentity,
  type RequestAuthenticator,
  requestHeader,
} from './caller.js'
export {
  classifyItem,
  firstRefusal,
  type ItemRule,
  type ItemTable,
  type ItemVerdict,
  itemKey,
  REFUSE_UNKNOWN,
  tableEntries,
  type UnknownTypePolicy,
  unknownTypePolicy,
} from './closed-world.js'
export { discardBody, discardBound } from './drain.js'
export type { GatewayLane } from './lane.js'
export { LET_THROUGH_CODE, letThroughRecorder, listedKeys } from './let-through.js'
export { byteSetting, inFlightSettings, millisSetting } from './limits.js'
export { navigationRefusal, pinnedUrl, TargetError, targetProblem, targetRefusal } from './origin.js'
export {
  type GatewayErrorInfo,
  type GatewayServer,
  type GatewayServerOptions,
  gatewayServer,
} from './server.js'
export {
  CallerGone,
  translate as translateUpstreamError,
  Upstream,
  type UpstreamAnswer,
  UpstreamError,
  type UpstreamErrorKind,
  type UpstreamNames,
  type UpstreamRequest,
  type UpstreamStream,
} from './upstream.js'
