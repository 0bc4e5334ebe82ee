// The composition root shared by the CLI commands: from a loaded config to the handler
// list and an engine. Each handler type that needs settings (network, judge, secrets)
// is wired here from its config section.

import type {
  Approver,
  BreakerState,
  Engine,
  HandlerFactory,
  HookDefinition,
  HookSpec,
  Recorder,
} from '../core/index.js'
import { CANONICAL_EVENTS, createEngine, WardenError } from '../core/index.js'
import {
  createDetectorHandler,
  createHttpHandler,
  createPromptHandler,
  createScriptHandler,
  type DetectorHandlerOptions,
  defaultHandlers,
  guardianHandler,
  guardiansHandler,
  judgeSettings,
  type ScriptHandlerOptions,
  type TokenLedger,
} from '../handlers/index.js'
import { createOutboundClient, networkOptions } from '../net/index.js'
import { aosEvents, createAcsGuardianHooks, createAosGuardianCodec } from '../protocols/index.js'
import { createSecretBox, DEFAULT_KEY_FILE } from '../secrets/index.js'
import type { WardenConfig } from './config.js'
import { applyKillSwitch, scriptHandlerOptions, webhookAllowList } from './hook-files-runtime.js'
import { createProfileActionHandler } from './profile-actions.js'

/** What a runtime needs besides the config. */
export interface RuntimeOptions {
  recorder?: Recorder
  approver?: Approver
  /** Hooks from other sources (hook files, settings files, the database). */
  extraHooks?: HookDefinition[]
  /** The hooks scripts may read with hooks.list() (default: the engine's own). */
  loadedHooks?: () => readonly HookSpec[]
  /** Handlers added by the caller (e.g. fn handlers of an embedder). */
  extraHandlers?: HandlerFactory[]
  /** Circuit breaker state (e.g. shared through the database). */
  breaker?: BreakerState
  /** Where the LLM judge counts tenants' monthly tokens (e.g. the database); default in memory. */
  tokenLedger?: TokenLedger
  /**
   * Monthly judge token budgets by tenant from hook sources (GoClaw's `budget_total`);
   * `judge.tenantBudgets` in warden.yaml wins for a tenant both name.
   */
  tenantTokenBudgets?: Readonly<Record<string, number>>
  env?: NodeJS.ProcessEnv
  /**
   * Whether `command` hooks stored in the database (made through the management API) may
   * run. When false, such a hook fails when it runs (its onError applies, deny by default)
   * with a message saying how to allow it. Default true (files and config are trusted).
   */
  storedCommandHooks?: boolean
  /**
   * The data folder (`management.dataDir`) where hooks made through the management API may
   * write files (`save_json`), each tenant in its own folder. Without it, such hooks are refused.
   */
  dataDir?: string
}

/** The `command` handler, refusing hooks that came from the database. */
function gatedCommandHandler(inner: HandlerFactory): HandlerFactory {
  return {
    ...inner,
    prepare(config, hook) {
      if (!hook.source?.startsWith('database:')) return inner.prepare(config, hook)
      return () => {
        throw new Error(
          'command hooks made through the management API are not allowed on this Warden (management.allowCommandHooks is false)',
        )
      }
    },
  }
}

/** The handler types a config enables. */
export function buildHandlers(
  _config: WardenConfig | undefined,
  options: RuntimeOptions = {},
): HandlerFactory[] {
  const handlers = defaultHandlers()
  {
    // detector: large scans of tenant hooks in worker threads of this runtime (detectors:).
    const at = handlers.findIndex((h) => h.type === 'detector')
    if (at >= 0) handlers[at] = createDetectorHandler({ isolation: detectorIsolationOptions(_config) })
  }
  // One outbound client (network: in warden.yaml) for every handler that calls out.
  const client = createOutboundClient(networkOptions(_config?.raw.network))
  {
    // http: webhooks; prompt: the LLM judge (judge: and WARDEN_JUDGE_*); secret headers are
    // sealed with WARDEN_SECRET_KEY or the key file (WARDEN_SECRET_KEY_FILE, .warden/secret.key).
    const env = options.env ?? process.env
    const secrets = () => createSecretBox({ env, keyFile: env.WARDEN_SECRET_KEY_FILE ?? DEFAULT_KEY_FILE })
    handlers.push(createHttpHandler({ client, secrets }))
    const judge = judgeSettings(_config?.raw.judge, env)
    if (options.tenantTokenBudgets)
      judge.tenantTokenBudgets = { ...options.tenantTokenBudgets, ...judge.tenantTokenBudgets }
    handlers.push(
      createPromptHandler({
        client,
        ...judge,
        ...(options.tokenLedger ? { ledger: options.tokenLedger } : {}),
      }),
    )
  }
  {
    // guardian / guardians: remote AOS Guardians, through the SSRF-checked outbound client.
    const codec = createAosGuardianCodec()
    const acs = createAcsGuardianHooks(client, options.env ?? process.env)
    handlers.push({ ...guardianHandler({ client, codec, acs }), close: () => client.close() })
    handlers.push(guardiansHandler({ client, codec }))
  }
  // script: Starlark hook files; profile-action: the declarative actions of agent.json profiles.
  const scriptOptions = scriptHandlerOptions(_config, client)
  const isolation = scriptIsolationOptions(_config)
  if (isolation) scriptOptions.isolation = isolation
  if (options.loadedHooks) scriptOptions.loadedHooks = options.loadedHooks
  handlers.push(createScriptHandler(scriptOptions))
  handlers.push(
    createProfileActionHandler({
      client,
      webhookAllow: webhookAllowList(_config, options.env),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    }),
  )
  for (const extra of options.extraHandlers ?? []) {
    const at = handlers.findIndex((h) => h.type === extra.type)
    if (at >= 0) handlers.splice(at, 1)
    handlers.push(extra)
  }
  if (options.storedCommandHooks === false) {
    const at = handlers.findIndex((h) => h.type === 'command')
    const command = handlers[at]
    if (command) handlers[at] = gatedCommandHandler(command)
  }
  return handlers
}

