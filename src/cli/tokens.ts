// `warden tokens create|list|revoke`: access tokens for the management API (`/ws`) and,
// with `server.auth: token`, for `/aos`. The secret is printed once; the store keeps only
// its hash. Uses the same --db / --config resolution as `warden serve`.

import { createAccessToken, TOKEN_ROLES } from '../server/index.js'
import type { Store, TokenRole, TokenRow } from '../store/index.js'
import { parseArgs } from './args.js'
import { openConfiguredStore } from './decisions.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden tokens <create|list|revoke> [options]

  warden tokens create --name N [--tenant T] [--role ROLE] [--json]
      Creates a token and prints its secret once. ROLE is one of:
        admin     everything (the default)
        editor    read, create/update/delete/toggle/test hooks, replay decisions
        approver  read, resolve approvals
        viewer    read only: hooks, history, decisions, approvals, live pushes
        agent     /aos only (with server.auth: token); its tenant is pinned
      A token without --tenant is the master scope: global hooks and every tenant.
  warden tokens list [--json]
  warden tokens revoke ID
      Revokes a token; its open /ws connections are closed within a second.

options:
  --db URL            postgres://… or a SQLite file (default: WARDEN_DATABASE_URL, the
                      config's db:, else .warden/warden.db)
  -c, --config FILE   warden.yaml (for its db: setting)
  -h, --help          this text

examples:
  warden tokens create --name alice --role approver
  warden tokens create --name ci-bot --role agent --tenant acme --json
  warden tokens revoke 9f1c2a7b3d4e5f60
`

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      tenant: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean' },
      db: { type: 'string' },
      config: { type: 'string', short: 'c' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

type Values = ReturnType<typeof parse>['values']

function listing(rows: TokenRow[]): string {
  if (rows.length === 0) return 'no tokens\n'
  const lines = rows.map((r) =>
    [
      r.id,
      r.name.padEnd(20),
      r.role.padEnd(8),
      (r.tenant ?? '(all)').padEnd(12),
      new Date(r.createdAt).toISOString(),
      r.revokedAt !== undefined ? `revoked ${new Date(r.revokedAt).toISOString()}` : 'active',
    ].join('  '),
  )
  return `${['id'.padEnd(16), 'name'.padEnd(20), 'role'.padEnd(8), 'tenant'.padEnd(12), 'created'.padEnd(24), 'state'].join('  ')}\n${lines.join('\n')}\n`
}

async function act(
  action: string,
  positionals: string[],
  values: Values,
  store: Store,
  io: CliIo,
): Promise<number> {
  if (action === 'create') {
    if (!values.name) throw new Error('create needs --name, e.g. --name ci-bot')
    const role = (values.role ?? 'admin') as TokenRole
    if (!TOKEN_ROLES.includes(role))
      throw new Error(`--role must be one of ${TOKEN_ROLES.join(', ')} (got "${values.role}")`)
    const created = await createAccessToken(store, { name: values.name, tenant: values.tenant, role })
    if (values.json) {
      io.stdout(
        `${JSON.stringify({ id: created.id, token: created.token, name: created.row.name, role, tenant: created.row.tenant ?? null })}\n`,
      )
    } else {
      io.stdout(
        `created token ${created.id} (${role}${created.row.tenant ? `, tenant ${created.row.tenant}` : ', every tenant'})\n${created.token}\n` +
          'Keep it now: it is not shown again.\n',
      )
    }
    return 0
  }
  if (action === 'list') {
    const rows = await store.listTokens()
    const shown = rows.map(({ hash: _hash, ...row }) => row)
    io.stdout(values.json ? shown.map((r) => `${JSON.stringify(r)}\n`).join('') : listing(rows))
    return 0
  }
  if (action === 'revoke') {
    const id = positionals[0]
    if (!id) throw new Error('revoke needs the token id, e.g. warden tokens revoke 3f9a…')
    if (!(await store.revokeToken(id, Date.now()))) {
      io.stderr(`warden tokens: no active token "${id}"\n`)
      return 1
    }
    io.stdout(`revoked token ${id}\n`)
    return 0
  }
  throw new Error(`unknown action "${action}"; use create, list or revoke`)
}

/** Runs `warden tokens`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(args)
  } catch (error) {
    io.stderr(`warden tokens: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  const [action, ...rest] = parsed.positionals
  if (parsed.values.help || !action) {
    io.stdout(HELP)
    return parsed.values.help ? 0 : 1
  }
  if (!['create', 'list', 'revoke'].includes(action)) {
    io.stderr(`warden tokens: unknown action "${action}"; use create, list or revoke\n`)
    return 1
  }
  let store: Store
  try {
    store = await openConfiguredStore(parsed.values.db, parsed.values.config, io)
  } catch (error) {
    io.stderr(`warden tokens: ${(error as Error).message}\n`)
    return 1
  }
  try {
    return await act(action, rest, parsed.values, store, io)
  } catch (error) {
    io.stderr(`warden tokens: ${(error as Error).message}\n`)
    return 1
  } finally {
    await store.close()
  }
}
