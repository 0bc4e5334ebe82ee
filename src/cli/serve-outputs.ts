// What `warden serve` sends out besides its answers: `notifications:` (messages when
// something needs a person) and `ocsf:` (each decision as an OCSF event to a file and a
// collector). Both wrap the engine's recorder and work off the decision path.

import { type OcsfEmitter, ocsfEmitterFromConfig, type Persistence, secretBoxFrom } from '../audit/index.js'
import type { Recorder } from '../core/index.js'
import { type Notifier, notifierFromConfig } from '../notify/index.js'
import type { Logger } from '../observability/index.js'
import { SERVER_DEFAULTS } from '../server/index.js'
import type { WardenConfig } from '../sources/index.js'

/** Longest wait at shutdown for queued notifications and OCSF events. */
const OUTPUT_FLUSH_MS = 5_000

/** The notifier and the OCSF emitter of one server (each absent when not configured). */
export interface ServeOutputs {
  notifier?: Notifier
  ocsf?: OcsfEmitter
  /** Wraps the engine's recorder with whichever is configured. */
  recorder(inner: Recorder): Recorder
  /** Sends what is queued (bounded in time) and stops. */
  close(): Promise<void>
}

/**
 * Builds the outputs the config asks for.
 * @throws WardenError `invalid-config` naming the field (a bad route, a missing secret).
 */
export function setupOutputs(options: {
  config: WardenConfig | undefined
  persistence: Pick<Persistence, 'store' | 'metrics'>
  logger: Logger
  env: NodeJS.ProcessEnv
  cwd: string
}): ServeOutputs {
  const raw = options.config?.raw ?? {}
  const baseDir = options.config?.baseDir ?? options.cwd
  const box = () => secretBoxFrom(options.env, options.cwd)
  const registry = options.persistence.metrics.registry
  const log = {
    warn: (fields: Record<string, unknown>, message: string) => options.logger.warn(fields, message),
  }
  const notifier = notifierFromConfig({
    raw,
    env: options.env,
    baseDir,
    box,
    registry,
    log,
    isPending: async (id) => (await options.persistence.store.getApproval(id))?.status === 'pending',
  })
  let ocsf: OcsfEmitter | undefined
  try {
    ocsf = ocsfEmitterFromConfig({
      raw,
      env: options.env,
      baseDir,
      box,
      version: SERVER_DEFAULTS.version,
      registry,
      log,
    })
  } catch (error) {
    void notifier?.close(0)
    throw error
  }
  return {
    ...(notifier ? { notifier } : {}),
    ...(ocsf ? { ocsf } : {}),
    recorder(inner) {
      const notified = notifier ? notifier.recorder(inner) : inner
      return ocsf ? ocsf.recorder(notified) : notified
    },
    async close() {
      await Promise.all([notifier?.close(OUTPUT_FLUSH_MS), ocsf?.close(OUTPUT_FLUSH_MS)])
    },
  }
}
