// The management plane: access tokens, the `/ws` API, approvals and pushes, and the UI's
// one-time sign-in links.

export type { ApprovalBrokerOptions, ResolveInput } from './approvals.js'
export { ApprovalBroker, approvalView } from './approvals.js'
export type { ManagementSettings } from './context.js'
export { MANAGEMENT_DEFAULTS } from './context.js'
export type { PushTopic, Subscriber } from './hub.js'
export { decisionSummary, PUSH_TOPICS, PushHub } from './hub.js'
export type { AosAuth, ManagementPlane, ManagementPlaneOptions } from './plane.js'
export { createManagementPlane } from './plane.js'
export type { ApiErrorCode } from './protocol.js'
export { ApiError } from './protocol.js'
export type { Redeemed } from './signin.js'
export { SIGNIN_FRAGMENT, SIGNIN_LINK_TTL_MS, SignInLinks, signInRoute } from './signin.js'
export type { CreatedToken, Principal } from './tokens.js'
export {
  createAccessToken,
  principalOf,
  TOKEN_ROLES,
  TokenAuthority,
  tokenFromRequest,
  tokenIdOf,
} from './tokens.js'
export { MASK, maskConfig, specDefinition } from './views.js'
export { CLOSE_REVOKED } from './ws.js'
