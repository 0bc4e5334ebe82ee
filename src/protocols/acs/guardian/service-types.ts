// The ACS service's shape: its options, who called, and what it answers. The service itself
// is in ./service.ts.

import type { Approver, Engine, JsonObject, OnCallerGone, Soon } from '../../../core/index.js'
import type { AcsLedger } from '../core/index.js'
import type { AcsTransport } from './handshake.js'
import type { AnswerCorrection } from './outage.js'
import type { AcsSettings } from './settings.js'

/** Settings of the ACS service; every one but the engine has a default. */
export interface AcsServiceOptions {
  engine: Engine
  settings?: AcsSettings
  ledger?: AcsLedger
  /** Reported as `metadata.evaluator_version`. */
  version?: string
  /** Most requests in one batch. Default 100. */
  maxBatch?: number
  /** Deepest JSON nesting accepted. Default 64. */
  maxDepth?: number
  /** The clock, in ms since the epoch. */
  now?: () => number
  onInternalError?: (error: unknown) => void
  /**
   * Longest wait for one ledger call (replay memory, session chain), in ms; past it the
   * session's failure posture answers, naming the cause. Default `defaultTimeoutMs`.
   */
  ledgerTimeoutMs?: number
  /** Told when the answer given differs from the recorded decision (so the record is corrected). */
  onAnswerChanged?: (correction: AnswerCorrection) => void
  /** The human approver (the management plane's), for requests outside a session's Intent. */
  approver?: Approver
  /** The transport this service answers on, for the ServerHello. Default `http`. */
  transport?: AcsTransport
  /**
   * Whether decisions are emitted as OCSF events (set by `warden serve` from its config):
   * announced as `trace_emission.ocsf_enabled`. Default: as the settings say (false).
   */
  ocsfEnabled?: boolean
}

/** Who sent the body, beyond the body itself. */
export interface AcsCaller {
  tenant?: string
  /** How to learn that the caller went away (a held ask is then abandoned). */
  onCallerGone?: OnCallerGone
}

/** A response body: one response or a batch of them. */
export type AcsReply = JsonObject | JsonObject[]

/** The ACS Guardian service. */
export interface AcsService {
  /** `caller.tenant` pins the tenant (a token's); a request naming another is refused. */
  handleBody(body: Uint8Array, caller?: AcsCaller): Promise<AcsReply>
  /**
   * {@link handleBody}, but a single request's answer comes back at once (no promise) when
   * nothing on its way had to wait: a memory ledger and hooks that answered synchronously.
   */
  answerBody(body: Uint8Array, caller?: AcsCaller): Soon<AcsReply>
  handle(body: unknown, caller?: AcsCaller): Promise<AcsReply>
  /**
   * The JSON text of a reply: for a signed response of this service, the text composed when
   * it was signed (no second serialization); otherwise JSON.stringify.
   */
  replyText(reply: AcsReply): string
  readonly settings: AcsSettings
  readonly ledger: AcsLedger
}
