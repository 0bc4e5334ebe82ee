// The Guardian side of ACS: settings, the handshake and its sessions, signature and replay
// checks, IBAC, outage answers, and the service the server mounts.

export type { AcsTransport } from './handshake.js'
export { answerAlgorithm, clientHelloOf, serverHello } from './handshake.js'
export type { AnswerCorrection } from './outage.js'
export { boundedLedger, LedgerUnavailable, postureAnswer } from './outage.js'
export { createAcsService } from './service.js'
export type { AcsCaller, AcsReply, AcsService, AcsServiceOptions } from './service-types.js'
export type { AcsKey, AcsSettings, AcsSettingsInput, AgentKey } from './settings.js'
export { ACS_DEFAULTS, acsSettingsSchema, resolveAcsSettings, settingsWith } from './settings.js'
