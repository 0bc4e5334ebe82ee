// The decisions list's search and filters and the hooks list's activity, on SQLite and on a
// real PostgreSQL: tool, session, hook and free-text filters; LIKE wildcards taken
// literally; runs that were skipped left out of the activity; tenants kept apart.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toAuditRows } from '../../src/audit/index.js'
import type { DecisionRecord } from '../../src/core/index.js'
import { type AuditBatch, migrations, openStore, type Store } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'
import { testBox } from './helpers.js'

let pgDb: TestDatabase | undefined
let pgOld: TestDatabase | undefined
const dir = mkdtempSync(join(tmpdir(), 'warden-search-'))

beforeAll(async () => {
  pgDb = await postgresForTests()
  pgOld = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  await pgOld?.release()
  rmSync(dir, { recursive: true, force: true })
})

const NOW = Date.now()

/** One decision through the real row builder, with one run of `hook` (skipped or deny/allow). */
function decision(
  id: string,
  o: {
    tenant: string
    tool: string
    input: Record<string, unknown>
    session: string
    hook: string
    outcome: string
    at: number
  },
): AuditBatch {
  const record = {
    decision: {
      id,
      event: 'tool.pre',
      decision: o.outcome === 'deny' ? 'deny' : 'allow',
      reason: o.outcome === 'deny' ? `blocked by ${o.hook}` : '',
      reasonCode: [],
      policies: [],
      durationMs: 1,
      blocking: true,
      additionalContext: [],
      trace: [],
    },
    event: {
      event: 'tool.pre',
      payload: { tool: { name: o.tool, input: o.input } },
      context: { tenantId: o.tenant, agent: { id: 'agent-1' }, session: { id: o.session } },
    },
  } as unknown as DecisionRecord
  const rows = toAuditRows(record, { now: o.at })
  return {
    decisions: [rows.decision],
    executions: [
      {
        dedupKey: `${id}:0`,
        decisionId: id,
        tenant: o.tenant,
        hookRef: o.hook,
        hookName: o.hook,
        hookVersion: 1,
        handler: 'static',
        decision: o.outcome,
        durationMs: 1,
        position: 0,
        createdAt: o.at,
      },
    ],
    approvals: [],
  }
}

const backends = [
  { name: 'sqlite', open: async () => openStore(join(dir, 'search.db'), { secrets: testBox }) },
  {
    name: 'postgres',
    open: async () => (pgDb ? openStore(pgDb.url, { secrets: testBox, pollMs: 200 }) : undefined),
  },
]

