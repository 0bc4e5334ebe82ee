// The HTTP server: the AOS and ACS endpoints, health and readiness, the front door, graceful
// shutdown; the management plane (tokens, `/ws`, approvals, sign-in links) and the UI plug in.

export { acsServerOptions } from './acs.js'
export { openAcsLedger, type SqlAcsLedger } from './acs-ledger.js'
export type { ServerOptions, ServerPlugin } from './app.js'
export { createServer, SERVER_DEFAULTS } from './app.js'
export type { Authenticate } from './front-door.js'
export { decisionTenant, installFrontDoor, sendRefusal, tokenRequired, withToken } from './front-door.js'
export type { ListenOptions, ShutdownOptions } from './listen.js'
export { installShutdown, LISTEN_DEFAULTS, listen, stopGracefully } from './listen.js'
export * from './management/index.js'
export type { Readiness, ReadinessOptions } from './readiness.js'
export { checkReadiness, readinessPlugin } from './readiness.js'
export type { ServerTimeouts, TimeoutSettings } from './timeouts.js'
export { longestHoldMs, serverTimeouts, TIMEOUT_DEFAULTS } from './timeouts.js'
export { uiPlugin, uiRoot } from './ui.js'
