// The hook sources of the one-shot commands (`warden check`, `warden test`): warden.yaml
// (the --config flag, else ./warden.yaml) and the hooks of --hooks folders, Claude Code
// settings and plugins, loom profiles and GoClaw files, loaded as `warden serve` loads them.

import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { HookDefinition } from '../core/index.js'
import {
  formatProblem,
  hookDirsOrHarness,
  loadConfig,
  loadHookSources,
  type WardenConfig,
} from '../sources/index.js'
import type { CliIo } from './io.js'

/** The source flags, as parsed. */
export interface SourceFlags {
  config?: string | undefined
  hooks?: string[] | undefined
  'claude-settings'?: string[] | undefined
  'claude-plugin'?: string[] | undefined
  profile?: string[] | undefined
  goclaw?: string[] | undefined
}

/** The options parseArgs needs for {@link SourceFlags}. */
export const SOURCE_OPTIONS = {
  config: { type: 'string', short: 'c' },
  hooks: { type: 'string', multiple: true },
  'claude-settings': { type: 'string', multiple: true },
  'claude-plugin': { type: 'string', multiple: true },
  profile: { type: 'string', multiple: true },
  goclaw: { type: 'string', multiple: true },
} as const

/** The help lines of the source flags. */
export const SOURCE_HELP = `  -c, --config FILE         warden.yaml (default: ./warden.yaml when there is one)
  --hooks DIR               a folder of Starlark hook files (*.md with YAML front matter);
                            default: ./.harness/hooks when there is one
  --claude-settings FILE    the "hooks" of a Claude Code settings.json (or a plugin's
                            hooks/hooks.json)
  --claude-plugin DIR       a Claude Code plugin folder: its hooks/hooks.json
  --profile FILE            the hook actions of a loom agent.json profile
  --goclaw FILE             GoClaw hook definitions (JSON or YAML; higher priority first)`

/** What the sources gave. */
export interface LoadedSources {
  config: WardenConfig | undefined
  extraHooks: HookDefinition[]
  tenantTokenBudgets?: Record<string, number>
}

/**
 * Loads the config and the hooks of the source flags; warnings go to stderr prefixed with
 * `label`.
 * @throws Error naming every problem (a bad config, hook file or settings file).
 */
export async function loadCliSources(flags: SourceFlags, io: CliIo, label: string): Promise<LoadedSources> {
  const configPath =
    flags.config ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? resolve(io.cwd, 'warden.yaml') : undefined)
  const config = configPath ? await loadConfig(resolve(io.cwd, configPath)) : undefined
  const { profile: profiles, goclaw } = flags
  // Without --hooks, the working folder's .harness/hooks/ (AI Harness's place) when present.
  const hookDirs = hookDirsOrHarness(flags.hooks, io.cwd)
  const claudeSettings = [
    ...(flags['claude-settings'] ?? []),
    ...(flags['claude-plugin'] ?? []).map((dir) => join(dir, 'hooks', 'hooks.json')),
  ]
  const loaded: LoadedSources = { config, extraHooks: [] }
  if (!hookDirs?.length && !claudeSettings.length && !profiles?.length && !goclaw?.length) return loaded
  const where = (paths: string[] | undefined) => (paths ?? []).map((p) => resolve(io.cwd, p))
  const report = await loadHookSources({
    hookDirs: where(hookDirs),
    claudeSettings: where(claudeSettings),
    profiles: where(profiles),
    goclaw: where(goclaw),
    env: io.env,
    ...(config ? { config } : {}),
  })
  for (const warning of report.warnings) io.stderr(`${label}: warning: ${formatProblem(warning)}\n`)
  if (report.problems.length > 0) throw new Error(report.problems.map(formatProblem).join(`\n${label}: `))
  loaded.extraHooks = report.hooks
  if (report.tokenBudgets) loaded.tenantTokenBudgets = report.tokenBudgets
  return loaded
}

/**
 * The hooks of the `--hooks` folders a gateway command was given (none when there are none):
 * warnings are logged, and any problem is thrown as one error naming every file.
 */
export async function loadGatewayHookDirs(
  dirs: readonly string[] | undefined,
  io: CliIo,
  config: WardenConfig | undefined,
  log: (line: string) => void,
): Promise<HookDefinition[]> {
  if (!dirs?.length) return []
  const report = await loadHookSources({
    hookDirs: dirs.map((d) => resolve(io.cwd, d)),
    env: io.env,
    ...(config ? { config } : {}),
  })
  for (const warning of report.warnings) log(`warning: ${formatProblem(warning)}`)
  if (report.problems.length > 0) throw new Error(report.problems.map(formatProblem).join('\n'))
  return report.hooks
}
