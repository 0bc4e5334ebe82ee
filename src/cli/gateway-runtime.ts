// What a gateway command (`warden llm`, `warden a2a`) sets up around its server, built once:
// the config (./warden.yaml when present), the `--hooks` folders, the audit store and its
// metrics, the approvals of held asks, the traced engine, the limits in flight (counting the
// audit records not yet written), the default context (`--agent`, `--tenant`) and, under
// `server.auth: token`, the token authority. Closing releases them in order.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { openPersistence, type Persistence, redactingRecorder } from '../audit/index.js'
import type { Engine, EventContext, Recorder } from '../core/index.js'
import {
  type InFlightLimiter,
  inFlightLimiterFor,
  registerInFlightMetrics,
  settleAfterBursts,
} from '../inflight/index.js'
import { createLogger, type Logger, traceEngine } from '../observability/index.js'
import { TokenAuthority } from '../server/index.js'
import { allowedHostsOf, buildEngine, loadConfig, type WardenConfig } from '../sources/index.js'
import { type GatewayApprovals, gatewayApprovals } from './gateway-approvals.js'
import { loadGatewayHookDirs } from './hook-sources.js'
import type { CliIo } from './io.js'

/** The command-line values every gateway command takes. */
export interface GatewayCommandValues {
  config?: string | undefined
  hooks?: string[] | undefined
  db?: string | undefined
  'allowed-host'?: string[] | undefined
  agent?: string | undefined
  tenant?: string | undefined
}

/** The limits a gateway's in-flight bound is derived from. */
export interface GatewayBodyLimits {
  maxBodyBytes: number
  maxInFlight?: number
  maxInFlightBytes?: number
}

/** How to set up a gateway command. */
export interface GatewayRuntimeOptions<L extends GatewayBodyLimits> {
  /** The settings section, e.g. `llm` (named in messages). */
  section: string
  values: GatewayCommandValues
  io: CliIo
  /** Reads the command's limits from the loaded config. */
  limitsOf(config: WardenConfig | undefined): L
  log(line: string): void
  /** Wraps the audit recorder (e.g. to add the let-through reason codes of the gateway's calls). */
  wrapRecorder?: (recorder: Recorder) => Recorder
}

/** What a gateway command runs with. */
export interface GatewayRuntime<L extends GatewayBodyLimits> {
  config: WardenConfig | undefined
  allowedHosts: readonly string[] | undefined
  limits: L
  engine: Engine
  persistence: Persistence
  inFlight: InFlightLimiter
  /** The default context (`--agent`, `--tenant`). */
  context: EventContext
  /** Under `server.auth: token`: the authority verifying callers' tokens. */
  tokens: TokenAuthority | undefined
  /** The structured logger (security events). */
  logger: Logger
  /** Releases the approvals, then the gateway (when given), the tokens, the engine and the store. */
  close(gateway?: { close(): Promise<void> }): Promise<void>
}

/**
 * Sets up a gateway command; on failure releases what it had opened.
 * @throws Error (or WardenError) naming what is wrong in the config, hooks or store.
 */
export async function openGatewayRuntime<L extends GatewayBodyLimits>(
  options: GatewayRuntimeOptions<L>,
): Promise<GatewayRuntime<L>> {
  const { io, values, log } = options
  let persistence: Persistence | undefined
  let approvals: GatewayApprovals | undefined
  let engine: Engine | undefined
  try {
    const configPath =
      values.config ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? 'warden.yaml' : undefined)
    const config = configPath ? await loadConfig(resolve(io.cwd, configPath)) : undefined
    const allowedHosts = allowedHostsOf(config, values['allowed-host'])
    const limits = options.limitsOf(config)
    const extraHooks = await loadGatewayHookDirs(values.hooks, io, config, log)
    const logger = createLogger({ destination: { write: (line: string) => void io.stderr(line) } })
    persistence = await openPersistence({
      logger,
      db: values.db,
      config: config?.raw,
      breaker: config?.limits.breaker,
      env: io.env,
      cwd: io.cwd,
    })
    approvals = await gatewayApprovals(config, persistence, log)
    const traced = traceEngine(
      buildEngine(config, {
        recorder: (options.wrapRecorder ?? ((recorder: Recorder) => recorder))(
          redactingRecorder(persistence.redactor, persistence.recorder),
        ),
        approver: approvals.approver,
        breaker: persistence.breaker,
        env: io.env,
        extraHooks,
      }),
    )
    engine = traced
    persistence.metrics.watchHooks(traced)
    const inFlight = inFlightLimiterFor(limits, options.section, {
      bytes: limits.maxBodyBytes,
      setting: `${options.section}.maxBodyBytes`,
    })
    const audit = persistence.writer
    inFlight.holdAlso('audit records not yet written', () => audit.heldBytes())
    registerInFlightMetrics(persistence.metrics.registry, inFlight)
    settleAfterBursts(inFlight)
    const context: EventContext = {}
    if (values.agent) context.agent = { id: values.agent, name: values.agent }
    if (values.tenant) context.tenantId = values.tenant
    const tokens =
      (config?.raw.server as { auth?: string } | undefined)?.auth === 'token'
        ? new TokenAuthority(persistence.store)
        : undefined
    const store = persistence
    const held = approvals
    return {
      config,
      allowedHosts,
      limits,
      engine: traced,
      persistence: store,
      inFlight,
      context,
      tokens,
      logger,
      async close(gateway) {
        await held.close()
        await gateway?.close()
        tokens?.close()
        await traced.close()
        await store.close()
      },
    }
  } catch (error) {
    await approvals?.close()
    await engine?.close().catch(() => undefined)
    await persistence?.close().catch(() => undefined)
    throw error
  }
}

/**
 * An `http:` or `https:` URL given on the command line.
 * @throws Error naming the flag.
 */
export function httpUrlOption(text: string, flag: string): URL {
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new Error(`${flag} must be an http or https URL (got "${text}")`)
  return url
}

/**
 * The `--port` to listen on (0, any free port, when not given).
 * @throws Error when it is not a whole number from 0 to 65535.
 */
export function portOption(text: string | undefined): number {
  if (text === undefined) return 0
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be a whole number from 0 to 65535 (got "${text}")`)
  return port
}
