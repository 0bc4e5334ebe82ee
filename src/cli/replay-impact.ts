// `warden replay --hook FILE [--since 7d]`: the impact of a new or changed hook on recorded
// history. The hook (a hook .md file, a YAML/JSON hook definition or a list of them, or a
// warden.yaml-style file with `hooks:`) replaces the hook of the same id among today's
// hooks (the config's and the database's), enforced even when it says `mode: shadow`; the
// recorded decisions of its events are replayed, newest first, and the ones that would be
// decided differently are counted by old → new decision and listed. Progress is shown on a
// terminal. Exit 0 nothing would change, 3 something would, 1 error.

import { readFile } from 'node:fs/promises'
import { dirname, extname, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { formatImpact, previewImpact } from '../audit/index.js'
import type { Engine, HookDefinition } from '../core/index.js'
import { formatProblem, loadConfig, loadHookFile } from '../sources/index.js'
import type { Store } from '../store/index.js'
import { parseSince } from './decisions.js'
import type { CliIo } from './io.js'

/** The impact flags of `warden replay`. */
export interface ImpactFlags {
  hook: string[]
  since?: string | undefined
  until?: string | undefined
  limit?: string | undefined
  tenant?: string | undefined
  json?: boolean | undefined
}

export const IMPACT_HELP = `impact of a hook change (instead of DECISION_ID):
  --hook FILE         the new or changed hook: a hook .md file, a YAML/JSON definition (or a
                      list, or a file with hooks:); may repeat. Replayed as enforced.
  --since WHEN        from when: 30m, 12h, 7d or an ISO 8601 time (default 7d)
  --until WHEN        up to when (default now)
  --limit N           most decisions replayed (default 100000)
  --tenant T          only this tenant's decisions
Exit code with --hook: 0 nothing would change, 3 some decisions would, 1 error.`

/** Reads the hook definitions of one --hook file. */
export async function readHookDefinitions(path: string): Promise<HookDefinition[]> {
  if (extname(path) === '.md') {
    const loaded = await loadHookFile(path)
    if (loaded.problems.length > 0 || !loaded.hook)
      throw new Error(loaded.problems.map(formatProblem).join('\n'))
    return [loaded.hook]
  }
  const data = parseYaml(await readFile(path, 'utf8'), { maxAliasCount: 100 }) as unknown
  if (data && typeof data === 'object' && !Array.isArray(data) && 'hooks' in data)
    return (await loadConfig(path)).hooks
  const list = Array.isArray(data) ? data : [data]
  return list.map((hook, i) => {
    if (!hook || typeof hook !== 'object' || Array.isArray(hook))
      throw new Error(`${path}: hook ${i + 1} must be a mapping with name, event and handler`)
    return { source: path, ...(hook as HookDefinition), handler: withBase(hook as HookDefinition, path) }
  })
}

/** A command hook's relative paths are resolved from the file's folder, as in warden.yaml. */
function withBase(hook: HookDefinition, path: string): HookDefinition['handler'] {
  const handler = hook.handler
  if (!handler || typeof handler !== 'object' || handler.type !== 'command') return handler
  return { baseDir: dirname(resolve(path)), ...handler }
}

/**
 * Runs the impact preview on an engine with today's hooks and prints it.
 * @returns the exit code.
 */
export async function runImpact(
  flags: ImpactFlags,
  io: CliIo,
  store: Store,
  engine: Engine,
): Promise<number> {
  const hooks: HookDefinition[] = []
  for (const file of flags.hook) hooks.push(...(await readHookDefinitions(resolve(io.cwd, file))))
  const events = new Set<string>()
  const tenants = new Set<string | undefined>()
  for (const hook of hooks) {
    const spec = engine.register({ ...hook, mode: 'enforce' }, { replace: true })
    events.add(spec.event)
    tenants.add(spec.scope.tenant)
  }
  const now = Date.now()
  const limit = flags.limit === undefined ? 100_000 : Number(flags.limit)
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`--limit must be a positive whole number (got "${flags.limit}")`)
  const tenant = flags.tenant ?? (tenants.size === 1 ? [...tenants][0] : undefined)
  const progress = io.isTTY === true && flags.json !== true
  const report = await previewImpact(store, engine, {
    since: parseSince(flags.since ?? '7d', now),
    until: flags.until === undefined ? now : parseSince(flags.until, now),
    events: [...events],
    limit,
    timeLimitMs: 10 * 60_000,
    maxEvents: 50,
    ...(tenant !== undefined ? { tenant } : {}),
    ...(progress ? { onProgress: (done: number) => io.stderr(`\rreplayed ${done} decisions…`) } : {}),
  })
  if (progress) io.stderr('\r\u001b[K')
  io.stdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatImpact(report))
  return report.changed > 0 ? 3 : 0
}
