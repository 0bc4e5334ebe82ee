// `POST /acs`: the ACS v0.1 Guardian over HTTP, a route of the data plane beside `/aos`
// (one front door, one set of in-flight limits, one read of the body). Bad UTF-8, bad JSON
// and deep nesting become JSON-RPC errors, as on `/aos`. A signed response goes out as the
// text it was signed over, not serialized a second time.

import type { Engine } from '../core/index.js'
import {
  type AcsLedger,
  type AcsService,
  type AcsServiceOptions,
  type AcsSettings,
  createAcsService,
  resolveAcsSettings,
  type SecretOpener,
} from '../protocols/acs/index.js'
import { openAcsLedger, type SqlAcsLedger } from './acs-ledger.js'
import type { DataPlaneRoute } from './data-plane.js'

/** Settings of the `/acs` route. */
export interface AcsRouteOptions {
  engine: Engine
  settings?: AcsSettings
  ledger?: AcsLedger
  version?: string
  maxBatch?: number
  maxDepth?: number
  onInternalError?: (error: unknown) => void
  /** Longest wait for one ledger call before the failure posture answers (`audit.syncTimeoutMs`). */
  ledgerTimeoutMs?: number
  /** Told when an answer differs from the recorded decision (the audit writer corrects it). */
  onAnswerChanged?: AcsServiceOptions['onAnswerChanged']
  /** The management plane's approver: requests outside a session's Intent can be put to it. */
  approver?: AcsServiceOptions['approver']
  /** Whether decisions are emitted as OCSF events: announced in the ServerHello. Default false. */
  ocsfEnabled?: boolean
}

/**
 * The `POST /acs` route of the data plane, which has already checked the front door, the
 * in-flight limits, the body's size and type and the caller's token when this runs.
 * @returns the service (for callers that read its ledger) and the route.
 */
export function acsRoute(options: AcsRouteOptions): { service: AcsService; route: DataPlaneRoute } {
  const service = createAcsService({
    engine: options.engine,
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.version ? { version: options.version } : {}),
    ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
    ...(options.maxDepth ? { maxDepth: options.maxDepth } : {}),
    ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}),
    ...(options.ledgerTimeoutMs ? { ledgerTimeoutMs: options.ledgerTimeoutMs } : {}),
    ...(options.onAnswerChanged ? { onAnswerChanged: options.onAnswerChanged } : {}),
    ...(options.approver ? { approver: options.approver } : {}),
    ...(options.ocsfEnabled !== undefined ? { ocsfEnabled: options.ocsfEnabled } : {}),
  })
  const route: DataPlaneRoute = (body, { tenant, onCallerGone }) => {
    const answer = service.answerBody(
      body,
      typeof tenant === 'string' ? { tenant, onCallerGone } : { onCallerGone },
    )
    return answer instanceof Promise ? answer.then(service.replyText) : service.replyText(answer)
  }
  return { service, route }
}

/**
 * The `acs` server options for `warden serve`: the `acs:` section resolved (keys opened from
 * the secret store or the environment) and, when the store is a database, the shared ledger.
 * @throws WardenError `invalid-config` naming the field or the missing secret.
 */
export function acsServerOptions(
  rawSection: unknown,
  secrets: SecretOpener | undefined,
  databaseLocation: string | undefined,
  env: Record<string, string | undefined> = process.env,
): { settings: AcsSettings; ledger?: SqlAcsLedger } {
  const settings = resolveAcsSettings(rawSection, secrets, env)
  return databaseLocation ? { settings, ledger: openAcsLedger(databaseLocation) } : { settings }
}
