// `warden serve [--port 7070] [--host 127.0.0.1] [--config warden.yaml]`: runs the AOS
// Guardian server (POST /aos, GET /healthz) over the configured hooks and remote
// Guardians, prints its URL and a curl to try, and shuts down gracefully on SIGTERM/SIGINT.
// Decisions are recorded in the store (--db), hooks stored there join the config's, and
// Prometheus metrics are served on GET /metrics.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import {
  openPersistence,
  type Persistence,
  redactingRecorder,
  secretBoxFrom,
  sourcesRecord,
} from '../audit/index.js'
import { DEFAULT_LIMITS, type HookDefinition } from '../core/index.js'
import type { TokenLedger } from '../handlers/index.js'
import {
  type InFlightLimiter,
  inFlightLimiterFor,
  registerInFlightMetrics,
  settleAfterBursts,
} from '../inflight/index.js'
import {
  BudgetWatch,
  createLogger,
  metricsPlugin,
  registerApprovalMetrics,
  securityLogRecorder,
  traceEngine,
} from '../observability/index.js'
import {
  acsServerOptions,
  createServer,
  installShutdown,
  LISTEN_DEFAULTS,
  listen,
  longestHoldMs,
  readinessPlugin,
  SERVER_DEFAULTS,
  SIGNIN_LINK_TTL_MS,
  uiPlugin,
  withToken,
} from '../server/index.js'
import {
  allowedHostsOf,
  attachHookDir,
  breakerDisablesOnTrip,
  buildEngine,
  formatProblem,
  type HookDirWatcher,
  hookDirsOrHarness,
  loadConfig,
  loadHookSources,
  type WardenConfig,
} from '../sources/index.js'
import type { CliIo } from './io.js'
import { HELP, parseServeArgs } from './serve-args.js'
import { startupBanner } from './serve-banner.js'
import { exposureProblem, managementDataDir, planeFailure, setupManagement } from './serve-management.js'
import { type ServeOutputs, setupOutputs } from './serve-outputs.js'

/** Longest wait for the audit trail's last records at shutdown, after requests are done. */
const AUDIT_FLUSH_DEADLINE_MS = 30_000

interface ServerSection {
  port?: number
  host?: string
  bodyLimitBytes?: number
  maxBatch?: number
  maxDepth?: number
  shutdownTimeoutMs?: number
  auth?: 'token' | 'none'
  maxInFlight?: number
  maxInFlightBytes?: number
  idleTimeoutMs?: number
  allowedHosts?: string[]
}

