// Which hooks `warden replay` replays against: the sources named by its flags (`--config`,
// `--goclaw`, `--hooks`, `--claude-settings`, `--profile`, as for `warden serve`), else the
// sources recorded with the decision by the `warden serve` that made it, else the config
// alone. Stored hooks are added by the caller.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { type HookSources, recordedSources, sourcesAsFlags } from '../audit/index.js'
import type { HookDefinition } from '../core/index.js'
import { formatProblem, loadConfig, loadHookSources, type WardenConfig } from '../sources/index.js'
import type { Store } from '../store/index.js'
import type { CliIo } from './io.js'

/** The flags naming hook sources, as `parseArgs` options. */
export const SOURCE_OPTIONS = {
  goclaw: { type: 'string', multiple: true },
  hooks: { type: 'string', multiple: true },
  'claude-settings': { type: 'string', multiple: true },
  profile: { type: 'string', multiple: true },
} as const

/** The help lines of {@link SOURCE_OPTIONS}. */
export const SOURCES_HELP = `  --hooks DIR         a folder of Markdown hook files (repeatable)
  --claude-settings F the hooks of a Claude Code settings file (repeatable)
  --profile FILE      the hooks of a loom agent.json profile (repeatable)
  --goclaw FILE       GoClaw hook definitions (repeatable)
                      Without --config and these, the sources the decision was made with
                      (recorded by warden serve) are loaded again.`

/** The flag values {@link replayHooks} reads. */
export interface SourceFlags {
  config?: string | undefined
  goclaw?: string[] | undefined
  hooks?: string[] | undefined
  'claude-settings'?: string[] | undefined
  profile?: string[] | undefined
}

/** Today's hooks from the sources a replay uses. */
export interface ReplayHooks {
  config: WardenConfig | undefined
  hooks: HookDefinition[]
  /** The recorded sources, as flags, when they were used. */
  recorded?: string
}

/**
 * Loads the hooks of the sources a replay of decision `id` uses.
 * @param config the config already loaded from `--config` or ./warden.yaml
 * @throws Error naming a source that does not load.
 */
export async function replayHooks(
  flags: SourceFlags,
  io: CliIo,
  store: Store,
  id: string | undefined,
  tenant: string | undefined,
  config: WardenConfig | undefined,
): Promise<ReplayHooks> {
  const where = (paths: string[] | undefined) => (paths ?? []).map((p) => resolve(io.cwd, p))
  let sources: HookSources = {
    goclaw: where(flags.goclaw),
    hooks: where(flags.hooks),
    claudeSettings: where(flags['claude-settings']),
    profiles: where(flags.profile),
  }
  const named = flags.config !== undefined || Object.values(sources).some((list) => list.length > 0)
  let recorded: string | undefined
  if (!named && id !== undefined) {
    const decision = await store.getDecision(id, tenant)
    const found = decision ? recordedSources(decision.input) : undefined
    if (found) {
      sources = found
      recorded = sourcesAsFlags(found)
      if (found.config && !existsSync(found.config))
        throw new Error(
          `the decision was made with --config ${found.config}, which is gone; name today's with --config`,
        )
      config = found.config ? await loadConfig(found.config) : undefined
    }
  }
  const report = await loadHookSources({
    hookDirs: sources.hooks ?? [],
    claudeSettings: sources.claudeSettings ?? [],
    profiles: sources.profiles ?? [],
    goclaw: sources.goclaw ?? [],
    env: io.env,
    ...(config ? { config } : {}),
  })
  if (report.problems.length > 0) throw new Error(report.problems.map(formatProblem).join('; '))
  return { config, hooks: report.hooks, ...(recorded ? { recorded } : {}) }
}
