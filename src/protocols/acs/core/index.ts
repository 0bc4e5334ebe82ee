// The ACS core protocol: envelopes and their errors, JCS and the HMAC signing of v0.1, the
// method table, stdio framing, decisions as ACS results, key material, and the session chain.

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
export { decisionResult, deferReason, modificationsFor, structuredEdits } from './decisions.js'
export type { AcsRequest } from './envelope.js'
export { checkEnvelope, checkShell } from './envelope.js'
export { ACS_ERRORS, AcsError, acsErrorResponse } from './errors.js'
export { encodeFrame, FrameError, FrameReader } from './framing.js'
export { type HmacSha256Key, prepareHmacSha256 } from './hmac.js'
export { jcs, jcsWithout } from './jcs.js'
export type { SecretOpener } from './key-material.js'
export { decodeKey, KEY_FORMS, keyBytes, readKeyFile } from './key-material.js'
export type {
  AcsLedger,
  ChainAppender,
  ChainEntry,
  MemoryLedgerOptions,
  StepRecord,
} from './ledger.js'
export {
  createChainAppender,
  createMemoryLedger,
  isoAt,
  ReplayMemoryFull,
  syncFormOf,
} from './ledger.js'
export { ACS_METHODS, acsMethod, STEP_NAMES } from './methods.js'
export type { SessionRef } from './session-ref.js'
export { refKey, tenantKey } from './session-ref.js'
export type {
  AcsSessionState,
  ExtensionRecord,
  HandshakeRecord,
  MemorySessionStateOptions,
  PendingAskRecord,
  SessionSnapshot,
} from './session-state.js'
export { createMemorySessionState } from './session-state.js'
export { verifyChain } from './verify.js'
export { ACS_VERSION, sameMajor } from './version.js'
