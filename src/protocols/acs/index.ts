// ACS (Agent Control Standard) v0.1 over JSON-RPC 2.0: the method → event mapping, signed
// envelopes, replay protection, the session hash chain, and the service the server mounts.

export type { AsymmetricAlgorithm, SigningKey, VerifyingKey } from './algorithms.js'
export {
  ASYMMETRIC_ALGORITHMS,
  generateSigningKeyPair,
  isAsymmetric,
  signingKey,
  verifyingKey,
} from './algorithms.js'
export type { ApprovalOutcome, Approvals } from './approver.js'
export { createApprovals } from './approver.js'
export type { AcsApprover, AcsIntentSettings, AcsTraceSettings } from './approver-settings.js'
export type { ClientKey, HelloOptions, RequestOptions } from './client.js'
export { acsRequest, clientHello, responseSigned, responseVerifies } from './client.js'
export type { AcsSignature, EnvelopeSigner, KeyDerivation } from './crypto.js'
export {
  canonicalJson,
  composedCanonical,
  DEFAULT_KEY_DERIVATION,
  deriveSessionKey,
  entryHash,
  flatCanonical,
  HKDF_INFO,
  HMAC_ALGORITHM,
  hkdfSha256,
  hmacMatches,
  hmacSha256,
  requestSignedInput,
  sha256Hex,
  signEnvelope,
  signEnvelopeWith,
  signedInput,
  signMessage,
} from './crypto.js'
export { decisionResult, modificationsFor, structuredEdits } from './decisions.js'
export type { AcsRequest } from './envelope.js'
export { ACS_ERRORS, AcsError, acsErrorResponse } from './errors.js'
export { encodeFrame, FrameError, FrameReader } from './framing.js'
export { createAcsGuardianHooks } from './guardian-hook.js'
export type { AcsTransport } from './handshake.js'
export { answerAlgorithm, clientHelloOf, serverHello } from './handshake.js'
export type { Intent, IntentExtension, ScopeMode, SessionIntent } from './intent.js'
export { covers, intentOf, requestedCapability, SCOPE_MODES } from './intent.js'
export { jcs, jcsWithout } from './jcs.js'
export { decodeKey, KEY_FORMS, keyBytes } from './key-material.js'
export type { AcsLedger, ChainEntry, MemoryLedgerOptions, SessionRef, StepRecord } from './ledger.js'
export { createChainAppender, createMemoryLedger, ReplayMemoryFull, refKey, tenantKey } from './ledger.js'
export { ACS_METHODS, acsMethod, STEP_NAMES } from './methods.js'
export { ML_DSA_PRIVATE_FORMS, ML_DSA_PUBLIC_FORMS, mlDsaPem } from './ml-dsa-keys.js'
export type { AnswerCorrection } from './outage.js'
export { boundedLedger, LedgerUnavailable, postureAnswer } from './outage.js'
export type { AcsAnswer, AcsPost, RemoteAcsGuardian } from './remote.js'
export { acsStepFor, createAcsRemote } from './remote.js'
export type { AcsCaller, AcsReply, AcsService, AcsServiceOptions } from './service.js'
export { createAcsService } from './service.js'
export type { AcsKey, AcsSettings, AcsSettingsInput, AgentKey, SecretOpener } from './settings.js'
export { ACS_DEFAULTS, acsSettingsSchema, resolveAcsSettings, settingsWith } from './settings.js'
export { verifyChain } from './verify.js'
export { ACS_VERSION, sameMajor } from './version.js'
