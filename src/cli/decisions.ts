// `warden decisions [--db URL] [--config warden.yaml] [--tenant T] [--since 1h|ISO]
// [--decision deny] [--event tool.pre] [--limit 50] [--json]`: lists recent decisions from
// the audit store, newest first.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { loadConfig } from '../sources/index.js'
import type { DecisionQuery, DecisionRow } from '../store/index.js'
import { openStore, redactLocation, resolveDatabaseLocation } from '../store/index.js'
import { parseArgs } from './args.js'
import type { CliIo } from './io.js'
import { decisionColour, formatTable, styleFor } from './style.js'

const HELP = `usage: warden decisions [options]

Lists recent decisions from the audit store, newest first.

options:
  --db URL            postgres://… or a SQLite file (default: WARDEN_DATABASE_URL, the
                      config's db:, else .warden/warden.db)
  -c, --config FILE   warden.yaml (for its db: setting)
  --tenant T          only this tenant's decisions
  --since WHEN        only decisions since WHEN: 30s, 15m, 2h, 7d or an ISO 8601 time
  --decision KIND     allow, deny, modify or ask
  --event NAME        only this event (canonical name, e.g. tool.pre)
  --limit N           at most N decisions (default 50)
  --json              one JSON object per line instead of a table
  -h, --help          this text

examples:
  warden decisions --decision deny --since 2h
  warden decisions --tenant acme --event tool.pre --limit 20 --json | jq .reason
`

const DECISIONS = new Set(['allow', 'deny', 'modify', 'ask'])

/** Parses `--since`: a duration back from now (30s, 15m, 2h, 7d) or an ISO time. */
export function parseSince(text: string, now = Date.now()): number {
  const duration = /^(\d+)(s|m|h|d)$/.exec(text)
  if (duration) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as 's' | 'm' | 'h' | 'd']
    return now - Number(duration[1]) * unit
  }
  const time = Date.parse(text)
  if (Number.isNaN(time))
    throw new Error(`--since must be a duration such as 15m, 2h, 7d or an ISO 8601 time (got "${text}")`)
  return time
}

/** Decisions as an aligned table (colour on a terminal), newest first; the reason fits the width. */
export function decisionsTable(rows: DecisionRow[], io: Pick<CliIo, 'env' | 'isTTY' | 'columns'>): string {
  if (rows.length === 0) return 'no decisions\n'
  const style = styleFor(io)
  const body = rows.map((r) => [
    style.dim(new Date(r.createdAt).toISOString().replace('T', ' ').slice(0, 19)),
    r.id,
    r.tenant || '-',
    r.event,
    decisionColour(style, r.decision),
    `${r.durationMs.toFixed(1)} ms`,
    r.reason.replace(/\s+/g, ' '),
  ])
  const header = ['time (UTC)', 'id', 'tenant', 'event', 'decision', 'took', 'reason']
  return formatTable(header, body, { style, width: io.columns ?? 160 })
}

/** Runs `warden decisions`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parse>['values']
  try {
    values = parse(args).values
  } catch (error) {
    io.stderr(`warden decisions: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (values.help) {
    io.stdout(HELP)
    return 0
  }
  const query: DecisionQuery = {}
  try {
    if (values.tenant !== undefined) query.tenant = values.tenant
    if (values.since !== undefined) query.since = parseSince(values.since)
    if (values.decision !== undefined) {
      if (!DECISIONS.has(values.decision))
        throw new Error(`--decision must be allow, deny, modify or ask (got "${values.decision}")`)
      query.decision = values.decision
    }
    if (values.event !== undefined) query.event = values.event
    if (values.limit !== undefined) {
      const limit = Number(values.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new Error(`--limit must be a whole number from 1 to 10000 (got "${values.limit}")`)
      query.limit = limit
    }
  } catch (error) {
    io.stderr(`warden decisions: ${(error as Error).message}\n`)
    return 1
  }
  let store: Awaited<ReturnType<typeof openStore>>
  try {
    store = await openConfiguredStore(values.db, values.config, io)
  } catch (error) {
    io.stderr(`warden decisions: ${(error as Error).message}\n`)
    return 1
  }
  try {
    const rows = await store.listDecisions(query)
    io.stdout(values.json ? rows.map((r) => `${JSON.stringify(r)}\n`).join('') : decisionsTable(rows, io))
    return 0
  } catch (error) {
    io.stderr(
      `warden decisions: cannot read ${redactLocation(store.location)}: ${(error as Error).message}\n`,
    )
    return 1
  } finally {
    await store.close()
  }
}

/** Opens the store named by --db, WARDEN_DATABASE_URL or the config's db: setting. */
export async function openConfiguredStore(db: string | undefined, configPath: string | undefined, io: CliIo) {
  const path = configPath ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? 'warden.yaml' : undefined)
  const config = path ? await loadConfig(resolve(io.cwd, path)) : undefined
  const fromConfig = typeof config?.raw.db === 'string' ? config.raw.db : undefined
  return openStore(resolveDatabaseLocation({ flag: db, env: io.env, config: fromConfig }), { cwd: io.cwd })
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: false,
    options: {
      db: { type: 'string' },
      config: { type: 'string', short: 'c' },
      tenant: { type: 'string' },
      since: { type: 'string' },
      decision: { type: 'string' },
      event: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
