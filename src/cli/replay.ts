// `warden replay DECISION_ID [--db URL] [--config warden.yaml] [--tenant T] [--json]`:
// re-runs a recorded event against today's hooks (the config's and the database's) and
// prints the old and new decision side by side with the hooks that changed the outcome.
// Nothing is recorded and no shared breaker is touched. Exit 0 same, 3 different, 1 error.
// With --hook FILE, the impact of a hook change over a range of history (replay-impact.ts).

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { formatReplay, replayDecision, secretBoxFrom } from '../audit/index.js'
import type { HookDefinition } from '../core/index.js'
import { buildEngine, loadConfig, type WardenConfig } from '../sources/index.js'
import { loadHooksFromStore, openStore, resolveDatabaseLocation } from '../store/index.js'
import { parseArgs } from './args.js'
import type { CliIo } from './io.js'
import { IMPACT_HELP, runImpact } from './replay-impact.js'
import { replayHooks, SOURCE_OPTIONS, SOURCES_HELP } from './replay-sources.js'

const HELP = `usage: warden replay DECISION_ID [options]
       warden replay --hook FILE [--since 7d] [options]

Re-runs the recorded event of a decision against today's hooks and prints the recorded and
today's decision side by side, with the hooks whose verdict changed.
Exit code: 0 same decision, 3 different decision, 1 error.

options:
  --db URL            postgres://… or a SQLite file (as for warden serve)
  -c, --config FILE   warden.yaml with today's hooks (as for warden serve)
  --tenant T          only look the decision up among this tenant's
${SOURCES_HELP}
  --json              print the comparison as JSON
  -h, --help          this text

${IMPACT_HELP}

examples:
  warden decisions --decision deny --limit 1          # find a decision id
  warden replay 3f2a9c1e-17 --config warden.yaml      # would today's hooks decide the same?
  warden replay --hook hooks/no-curl.md --since 7d    # what would this hook change?
`

/** Runs `warden replay`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(args)
  } catch (error) {
    io.stderr(`warden replay: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.stdout(HELP)
    return 0
  }
  const id = positionals[0]
  const impact = values.hook !== undefined && values.hook.length > 0
  if (impact ? positionals.length > 0 : !id || positionals.length > 1) {
    io.stderr(`warden replay: give exactly one decision id (see "warden decisions")\n\n${HELP}`)
    return 1
  }
  let config: WardenConfig | undefined
  let store: Awaited<ReturnType<typeof openStore>>
  try {
    const path = values.config ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? 'warden.yaml' : undefined)
    if (path) config = await loadConfig(resolve(io.cwd, path))
    const fromConfig = typeof config?.raw.db === 'string' ? config.raw.db : undefined
    store = await openStore(resolveDatabaseLocation({ flag: values.db, env: io.env, config: fromConfig }), {
      cwd: io.cwd,
      secrets: secretBoxFrom(io.env, io.cwd),
    })
  } catch (error) {
    io.stderr(`warden replay: ${(error as Error).message}\n`)
    return 1
  }
  try {
    const today = await replayHooks(values, io, store, impact ? undefined : id, values.tenant, config)
    if (today.recorded) io.stderr(`warden replay: hooks from the decision's sources: ${today.recorded}\n`)
    const idOf = (h: HookDefinition) => (h.scope?.tenant ? `${h.scope.tenant}/${h.name}` : h.name)
    const fileIds = new Set([...(today.config?.hooks ?? []), ...today.hooks].map(idOf))
    const stored = (await loadHooksFromStore(store)).filter((h) => !fileIds.has(idOf(h)))
    const engine = buildEngine(today.config, { extraHooks: [...today.hooks, ...stored], env: io.env })
    try {
      if (impact) return await runImpact({ ...values, hook: values.hook ?? [] }, io, store, engine)
      const result = await replayDecision(store, engine, id as string, values.tenant)
      if (!result) {
        io.stderr(
          `warden replay: no decision "${id}"${values.tenant ? ` for tenant ${values.tenant}` : ''}\n`,
        )
        return 1
      }
      io.stdout(values.json ? `${JSON.stringify(result, null, 2)}\n` : formatReplay(result))
      return result.differs ? 3 : 0
    } finally {
      await engine.close()
    }
  } catch (error) {
    io.stderr(`warden replay: ${(error as Error).message}\n`)
    return 1
  } finally {
    await store.close()
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      config: { type: 'string', short: 'c' },
      tenant: { type: 'string' },
      ...SOURCE_OPTIONS,
      hook: { type: 'string', multiple: true },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
