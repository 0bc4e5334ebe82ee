// Wiring the file-based hook sources into a runtime: loading hook folders, Claude Code
// settings, agent.json profiles and GoClaw hook files together (what `warden check` and
// `warden serve` take as --hooks, --claude-settings, --profile and --goclaw), the settings of the script and profile-action
// handlers, and the WARDEN_DISABLE_HOOKS kill switch, which turns every hook off and says
// so on stderr each time an engine starts.

import type { Engine, HookDefinition, HookSpec } from '../core/index.js'
import type { ScriptHandlerOptions } from '../handlers/index.js'
import type { OutboundClient } from '../net/index.js'
import { loadClaudeSettings } from './claude-settings.js'
import type { WardenConfig } from './config.js'
import { loadGoclawHooks } from './goclaw.js'
import { duplicateHookProblems, loadHookDir } from './hook-files.js'
import { emptyReport, mergeReports, type SourceReport } from './hook-files-report.js'
import { loadProfile } from './profile.js'

/** The environment variable that turns every hook off. */
export const DISABLE_HOOKS_ENV = 'WARDEN_DISABLE_HOOKS'
/** The environment variable listing extra webhook URL prefixes (comma-separated). */
export const WEBHOOK_ALLOW_ENV = 'WARDEN_WEBHOOK_ALLOW'

/** Where file-based hooks come from. */
export interface HookSourceOptions {
  /** Folders of `*.md` hook files. */
  hookDirs?: readonly string[]
  /** Claude Code settings files. */
  claudeSettings?: readonly string[]
  /** loom agent.json profiles. */
  profiles?: readonly string[]
  /** GoClaw hook definition files (JSON or YAML). */
  goclaw?: readonly string[]
  /** The environment (WARDEN_ALLOW_COMMAND_HOOKS, WARDEN_WEBHOOK_ALLOW); default process.env. */
  env?: NodeJS.ProcessEnv
  /** The loaded warden.yaml, for `webhooks.allow`. */
  config?: WardenConfig
}

/**
 * Loads every file-based hook source and checks that hook names are unique across them and
 * the config. Never throws; the report's problems say what did not load.
 */
export async function loadHookSources(options: HookSourceOptions): Promise<SourceReport> {
  const report = emptyReport()
  const env = options.env ?? process.env
  for (const dir of options.hookDirs ?? []) {
    const loaded = await loadHookDir(dir)
    mergeReports(report, loaded)
  }
  const settings = options.claudeSettings ?? []
  for (const [i, path] of settings.entries()) {
    const prefix = settings.length > 1 ? `claude${i + 1}` : 'claude'
    mergeReports(report, await loadClaudeSettings(path, { prefix }))
  }
  const webhookAllow = webhookAllowList(options.config, env)
  for (const path of options.profiles ?? []) {
    mergeReports(report, await loadProfile(path, { env, webhookAllow }))
  }
  for (const path of options.goclaw ?? []) mergeReports(report, await loadGoclawHooks(path))
  report.problems.push(...duplicateHookProblems([...(options.config?.hooks ?? []), ...report.hooks]))
  return report
}

/** The webhook URL allowlist: `webhooks.allow` in warden.yaml plus WARDEN_WEBHOOK_ALLOW. */
export function webhookAllowList(
  config: WardenConfig | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const fromConfig = (config?.raw.webhooks as { allow?: unknown } | undefined)?.allow
  const list = Array.isArray(fromConfig) ? fromConfig.filter((u): u is string => typeof u === 'string') : []
  const fromEnv = (env[WEBHOOK_ALLOW_ENV] ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '')
  return [...list, ...fromEnv]
}

/**
 * The script handler's settings from `scripts:` in warden.yaml (`httpAllow`, `maxSteps`,
 * `maxWallTimeMs`); http.* goes through `client` (the shared one, with `network:`).
 */
export function scriptHandlerOptions(
  config: WardenConfig | undefined,
  client?: OutboundClient,
): ScriptHandlerOptions {
  const section = (config?.raw.scripts ?? {}) as Record<string, unknown>
  const options: ScriptHandlerOptions = client ? { client } : {}
  if (Array.isArray(section.httpAllow)) {
    options.httpAllow = section.httpAllow.filter((h): h is string => typeof h === 'string')
  }
  const limits: NonNullable<ScriptHandlerOptions['limits']> = {}
  if (typeof section.maxSteps === 'number') limits.maxSteps = section.maxSteps
  if (typeof section.maxWallTimeMs === 'number') limits.maxWallTimeMs = section.maxWallTimeMs
  if (Object.keys(limits).length > 0) options.limits = limits
  return options
}

/** Whether the kill switch is on. */
export function hooksDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[DISABLE_HOOKS_ENV]
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'
}

/** The warning printed on every start while the kill switch is on. */
export const KILL_SWITCH_WARNING = `warden: WARNING: ${DISABLE_HOOKS_ENV} is set: EVERY HOOK IS OFF and every action is allowed without checks. Unset ${DISABLE_HOOKS_ENV} to enforce your hooks again.\n`

/**
 * Applies the kill switch to a new engine: when WARDEN_DISABLE_HOOKS is set, every hook
 * (those registered now and later) is disabled, and the warning is written to stderr.
 */
export function applyKillSwitch(
  engine: Engine,
  options: { env?: NodeJS.ProcessEnv; warn?: (text: string) => void } = {},
): Engine {
  if (!hooksDisabled(options.env ?? process.env)) return engine
  ;(options.warn ?? ((text: string) => process.stderr.write(text)))(KILL_SWITCH_WARNING)
  for (const spec of engine.hooks()) engine.register(asDefinition(spec, false), { replace: true })
  return {
    ...engine,
    register(definition, registerOptions) {
      return engine.register({ ...definition, enabled: false }, registerOptions)
    },
  }
}

function asDefinition(spec: HookSpec, enabled: boolean): HookDefinition {
  const { id: _id, ...rest } = spec
  const definition: HookDefinition = { ...rest, enabled }
  if (Object.keys(spec.scope).length === 0) delete definition.scope
  return definition
}