/**
 * Creates an engine from a config and the given extras.
 * @throws WardenError when a hook is invalid.
 */
export function buildEngine(config: WardenConfig | undefined, options: RuntimeOptions = {}): Engine {
  let engine: Engine
  // Scripts read the engine's hooks (hooks.list()) at run time, once the engine exists.
  const built: { engine?: Engine } = {}
  const loadedHooks = options.loadedHooks ?? (() => built.engine?.hooks() ?? [])
  try {
    engine = createEngine({
      hooks: [...(config?.hooks ?? []), ...guardianHooks(config), ...(options.extraHooks ?? [])],
      handlers: buildHandlers(config, { ...options, loadedHooks }),
      limits: config?.limits ?? {},
      ...(options.recorder ? { recorder: options.recorder } : {}),
      ...(options.approver ? { approver: options.approver } : {}),
      ...(options.breaker ? { breaker: options.breaker } : {}),
    })
  } catch (error) {
    throw locatedHookError(error, config)
  }
  built.engine = engine
  // WARDEN_DISABLE_HOOKS=1 turns every hook off, and says so on stderr at every start.
  return applyKillSwitch(engine, options.env ? { env: options.env } : {})
}

/** Runs after the usual local hooks, so a cheap local deny saves the network round trip. */
export const GUARDIANS_PRIORITY = 1000

/**
 * The hooks for `guardians:`: one per event AOS has a method for, consulting every listed
 * remote Guardian in parallel (any deny is a deny, modifies merge in declared order,
 * allow needs all).
 */
export function guardianHooks(config: WardenConfig | undefined): HookDefinition[] {
  const guardians = config?.raw.guardians
  if (!Array.isArray(guardians) || guardians.length === 0) return []
  const timeouts = guardians.map((g) => (g as { timeoutMs?: number }).timeoutMs ?? 5000)
  return aosEvents(CANONICAL_EVENTS).map((event) => ({
    name: `guardians:${event}`,
    event,
    priority: GUARDIANS_PRIORITY,
    timeoutMs: Math.max(...timeouts),
    source: config?.path ?? 'warden.yaml',
    handler: { type: 'guardians', guardians },
  }))
}

/**
 * A hook's error from the engine (`hook "NAME": …`) with the file, line and column of that
 * hook in warden.yaml before it, as hook-file errors have; other errors as they are.
 */
function locatedHookError(error: unknown, config: WardenConfig | undefined): unknown {
  if (!(error instanceof WardenError) || !config?.where) return error
  const name = /^hook "([^"]+)"/.exec(error.message)?.[1]
  const written = Array.isArray(config.raw.hooks) ? (config.raw.hooks as { name?: unknown }[]) : []
  const index = name === undefined ? -1 : written.findIndex((hook) => hook?.name === name)
  const where = index >= 0 ? config.where(['hooks', index]) : undefined
  return where ? new WardenError(error.code, `${where}: ${error.message}`, error.details) : error
}

/** Where tenant scripts run, from `scripts:` (isolate, workers, queue, sliceMs, workerNice), when any is set. */
function scriptIsolationOptions(config: WardenConfig | undefined): ScriptHandlerOptions['isolation'] {
  const section = (config?.raw.scripts ?? {}) as Record<string, unknown>
  const isolation: NonNullable<ScriptHandlerOptions['isolation']> = {}
  if (section.isolate === 'tenant' || section.isolate === 'all' || section.isolate === 'none')
    isolation.isolate = section.isolate
  for (const key of ['workers', 'queue', 'sliceMs'] as const) {
    const value = section[key]
    if (typeof value === 'number') isolation[key] = value
  }
  if (typeof section.workerNice === 'number') isolation.nice = section.workerNice
  return Object.keys(isolation).length > 0 ? isolation : undefined
}

/** Where large detector scans run, from `detectors:` (isolate, workers, queue, inlineChars, workerNice). */
function detectorIsolationOptions(config: WardenConfig | undefined): DetectorHandlerOptions['isolation'] {
  const section = (config?.raw.detectors ?? {}) as Record<string, unknown>
  const isolation: NonNullable<DetectorHandlerOptions['isolation']> = {}
  if (section.isolate === 'tenant' || section.isolate === 'all' || section.isolate === 'none')
    isolation.isolate = section.isolate
  for (const key of ['workers', 'queue', 'inlineChars'] as const) {
    const value = section[key]
    if (typeof value === 'number') isolation[key] = value
  }
  if (typeof section.workerNice === 'number') isolation.nice = section.workerNice
  return isolation
}
