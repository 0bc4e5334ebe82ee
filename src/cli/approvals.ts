// `warden approvals list|approve|reject ID [--comment ...]`: held asks from the terminal.
// A resolution is written to the store; the Warden holding the request hears of it through
// the change feed and answers the agent.

import { randomUUID } from 'node:crypto'
import { userInfo } from 'node:os'
import { type ApprovalRow, type ApprovalStatus, alreadySettled, type Store } from '../store/index.js'
import { parseArgs } from './args.js'
import { openConfiguredStore } from './decisions.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden approvals <list|approve|reject> [ID] [options]

  warden approvals list [--status pending|approved|rejected|expired|abandoned] [--tenant T] [--json]
  warden approvals approve ID [--comment TEXT] [--by NAME]
  warden approvals reject ID [--comment TEXT] [--by NAME]

options:
  --db URL            postgres://… or a SQLite file (default: WARDEN_DATABASE_URL, the
                      config's db:, else .warden/warden.db)
  -c, --config FILE   warden.yaml (for its db: setting)
  -h, --help          this text

examples:
  warden approvals list --config examples/warden.yaml
  warden approvals approve 3f2a9c1e-17 --comment "checked with the on-call" --by alice
  warden approvals reject 3f2a9c1e-17 --comment "not on a Friday"
`

const STATUSES = new Set(['pending', 'approved', 'rejected', 'expired', 'abandoned'])

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      tenant: { type: 'string' },
      comment: { type: 'string' },
      by: { type: 'string' },
      json: { type: 'boolean' },
      db: { type: 'string' },
      config: { type: 'string', short: 'c' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

function table(rows: ApprovalRow[]): string {
  if (rows.length === 0) return 'no approvals\n'
  const lines = rows.map((r) =>
    [
      r.id,
      r.status.padEnd(8),
      (r.tenant || '-').padEnd(10),
      (r.event ?? '-').padEnd(12),
      new Date(r.requestedAt).toISOString(),
      (r.asks ?? [])
        .map((a) => `${a.hook}: ${a.reason}`)
        .join('; ')
        .slice(0, 80),
    ].join('  '),
  )
  return `${['id', 'status', 'tenant', 'event', 'requested', 'asks'].join('  ')}\n${lines.join('\n')}\n`
}

function whoami(): string {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return 'cli'
  }
}

async function act(
  action: string,
  id: string | undefined,
  values: ReturnType<typeof parse>['values'],
  store: Store,
  io: CliIo,
): Promise<number> {
  if (action === 'list') {
    if (values.status !== undefined && !STATUSES.has(values.status)) {
      throw new Error(
        `--status must be pending, approved, rejected, expired or abandoned (got "${values.status}")`,
      )
    }
    const rows = await store.listApprovals({
      ...(values.status ? { status: values.status as ApprovalStatus } : {}),
      ...(values.tenant !== undefined ? { tenant: values.tenant } : {}),
    })
    io.stdout(values.json ? rows.map((r) => `${JSON.stringify(r)}\n`).join('') : table(rows))
    return 0
  }
  if (!id) throw new Error(`${action} needs the approval id (see warden approvals list)`)
  const by = values.by ?? whoami()
  const result = await store.resolveApproval(id, {
    status: action === 'approve' ? 'approved' : 'rejected',
    resolution: action === 'approve' ? 'approve' : 'reject',
    decidedBy: by,
    decidedAt: Date.now(),
    ...(values.comment ? { reason: values.comment } : {}),
  })
  if (!result) {
    io.stderr(`warden approvals: no approval "${id}"\n`)
    return 1
  }
  if (!result.resolved) {
    io.stderr(`warden approvals: ${alreadySettled(result.row)}\n`)
    return 1
  }
  await store.recordChange({
    id: randomUUID(),
    at: Date.now(),
    actor: 'cli',
    actorName: by,
    tenant: result.row.tenant,
    action: `approvals.${action}`,
    target: id,
    after: { status: result.row.status, ...(values.comment ? { comment: values.comment } : {}) },
  })
  io.stdout(`${action === 'approve' ? 'approved' : 'rejected'} ${id}\n`)
  return 0
}

/** Runs `warden approvals`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(args)
  } catch (error) {
    io.stderr(`warden approvals: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  const [action, id] = parsed.positionals
  if (parsed.values.help || !action) {
    io.stdout(HELP)
    return parsed.values.help ? 0 : 1
  }
  if (!['list', 'approve', 'reject'].includes(action)) {
    io.stderr(`warden approvals: unknown action "${action}"; use list, approve or reject\n`)
    return 1
  }
  let store: Store
  try {
    store = await openConfiguredStore(parsed.values.db, parsed.values.config, io)
  } catch (error) {
    io.stderr(`warden approvals: ${(error as Error).message}\n`)
    return 1
  }
  try {
    return await act(action, id, parsed.values, store, io)
  } catch (error) {
    io.stderr(`warden approvals: ${(error as Error).message}\n`)
    return 1
  } finally {
    await store.close()
  }
}