/** Runs `warden serve`; resolves with the exit code once the server has shut down. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseServeArgs>
  try {
    parsed = parseServeArgs(args)
  } catch (error) {
    io.stderr(`warden serve: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (parsed.values.help) {
    io.stdout(HELP)
    return 0
  }
  let config: WardenConfig | undefined
  const configPath = ((given) => (given ? resolve(io.cwd, given) : undefined))(
    parsed.values.config ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? 'warden.yaml' : undefined),
  )
  try {
    if (configPath) config = await loadConfig(configPath)
  } catch (error) {
    io.stderr(`warden serve: ${(error as Error).message}\n`)
    return 1
  }
  const where = (paths: string[] | undefined) => (paths ?? []).map((p) => resolve(io.cwd, p))
  const hookDirs = hookDirsOrHarness(where(parsed.values.hooks), io.cwd)
  let fileHooks: HookDefinition[] = []
  let tenantTokenBudgets: Record<string, number> | undefined
  const { 'claude-settings': claudeSettings, profile: profiles, goclaw } = parsed.values
  if (claudeSettings?.length || profiles?.length || goclaw?.length) {
    const report = await loadHookSources({
      claudeSettings: where(claudeSettings),
      profiles: where(profiles),
      goclaw: where(goclaw),
      env: io.env,
      ...(config ? { config } : {}),
    })
    for (const warning of report.warnings) io.stderr(`warden serve: warning: ${formatProblem(warning)}\n`)
    if (report.problems.length > 0) {
      for (const problem of report.problems) io.stderr(`warden serve: ${formatProblem(problem)}\n`)
      return 1
    }
    fileHooks = report.hooks
    tenantTokenBudgets = report.tokenBudgets
  }
  const section = (config?.raw.server ?? {}) as ServerSection
  const port =
    parsed.values.port === undefined ? (section.port ?? LISTEN_DEFAULTS.port) : Number(parsed.values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.stderr(`warden serve: --port must be a whole number from 0 to 65535 (got "${parsed.values.port}")\n`)
    return 1
  }
  const host = parsed.values.host ?? section.host ?? LISTEN_DEFAULTS.host
  let inFlight: InFlightLimiter
  let allowedHosts: string[] | undefined
  try {
    allowedHosts = allowedHostsOf(config, parsed.values['allowed-host'])
    inFlight = inFlightLimiterFor(section, 'server', {
      bytes: section.bodyLimitBytes ?? SERVER_DEFAULTS.bodyLimitBytes,
      setting: 'server.bodyLimitBytes',
    })
  } catch (error) {
    io.stderr(`warden serve: ${(error as Error).message}\n`)
    return 1
  }
  const exposed = exposureProblem(host, section.auth, parsed.values['insecure-no-auth'] === true)
  if (exposed) {
    io.stderr(`warden serve: ${exposed}\n`)
    return 1
  }
  // Background problems (audit writes, refused records, internal errors) as JSON lines on
  // stderr, secrets redacted; the start-up lines above and below stay for people.
  const logger = createLogger({
    ...(io.env.WARDEN_LOG_LEVEL ? { level: io.env.WARDEN_LOG_LEVEL } : {}),
    destination: { write: (line: string) => void io.stderr(line) },
  })
  // limits.breaker.disableOnTrip: GoClaw's breaker, a trip switches the hook off in the store.
  const disableOnTrip = breakerDisablesOnTrip(config)
  let persistence: Persistence
  try {
    persistence = await openPersistence({
      logger,
      sources: sourcesRecord({
        ...(configPath ? { config: configPath } : {}),
        goclaw: where(goclaw),
        hooks: hookDirs,
        claudeSettings: where(claudeSettings),
        profiles: where(profiles),
      }),
      db: parsed.values.db,
      config: config?.raw,
      breaker: config?.limits.breaker,
      disableOnTrip,
      env: io.env,
      cwd: io.cwd,
    })
  } catch (error) {
    io.stderr(`warden serve: ${(error as Error).message}\n`)
    return 1
  }
  let engine: ReturnType<typeof buildEngine> | undefined
  const watchers: HookDirWatcher[] = []
  const reportError = (error: Error) => logger.error({ err: error }, error.message)
  const dataDir = managementDataDir(config, persistence.location, io.cwd)
  // notifications: and ocsf: (both off the decision path).
  let outputs: ServeOutputs
  try {
    outputs = setupOutputs({ config, persistence, logger, env: io.env, cwd: io.cwd })
  } catch (error) {
    await persistence.close().catch(() => undefined)
    io.stderr(`warden serve: ${(error as Error).message}\n`)
    return 1
  }
  const plane = setupManagement({
    config,
    persistence,
    env: io.env,
    dataDir,
    engine: () => engine as ReturnType<typeof buildEngine>,
    onError: reportError,
    ...(outputs.notifier ? { onApproval: outputs.notifier.approvalRequested } : {}),
  })
  if (plane) registerApprovalMetrics(persistence.metrics.registry, () => plane.broker.holding())
  const allowCommandHooks = (config?.raw.management as { allowCommandHooks?: boolean } | undefined)
    ?.allowCommandHooks
  try {
    const budget = new BudgetWatch({
      chainBudgetMs: config?.limits?.chainBudgetMs ?? DEFAULT_LIMITS.chainBudgetMs,
      warn: (message, fields) => logger.warn({ ...fields, budget: true }, message),
    })
    const recorder = budget.recorder(
      outputs.recorder(plane ? plane.recorder(persistence.recorder) : persistence.recorder),
    )
    engine = buildEngine(config, {
      // audit.redact: the audit rows, the /ws pushes and the security log get the redacted copy.
      recorder: redactingRecorder(
        persistence.redactor,
        securityLogRecorder(logger, recorder, { disableOnTrip }),
      ),
      ...(plane ? { approver: plane.approver, storedCommandHooks: allowCommandHooks === true } : {}),
      breaker: persistence.breaker,
      env: io.env,
      dataDir,
      extraHooks: fileHooks,
      tokenLedger: storeTokenLedger(persistence),
      ...(tenantTokenBudgets ? { tenantTokenBudgets } : {}),
    })
    await persistence.attach(engine)
    persistence.metrics.watchHooks(engine)
    for (const dir of hookDirs) {
      const attached = await attachHookDir(engine, dir, {
        onReport: ({ change, refused }) => {
          for (const file of change.broken)
            io.stderr(`warden serve: ${file} is broken; its previous version stays in force\n`)
          for (const problem of [...change.problems, ...refused])
            io.stderr(`warden serve: ${formatProblem(problem)}\n`)
          if (change.updated.length || change.removed.length) {
            io.stderr(
              `warden serve: reloaded ${dir}: ${change.updated.length} updated, ${change.removed.length} removed\n`,
            )
          }
        },
      })
      watchers.push(attached.watcher)
      const problems = [...attached.initial.problems, ...attached.refused]
      for (const warning of attached.initial.warnings)
        io.stderr(`warden serve: warning: ${formatProblem(warning)}\n`)
      if (problems.length > 0) {
        for (const problem of problems) io.stderr(`warden serve: ${formatProblem(problem)}\n`)
        throw new Error(`the hook folder ${dir} has problems; fix them and start again`)
      }
    }
    engine = traceEngine(engine)
    try {
      await plane?.attach(engine, engine.handlerTypes())
    } catch (error) {
      throw new Error(planeFailure(error))
    }
  } catch (error) {
    for (const watcher of watchers) watcher.close()
    await plane?.close().catch(() => undefined)
    await outputs.close().catch(() => undefined)
    await engine?.close().catch(() => undefined)
    await persistence.close().catch(() => undefined)
    io.stderr(`warden serve: ${(error as Error).message}\n`)
    return 1
  }
  let acs: ReturnType<typeof acsServerOptions>
  try {
    const rawAcs = config?.raw.acs
    const sealed = JSON.stringify(rawAcs ?? {}).includes('wsec:v1:')
    acs = acsServerOptions(
      rawAcs,
      sealed ? secretBoxFrom(io.env, io.cwd) : undefined,
      persistence.location,
      io.env,
    )
  } catch (error) {
    await plane?.close().catch(() => undefined)
    await engine.close().catch(() => undefined)
    await persistence.close().catch(() => undefined)
    io.stderr(`warden serve: ${(error as Error).message}\n`)
    return 1
  }
  const authenticate =
    section.auth === 'token' && plane
      ? (authorization: string | undefined, query: unknown) => plane.authenticate(authorization, query)
      : undefined
  inFlight.holdAlso('audit records not yet written', () => persistence.writer.heldBytes())
  registerInFlightMetrics(persistence.metrics.registry, inFlight)
  settleAfterBursts(inFlight)
  const app = await createServer({
    engine,
    acs: {
      ...acs,
      ledgerTimeoutMs: persistence.writer.syncTimeoutMs,
      onAnswerChanged: (correction) => persistence.writer.correct(correction),
      ...(plane ? { approver: plane.approver } : {}),
      // ACS-Trace: the ServerHello says OCSF is emitted when ocsf: is on.
      ocsfEnabled: outputs.ocsf !== undefined,
    },
    ...(allowedHosts ? { allowedHosts } : {}),
    inFlight,
    timeouts: {
      holdMs: longestHoldMs(config?.limits ?? {}),
      ...(section.idleTimeoutMs ? { idleTimeoutMs: section.idleTimeoutMs } : {}),
    },
    ...(section.bodyLimitBytes ? { bodyLimitBytes: section.bodyLimitBytes } : {}),
    ...(section.maxBatch ? { maxBatch: section.maxBatch } : {}),
    ...(section.maxDepth ? { maxDepth: section.maxDepth } : {}),
    plugins: [
      // Under server.auth: token, /metrics needs a token too (any role).
      authenticate
        ? withToken(authenticate, metricsPlugin(persistence.metrics))
        : metricsPlugin(persistence.metrics),
      readinessPlugin({
        ping: () => persistence.store.ping(),
        queueDepth: () => persistence.writer.queueDepth(),
        maxQueue: persistence.writer.maxQueue,
      }),
      ...(plane ? [(app: FastifyInstance) => plane.plugin(app), uiPlugin] : []),
    ],
    ...(authenticate ? { authenticate } : {}),
    onInternalError: (error) =>
      logger.error(error instanceof Error ? error : { err: String(error) }, 'internal error'),
  })
  let url: string
  try {
    url = await listen(app, { port, host })
  } catch (error) {
    await engine.close()
    await persistence.close().catch(() => undefined)
    io.stderr(`warden serve: cannot listen on ${host}:${port}: ${(error as Error).message}\n`)
    return 1
  }
  const local = url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://[::1]:')
  // First start (no admin token yet): a one-time link signs the operator in to the UI.
  const firstStart = plane ? await plane.signInLinks.firstStart().catch(() => false) : false
  io.stdout(
    startupBanner({
      url,
      local,
      hooks: engine.hooks().length,
      configPath: config?.path,
      ui: plane !== undefined,
      tokenAuth: authenticate !== undefined,
      signInCode: firstStart ? plane?.signInLinks.issue() : undefined,
      signInMinutes: SIGNIN_LINK_TTL_MS / 60_000,
    }),
  )
  return new Promise((done) => {
    installShutdown({
      app,
      engine,
      ...(section.shutdownTimeoutMs ? { timeoutMs: section.shutdownTimeoutMs } : {}),
      onSignal: (signal) =>
        io.stderr(`warden serve: ${signal}: finishing requests in flight, then exiting\n`),
      exit(code) {
        for (const watcher of watchers) watcher.close()
        const closed = Promise.all([
          plane?.close().catch(() => undefined),
          acs.ledger?.close().catch(() => undefined),
          outputs.close().catch(() => undefined),
        ])
        closed
          .then(() => persistence.close())
          .then(
            () => done(code),
            (error: Error) => {
              io.stderr(`warden serve: ${error.message}\n`)
              done(1)
            },
          )
        // A database that cannot take the last records within the deadline must not pass
        // for a clean exit: say how many were left, and exit 1.
        setTimeout(() => {
          const left = persistence.writer.queueDepth()
          if (left > 0)
            logger.error(
              { audit: { unwritten: left } },
              `${left} audit record(s) were not written before the shutdown deadline`,
            )
          process.exit(left > 0 ? 1 : code)
        }, AUDIT_FLUSH_DEADLINE_MS).unref()
      },
    })
  })
}

/** The LLM judge's monthly token counts, kept in the store so every instance shares them. */
export function storeTokenLedger(persistence: Pick<Persistence, 'store'>): TokenLedger {
  return {
    used: async (tenant, month) =>
      (await persistence.store.getBudget(tenant, 'judge-tokens', month))?.used ?? 0,
    add: async (tenant, month, tokens) => {
      await persistence.store.addBudget(tenant, 'judge-tokens', month, tokens)
    },
  }
}
