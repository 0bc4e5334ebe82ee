// The ACS profiles: Intent (scope and capabilities), approvers (signed answers to an ASK),
// ACS-Crypto (asymmetric algorithms and ML-DSA keys) and ACS-Trace (OpenTelemetry spans).

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
export {
  approverSchema,
  intentSettingsSchema,
  openApprovers,
  traceSettingsSchema,
} from './approver-settings.js'
export type { HumanHold } from './human-approval.js'
export { askHuman } from './human-approval.js'
export type { Intent, IntentExtension, ScopeMode, SessionIntent } from './intent.js'
export {
  covers,
  createIntentRegistry,
  grantedCapabilities,
  intentCanonical,
  intentOf,
  intentView,
  requestedCapability,
  SCOPE_MODES,
  UNDETERMINED_CAPABILITY,
} from './intent.js'
export { ML_DSA_PRIVATE_FORMS, ML_DSA_PUBLIC_FORMS, mlDsaPem } from './ml-dsa-keys.js'
export { createTraceEmitter, traceEmission } from './trace.js'
