// What `/acs` answers when its ledger (replay memory and session chains, on the store's
// database) fails or stops answering: every ledger call is bounded, and a request whose
// ledger step failed gets the session's failure posture with the cause in the answer —
// `deny` answers a signed deny naming it, `proceed` an internal error naming it (the agent
// then proceeds, as its posture says). A decision already made and recorded is corrected
// to the answer given, so the audit trail says what the caller was told.

import type { JsonObject } from '../../../core/index.js'
import { errorMessage } from '../../../core/index.js'
import {
  ACS_ERRORS,
  AcsError,
  type AcsLedger,
  type AcsSessionState,
  ReplayMemoryFull,
  syncFormOf,
} from '../core/index.js'
import type { AcsSettings } from './settings.js'

/** The ledger did not answer in time, or failed: the request cannot be checked or chained. */
export class LedgerUnavailable extends Error {
  override readonly name = 'LedgerUnavailable'
  /** The engine's decision, when the failure came after it was made. */
  decisionId: string | undefined
}

/** A recorded decision set to what its caller was told instead. */
export interface AnswerCorrection {
  id: string
  decision: string
  reason: string
  reasonCode: string[]
}

/** A driver's failure said as the database's: its error code (never its address) or message. */
function databaseCause(database: string | undefined, error: unknown): string {
  const code = (error as { code?: unknown }).code
  if (database === undefined) return errorMessage(error)
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
    return `the database (${database}) cannot be reached: ${code}`
  return `the database (${database}) failed: ${errorMessage(error).split('\n')[0]}`
}

/** Runs one ledger call within `timeoutMs`, turning its failure into {@link LedgerUnavailable}. */
async function bounded<T>(
  what: string,
  database: string | undefined,
  timeoutMs: number,
  call: () => Promise<T>,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new LedgerUnavailable(
            `the ACS ledger (${what}) did not answer within ${timeoutMs} ms: the database${database ? ` (${database})` : ''} is not answering`,
          ),
        ),
      timeoutMs,
    )
  })
  try {
    return await Promise.race([call(), late])
  } catch (error) {
    if (error instanceof LedgerUnavailable || error instanceof ReplayMemoryFull) throw error
    throw new LedgerUnavailable(`the ACS ledger (${what}) failed: ${databaseCause(database, error)}`)
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The ledger with every call bounded by `timeoutMs` (a failure is a {@link LedgerUnavailable}).
 * A memory ledger is returned as it is: it does no I/O, so it cannot stop answering.
 */
export function boundedLedger(ledger: AcsLedger, timeoutMs: number): AcsLedger {
  if (syncFormOf(ledger)) return ledger
  const db = ledger.database
  return {
    ...(db ? { database: db } : {}),
    remember: (key, expiresAt, now) =>
      bounded('replay memory', db, timeoutMs, () => ledger.remember(key, expiresAt, now)),
    head: (ref) => bounded('session chain', db, timeoutMs, () => ledger.head(ref)),
    append: (ref, entry) => bounded('session chain', db, timeoutMs, () => ledger.append(ref, entry)),
    entries: (ref) => bounded('session chain', db, timeoutMs, () => ledger.entries(ref)),
    ...(ledger.sessions ? { sessions: boundedSessions(ledger.sessions, db, timeoutMs) } : {}),
  }
}

/** Session state with every call bounded by `timeoutMs`, as {@link boundedLedger}'s calls. */
function boundedSessions(state: AcsSessionState, db: string | undefined, timeoutMs: number): AcsSessionState {
  const within = <T>(call: () => Promise<T>) => bounded('session state', db, timeoutMs, call)
  return {
    ...(db ? { database: db } : {}),
    load: (ref) => within(() => state.load(ref)),
    claimHandshake: (ref, record) => within(() => state.claimHandshake(ref, record)),
    establishIntent: (ref, canonical) => within(() => state.establishIntent(ref, canonical)),
    extendIntent: (ref, extension) => within(() => state.extendIntent(ref, extension)),
    countDeferral: (ref) => within(() => state.countDeferral(ref)),
    raiseAsk: (ref, stepId, ask) => within(() => state.raiseAsk(ref, stepId, ask)),
    pendingAsk: (ref, stepId) => within(() => state.pendingAsk(ref, stepId)),
    takeAsk: (ref, stepId) => within(() => state.takeAsk(ref, stepId)),
  }
}

/**
 * The session's failure posture for a ledger failure: a deny result naming the cause, or
 * (posture `proceed`) an error naming it.
 */
export function postureAnswer(
  settings: Pick<AcsSettings, 'onDecisionFailure'>,
  failure: LedgerUnavailable,
): { result: JsonObject; correction?: AnswerCorrection } | { error: AcsError } {
  if (settings.onDecisionFailure === 'proceed') {
    return {
      error: new AcsError(
        ACS_ERRORS.internal,
        `${failure.message}; the request was not decided, so on_decision_failure (proceed) applies`,
        { on_decision_failure: 'proceed' },
      ),
    }
  }
  const reason = `${failure.message}; on_decision_failure is deny, so the action is denied`
  const result: JsonObject = {
    type: 'final',
    decision: 'deny',
    reasoning: reason,
    reason_codes: ['decision_failure'],
  }
  return failure.decisionId === undefined
    ? { result }
    : {
        result,
        correction: { id: failure.decisionId, decision: 'deny', reason, reasonCode: ['decision_failure'] },
      }
}
