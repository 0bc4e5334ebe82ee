// `warden decisions` and `warden replay` in process, on SQLite and on a real PostgreSQL:
// filters by tenant, time and decision; the database named by --db, WARDEN_DATABASE_URL or
// the config's db:, as for `warden serve`; replay against today's hooks from the config and
// the database; clear errors for bad options.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuditWriter } from '../../src/audit/index.js'
import { run as decisions, parseSince } from '../../src/cli/decisions.js'
import type { CliIo } from '../../src/cli/io.js'
import { run as replay } from '../../src/cli/replay.js'
import { createEngine } from '../../src/index.js'
import { openStore } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-cli-audit-'))
const secretKey = Buffer.alloc(32, 9).toString('base64')
let pgDb: TestDatabase | undefined
beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

function io(env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' }
  const value: CliIo = {
    stdout: (t) => {
      out.stdout += t
    },
    stderr: (t) => {
      out.stderr += t
    },
    readStdin: async () => '',
    cwd: dir,
    env: { WARDEN_SECRET_KEY: secretKey, ...env },
  }
  return { io: value, out }
}

const exec = (cmd: string, tenantId: string) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd } } },
  context: { tenantId, requestId: `r-${cmd}` },
})

/** Records an old and a new denial for acme and an allow for globex; returns their ids. */
async function seed(location: string) {
  const store = await openStore(location, { cwd: dir })
  const writer = createAuditWriter(store, { mode: 'sync' })
  const engine = createEngine({
    hooks: [
      {
        name: 'no-rm',
        event: 'tool.pre',
        if: "tool_input.cmd.contains('rm')",
        handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'no rm' }) },
      },
    ],
    recorder: writer,
  })
  const old = await engine.dispatch(exec('rm old', 'acme'))
  const fresh = await engine.dispatch(exec('rm new', 'acme'))
  const other = await engine.dispatch(exec('ls', 'globex'))
  await writer.close()
  const access = store as unknown as {
    db: import('kysely').Kysely<{ decisions: { id: string; created_at: number } }>
  }
  await access.db
    .updateTable('decisions')
    .set({ created_at: Date.now() - 3 * 3_600_000 })
    .where('id', '=', old.id)
    .execute()
  await store.close()
  return { old: old.id, fresh: fresh.id, other: other.id }
}

const backends = [
  { name: 'sqlite', location: () => join(dir, 'cli.db') },
  { name: 'postgres', location: () => pgDb?.url },
]

describe.each(backends)('warden decisions and replay on $name', ({ name, location }) => {
  it('list by tenant, since and decision from --db, WARDEN_DATABASE_URL or the config', async (ctx) => {
    const where = location()
    if (!where) ctx.skip()
    const ids = await seed(where!)
    const json = async (args: string[], env?: NodeJS.ProcessEnv) => {
      const run = io(env)
      expect(await decisions([...args, '--json'], run.io), run.out.stderr).toBe(0)
      return run.out.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id as string)
    }
    expect(await json(['--db', where!, '--tenant', 'acme'])).toEqual([ids.fresh, ids.old])
    expect(await json(['--db', where!, '--tenant', 'acme', '--since', '1h'])).toEqual([ids.fresh])
    expect(await json(['--db', where!, '--decision', 'allow'])).toEqual([ids.other])
    expect(await json(['--tenant', 'globex'], { WARDEN_DATABASE_URL: where! })).toEqual([ids.other])
    const config = join(dir, `db-${name}.yaml`)
    writeFileSync(config, `db: ${JSON.stringify(where)}\nhooks: []\n`)
    expect(
      await json(['--config', config, '--tenant', 'acme', '--decision', 'deny', '--limit', '1']),
    ).toEqual([ids.fresh])

    const table = io()
    expect(await decisions(['--db', where!, '--tenant', 'acme'], table.io)).toBe(0)
    expect(table.out.stdout.split('\n')[0]).toMatch(
      /^time \(UTC\)\s+id\s+tenant\s+event\s+decision\s+took\s+reason/,
    )
    expect(table.out.stdout).toMatch(
      new RegExp(`${ids.fresh}\\s+acme\\s+tool\\.pre\\s+deny\\s+[0-9.]+ ms\\s+no rm`),
    )
  })

  it('replay against the config and the database hooks, within a tenant', async (ctx) => {
    const where = location()
    if (!where) ctx.skip()
    const { fresh } = await seed(where!)
    const config = join(dir, `replay-${name}.yaml`)
    writeFileSync(config, 'hooks: []\n')
    const changed = io()
    expect(await replay([fresh, '--db', where!, '--config', config], changed.io), changed.out.stderr).toBe(3)
    expect(changed.out.stdout).toMatch(/deny\s+allow/)
    expect(changed.out.stdout).toMatch(/no-rm\s+deny v1\s+-> \(absent\)/)

    const store = await openStore(where!, { cwd: dir })
    await store.putHook({
      name: 'no-rm',
      tenant: 'acme',
      event: 'tool.pre',
      if: "tool_input.cmd.contains('rm')",
      handler: { type: 'command', command: "sh -c 'echo stored says no >&2; exit 2'" },
    })
    await store.close()
    const same = io()
    expect(
      await replay([fresh, '--db', where!, '--config', config, '--json'], same.io),
      same.out.stderr,
    ).toBe(0)
    const result = JSON.parse(same.out.stdout)
    expect(result).toMatchObject({ differs: false, old: { decision: 'deny' }, new: { decision: 'deny' } })
    expect(result.hooks).toEqual([
      expect.objectContaining({
        hook: 'no-rm',
        changed: false,
        new: expect.objectContaining({ outcome: 'deny' }),
      }),
    ])

    const hidden = io()
    expect(await replay([fresh, '--db', where!, '--tenant', 'globex'], hidden.io)).toBe(1)
    expect(hidden.out.stderr).toContain(`no decision "${fresh}" for tenant globex`)
  })
})

describe('warden decisions options', () => {
  it('name what is wrong with --since, --decision and --limit', async () => {
    for (const [args, message] of [
      [
        ['--since', 'yesterday'],
        /--since must be a duration such as 15m, 2h, 7d or an ISO 8601 time \(got "yesterday"\)/,
      ],
      [['--decision', 'block'], /--decision must be allow, deny, modify or ask \(got "block"\)/],
      [['--limit', '0'], /--limit must be a whole number from 1 to 10000 \(got "0"\)/],
    ] as const) {
      const run = io()
      expect(await decisions([...args], run.io)).toBe(1)
      expect(run.out.stderr).toMatch(message)
    }
    expect(parseSince('2h', 10_000_000)).toBe(10_000_000 - 7_200_000)
    expect(parseSince('2026-05-20T00:00:00Z')).toBe(Date.parse('2026-05-20T00:00:00Z'))
  })
})