describe.each(backends)('decision search on $name', ({ open }) => {
  let store: Store | undefined
  beforeAll(async () => {
    store = await open()
    if (!store) return
    const rows: AuditBatch[] = [
      decision('d1', {
        tenant: 'acme',
        tool: 'Bash',
        input: { command: 'rm -rf /srv' },
        session: 's1',
        hook: 'no-rm',
        outcome: 'deny',
        at: NOW - 3_600_000,
      }),
      decision('d2', {
        tenant: 'acme',
        tool: 'Read',
        input: { path: '100%_done.md' },
        session: 's1',
        hook: 'no-rm',
        outcome: 'skipped',
        at: NOW - 7_200_000,
      }),
      decision('d3', {
        tenant: 'acme',
        tool: 'Bash',
        input: { command: 'ls' },
        session: 's2',
        hook: 'no-rm',
        outcome: 'allow',
        at: NOW - 60_000,
      }),
      decision('d4', {
        tenant: 'globex',
        tool: 'Bash',
        input: { command: 'rm -rf /home' },
        session: 's1',
        hook: 'no-rm',
        outcome: 'deny',
        at: NOW - 120_000,
      }),
    ]
    for (const batch of rows) await store.writeAudit(batch)
  })
  afterAll(async () => {
    await store?.close()
  })

  const ids = async (query: Parameters<Store['listDecisions']>[0]) =>
    (await (store as Store).listDecisions(query)).map((d) => d.id)

  it('stores the tool of each decision and filters by it, by session and by hook', async (ctx) => {
    if (!store) return ctx.skip()
    const [first] = await store.listDecisions({ tenant: 'acme', limit: 1 })
    expect(first?.tool).toBe('Bash')
    expect(await ids({ tenant: 'acme', tool: 'Bash' })).toEqual(['d3', 'd1'])
    expect(await ids({ tenant: 'acme', sessionId: 's1' })).toEqual(['d1', 'd2'])
    // d2's run of no-rm was skipped (its condition was false): not a decision the hook ran in.
    expect(await ids({ tenant: 'acme', hook: 'no-rm' })).toEqual(['d3', 'd1'])
  })

  it('finds free text case-insensitively in the input, reason and ids, within the tenant', async (ctx) => {
    if (!store) return ctx.skip()
    expect(await ids({ tenant: 'acme', text: 'RM -RF' })).toEqual(['d1'])
    expect(await ids({ text: 'rm -rf' })).toEqual(['d4', 'd1'])
    expect(await ids({ tenant: 'acme', text: 'blocked by' })).toEqual(['d1'])
    expect(await ids({ tenant: 'acme', text: 'd3' })).toEqual(['d3'])
  })

  it('takes LIKE wildcards and quotes in the text literally', async (ctx) => {
    if (!store) return ctx.skip()
    expect(await ids({ tenant: 'acme', text: '%' })).toEqual(['d2'])
    expect(await ids({ tenant: 'acme', text: 'x%y' })).toEqual([])
    expect(await ids({ tenant: 'acme', text: '100%_' })).toEqual(['d2'])
    expect(await ids({ tenant: 'acme', text: '_' })).toEqual(['d2'])
    expect(await ids({ tenant: 'acme', text: "' or 1=1 --" })).toEqual([])
  })

  it('counts runs and denials per hook and bucket, leaving skipped runs out', async (ctx) => {
    if (!store) return ctx.skip()
    const since = NOW - 86_400_000
    const acme = await store.hookActivity({ since, until: NOW + 1, buckets: 24, tenant: 'acme' })
    expect(acme).toHaveLength(1)
    const hook = acme[0]
    expect(hook?.hookRef).toBe('no-rm')
    expect(hook?.runs).toBe(2)
    expect(hook?.denials).toBe(1)
    expect(hook?.runsByBucket.reduce((a, b) => a + b, 0)).toBe(2)
    expect(hook?.runsByBucket[23]).toBe(1)
    expect(hook?.denialsByBucket[22]).toBe(1)
    expect(hook?.lastRunAt).toBe(NOW - 60_000)
    const all = await store.hookActivity({ since, until: NOW + 1, buckets: 24 })
    expect(all[0]?.runs).toBe(3)
    expect(all[0]?.denials).toBe(2)
  })
})

describe('migration 0009 on a database with decisions', () => {
  /** Migrates a database as the release before 0009 did, and writes decisions the old way. */
  async function oldDatabase(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
    const before = Object.fromEntries(Object.entries(migrations(dialect)).filter(([name]) => name < '0009'))
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => before },
      migrationTableName: 'warden_migrations',
      migrationLockTableName: 'warden_migrations_lock',
    })
    const { error } = await migrator.migrateToLatest()
    if (error) throw error
    const payloads: [string, unknown][] = [
      ['old-tool', { tool: { name: 'Bash', input: { command: 'ls' } } }],
      ['old-mcp', { mcp: { message: {}, method: 'tools/list', direction: 'outbound' } }],
      ['old-none', { message: { role: 'user', text: 'hi \u0000 there' } }],
    ]
    for (const [id, payload] of payloads) {
      await db
        .insertInto('decisions' as never)
        .values({
          id,
          tenant: 't',
          event: 'tool.pre',
          decision: 'allow',
          reason: '',
          reason_code: '[]',
          deciding_hooks: '[]',
          policies: '[]',
          duration_ms: 1,
          blocking: 1,
          input: JSON.stringify({ event: 'tool.pre', payload, context: {} }),
          output: '{}',
          created_at: NOW,
        } as never)
        .execute()
    }
    await db.destroy()
  }

  const cases = [
    {
      name: 'sqlite',
      where: () => join(dir, 'old.db'),
      db: (where: string) =>
        new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(where) }) }),
    },
    {
      name: 'postgres',
      where: () => pgOld?.url,
      db: (where: string) =>
        new Kysely<unknown>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: where }) }),
        }),
    },
  ] as const

  it.each(cases)('takes the tool or method of older decisions from their input on $name', async (c) => {
    const where = c.where()
    if (!where) return
    await oldDatabase(c.db(where), c.name)
    const store = await openStore(where, { secrets: testBox })
    try {
      const tools = Object.fromEntries(
        (await store.listDecisions({ tenant: 't' })).map((d) => [d.id, d.tool ?? null]),
      )
      expect(tools).toEqual({ 'old-tool': 'Bash', 'old-mcp': 'tools/list', 'old-none': null })
      expect((await store.listDecisions({ tool: 'tools/list' })).map((d) => d.id)).toEqual(['old-mcp'])
    } finally {
      await store.close()
    }
  })
})
