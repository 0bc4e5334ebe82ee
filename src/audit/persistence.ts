// Everything a long-running Warden needs to persist, opened in one call: the store named by
// --db / WARDEN_DATABASE_URL / warden.yaml `db:` (default SQLite file), the audit writer
// per the `audit:` setting, shared breaker state, metrics, and the sync that makes hooks
// stored in the database join the engine. Background problems (a batch that failed, a
// decision whose record was refused) are counted in the metrics and logged. `close`
// flushes the audit trail, then closes.

import { resolve } from 'node:path'
import type { BreakerOptions, DecisionRecord, Engine, JsonObject, Recorder } from '../core/index.js'
import { activeTraceId, createMetrics, type Logger, type WardenMetrics } from '../observability/index.js'
import { createSecretBox, DEFAULT_KEY_FILE } from '../secrets/index.js'
import {
  DEFAULT_SQLITE_PATH,
  type HookSync,
  openStore,
  openStoreBreakerState,
  resolveDatabaseLocation,
  type SecretBox,
  type Store,
  type StoreBreakerState,
  syncHooksFromStore,
} from '../store/index.js'
import { createDropReporter, describeDrops } from './drops.js'
import { auditOptionsFromSetting } from './options.js'
import { createRedactor, type Redactor } from './redact.js'
import { type AuditWriter, createAuditWriter } from './writer.js'

/** Options of {@link openPersistence}. */
export interface PersistenceOptions {
  /** `--db` from the command line. */
  db?: string | undefined
  /** warden.yaml's raw sections (`db`, `audit`, `limits.breaker`). */
  config?: Record<string, unknown> | undefined
  breaker?: Partial<BreakerOptions> | undefined
  /**
   * GoClaw's breaker: a trip also switches the hook off in the store (`enabled = false`,
   * as hooks.list shows it) until hooks.toggle turns it back on.
   */
  disableOnTrip?: boolean
  env?: NodeJS.ProcessEnv
  cwd?: string
  /**
   * Told about background problems (a batch that failed, a stored hook that is invalid,
   * decisions whose audit record was refused) when no `logger` is given.
   */
  onError?: (error: Error) => void
  /** Logs background problems as JSON: errors, and a warning for refused audit records. */
  logger?: Logger | undefined
  /** Where the hooks came from, recorded with every decision (replay loads the same). */
  sources?: JsonObject | undefined
}

/** An open persistence layer. */
export interface Persistence {
  store: Store
  /**
   * Where the store is, for modules that open their own connection to it: the PostgreSQL URL
   * (with its credentials) or the SQLite file's absolute path; undefined for `:memory:`.
   */
  location: string | undefined
  writer: AuditWriter
  breaker: StoreBreakerState
  metrics: WardenMetrics
  /** The engine's recorder: audit trail and metrics (hand it redacted records, see `redactor`). */
  recorder: Recorder
  /**
   * `audit.redact` (defaults on): wrap the outermost recorder with `redactingRecorder` so
   * the audit rows, pushes and logs all get the redacted copy; undefined when it is off.
   */
  redactor: Redactor | undefined
  /** Registers stored hooks in the engine and follows changes. */
  attach(engine: Engine): Promise<HookSync>
  /** The syncs started by {@link Persistence.attach}. */
  syncs(): readonly HookSync[]
  /** Writes the audit queue, stops following changes, closes the store. */
  close(): Promise<void>
}

/** The secret box from WARDEN_SECRET_KEY or the key file (relative paths from `cwd`). */
export function secretBoxFrom(env: NodeJS.ProcessEnv, cwd?: string): SecretBox {
  const keyFile = env.WARDEN_SECRET_KEY_FILE ?? DEFAULT_KEY_FILE
  return createSecretBox({ env, keyFile: cwd ? resolve(cwd, keyFile) : keyFile })
}

/**
 * Opens the store, the audit writer, breaker state and metrics.
 * @throws StoreError or Error with a message saying what to change (bad URL, bad `audit:`).
 */
export async function openPersistence(options: PersistenceOptions = {}): Promise<Persistence> {
  const env = options.env ?? process.env
  const config = options.config ?? {}
  const auditOptions = auditOptionsFromSetting(config.audit)
  const redactor = createRedactor(
    typeof config.audit === 'object' && config.audit !== null
      ? (config.audit as { redact?: unknown }).redact
      : undefined,
  )
  const secrets = secretBoxFrom(env, options.cwd)
  const location = resolveDatabaseLocation({
    flag: options.db,
    env,
    config: typeof config.db === 'string' ? config.db : undefined,
  })
  const store = await openStore(location, { secrets, ...(options.cwd ? { cwd: options.cwd } : {}) })
  const { logger } = options
  const report = (error: Error) => {
    if (logger) logger.error({ err: error }, error.message)
    else options.onError?.(error)
  }
  const breaker = await openStoreBreakerState(store, {
    ...(options.breaker ? { breaker: options.breaker } : {}),
    ...(options.disableOnTrip ? { disableOnTrip: true } : {}),
    onError: report,
  })
  const metrics = createMetrics()
  const drops = createDropReporter({
    count: (drop) => metrics.auditDropped(drop),
    warn(summary) {
      const message = describeDrops(summary)
      if (logger) logger.warn({ audit: summary }, message)
      else options.onError?.(new Error(message))
    },
  })
  const writer = createAuditWriter(store, {
    ...auditOptions,
    ...(options.sources ? { sources: options.sources } : {}),
    secrets,
    traceId: activeTraceId,
    onError(error) {
      metrics.auditWriteFailed()
      report(error)
    },
    onDrop: drops.drop,
  })
  metrics.watchAuditQueue(() => writer.queueDepth())
  const syncs: HookSync[] = []
  return {
    store,
    location: connectableLocation(location, options.cwd),
    writer,
    breaker,
    metrics,
    recorder: countedAsAnswered(writer, metrics.recorder),
    redactor,
    async attach(engine) {
      const sync = await syncHooksFromStore(engine, store, { onError: report })
      syncs.push(sync)
      return sync
    },
    syncs: () => syncs,
    async close() {
      for (const sync of syncs) sync.stop()
      try {
        await writer.close()
        await breaker.close()
      } finally {
        drops.close()
        await store.close()
      }
    },
  }
}

function connectableLocation(location: string | undefined, cwd: string | undefined): string | undefined {
  const where = location ?? DEFAULT_SQLITE_PATH
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(where)) return where
  const file = where.replace(/^sqlite:/i, '')
  return file === ':memory:' ? undefined : resolve(cwd ?? process.cwd(), file)
}

/**
 * Hands each decision to the audit writer, then to the metrics with the answer the caller
 * got: a blocking decision whose record the writer refused was denied by the engine, and
 * is counted as that deny, not as what the hooks decided.
 */
function countedAsAnswered(writer: Recorder, metrics: Recorder): Recorder {
  const refused = (record: DecisionRecord, error: unknown): never => {
    const { decision } = record
    if (decision.blocking) void metrics.record({ ...record, decision: { ...decision, decision: 'deny' } })
    else void metrics.record(record)
    throw error
  }
  return {
    record(record) {
      let written: void | Promise<void>
      try {
        written = writer.record(record)
      } catch (error) {
        return refused(record, error)
      }
      if (!written) return metrics.record(record)
      return written.then(
        () => metrics.record(record),
        (error: unknown) => refused(record, error),
      )
    },
    breakerTripped(trip, hook) {
      void metrics.breakerTripped?.(trip, hook)
      return writer.breakerTripped?.(trip, hook)
    },
  }
}
