// `POST /acs`: the ACS v0.1 Guardian over HTTP. Bodies are read raw, so bad UTF-8, bad
// JSON, deep nesting and bodies over the limit become JSON-RPC errors, as on `/aos`. A signed
// response goes out as the text it was signed over, not serialized a second time.

import type { FastifyInstance } from 'fastify'
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
import { type Authenticate, decisionTenant, refusedBodyType } from './front-door.js'
import { callerGone, rawBody, rawRpcScope, refusedEncoding } from './rpc-scope.js'

/** Settings of the `/acs` route. */
export interface AcsRouteOptions {
  engine: Engine
  settings?: AcsSettings
  ledger?: AcsLedger
  version?: string
  maxBatch?: number
  maxDepth?: number
  bodyLimitBytes: number
  onInternalError?: (error: unknown) => void
  /** Longest wait for one ledger call before the failure posture answers (`audit.syncTimeoutMs`). */
  ledgerTimeoutMs?: number
  /** Told when an answer differs from the recorded decision (the audit writer corrects it). */
  onAnswerChanged?: AcsServiceOptions['onAnswerChanged']
  /** The management plane's approver: requests outside a session's Intent can be put to it. */
  approver?: AcsServiceOptions['approver']
  /** Checks the caller like `/aos` does (`server.auth: token`). */
  authenticate?: Authenticate
  /** Whether decisions are emitted as OCSF events: announced in the ServerHello. Default false. */
  ocsfEnabled?: boolean
}

/**
 * Mounts `POST /acs` on the app.
 * @returns the service, for callers that read its ledger.
 */
export async function mountAcs(app: FastifyInstance, options: AcsRouteOptions): Promise<AcsService> {
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
  await app.register(async (scope) => {
    rawRpcScope(scope, options)
    scope.post('/acs', async (request, reply) => {
      if (refusedEncoding(request, reply) || refusedBodyType(request, reply)) return reply
      const caller = await decisionTenant(request, reply, options.authenticate)
      if (caller === undefined) return reply
      const { tenant } = caller
      const body = rawBody(request)
      const onCallerGone = callerGone(reply)
      const answer = await service.handleBody(
        body,
        tenant === undefined ? { onCallerGone } : { tenant, onCallerGone },
      )
      return reply
        .code(200)
        .header('content-type', 'application/json; charset=utf-8')
        .send(service.replyText(answer))
    })
  })
  return service
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
