// GoClaw's hook_executions.metadata under Warden, on real stores (a SQLite file, written by
// its own thread, and PostgreSQL): each execution row holds what is known about the run —
// the matcher's and `if`'s results, a command's stdout size and exit code (a real child
// process), an http hook's status (a real loopback server), the judge's model and tokens (a
// loopback Chat Completions server) and the trace id — read back by hooks' history and a
// decision's executions. A database made before migration 0005 keeps its rows.

import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuditWriter } from '../../src/audit/index.js'
import type { HookDefinition } from '../../src/core/index.js'
import { commandHandler, createHttpHandler, createPromptHandler } from '../../src/handlers/index.js'
import { createEngine } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { type ExecutionMetadata, migrations, openStore } from '../../src/store/index.js'
import { decideAnswer, type FakeLlm, reply, startFakeLlm } from '../handlers/prompt-fake-llm.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-goclaw-audit-'))
const client = createOutboundClient({ allow: ['127.0.0.1'] })
let pgDb: TestDatabase | undefined
let llm: FakeLlm
let webhook: Server
let webhookUrl = ''

beforeAll(async () => {
  pgDb = await postgresForTests()
  llm = await startFakeLlm()
  llm.script = (_request, res) =>
    reply(res, decideAnswer({ decision: 'allow', reason: 'fine', injection_detected: false }, 77))
  webhook = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"decision":"allow"}')
    })
  })
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve))
  const address = webhook.address()
  webhookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`
})
afterAll(async () => {
  await client.close()
  await llm.close()
  await new Promise((resolve) => webhook.close(resolve))
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

const hooks = (): HookDefinition[] => [
  {
    name: 'cmd',
    event: 'tool.pre',
    matcher: '^exec$',
    if: "tool_input.cmd.startsWith('ls')",
    handler: { type: 'command', command: "printf 'hello'", shell: true },
  },
  { name: 'web', event: 'tool.pre', priority: 1, handler: { type: 'http', url: webhookUrl } },
  {
    name: 'judge',
    event: 'tool.pre',
    priority: 2,
    matcher: 'exec',
    handler: { type: 'prompt', prompt: 'Deny destructive commands.' },
  },
  {
    name: 'other-tool',
    event: 'tool.pre',
    priority: 3,
    matcher: '^write$',
    handler: { type: 'command', command: 'true' },
  },
  {
    name: 'not-ls',
    event: 'tool.pre',
    priority: 4,
    if: "tool_input.cmd.startsWith('rm')",
    handler: { type: 'command', command: 'true' },
  },
]

/** What each hook's metadata must hold (the trace id is added per backend). */
const expected: Record<string, ExecutionMetadata> = {
  cmd: { matcherMatched: true, ifResult: true, stdoutBytes: 5, exitCode: 0 },
  web: { httpStatus: 202 },
  judge: { matcherMatched: true, model: 'judge-model', tokens: 77, cached: false },
  'other-tool': { matcherMatched: false },
  'not-ls': { ifResult: false },
}

const backends = [
  { backend: 'sqlite', location: () => join(dir, 'audit.db') },
  { backend: 'postgres', location: () => pgDb?.url },
]

describe.each(backends)('hook execution metadata on $backend', ({ backend, location }) => {
  it('is written from the trace and read back by history and the decision', async (ctx) => {
    const where = location()
    if (!where) ctx.skip()
    const store = await openStore(where as string)
    const traceId = `trace-${backend}`
    const writer = createAuditWriter(store, { mode: 'sync', traceId: () => traceId })
    const engine = createEngine({
      hooks: hooks(),
      handlers: [
        commandHandler,
        createHttpHandler({ client }),
        createPromptHandler({ client, judge: { baseUrl: llm.baseUrl, model: 'judge-model' } }),
      ],
      recorder: writer,
    })
    try {
      const decision = await engine.dispatch({
        event: 'tool.pre',
        payload: { tool: { name: 'exec', input: { cmd: 'ls -la' } } },
        context: { tenantId: 'acme', session: { id: 's1' } },
      })
      expect(decision.decision, decision.reason).toBe('allow')
      const detail = await store.getDecision(decision.id)
      const byHook = Object.fromEntries((detail?.executions ?? []).map((e) => [e.hookName, e.metadata]))
      for (const [hook, metadata] of Object.entries(expected))
        expect(byHook[hook], hook).toEqual({ ...metadata, traceId })
      for (const [hook, metadata] of Object.entries(expected)) {
        const page = await store.listExecutions({ hookRef: hook, tenant: 'acme' })
        expect(page.rows[0]?.metadata, hook).toEqual({ ...metadata, traceId })
      }
    } finally {
      await engine.close()
      await writer.close()
      await store.close()
    }
  }, 30_000)
})

describe('a database made before 0005_hook_metadata', () => {
  it('keeps its execution rows (no metadata) and stores metadata after the upgrade', async () => {
    const file = join(dir, 'old.db')
    const old = Object.fromEntries(
      Object.entries(migrations('sqlite')).filter(([name]) => name < '0005_hook_metadata'),
    )
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) })
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => old },
      migrationTableName: 'warden_migrations',
      migrationLockTableName: 'warden_migrations_lock',
    })
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    const common = { tenant: '', event: 'tool.pre', decision: 'allow', reason: 'r', created_at: 1 }
    await db
      .insertInto('decisions' as never)
      .values({
        id: 'd-old',
        ...common,
        reason_code: '[]',
        deciding_hooks: '[]',
        policies: '[]',
        duration_ms: 1,
        blocking: 1,
        input: '{}',
        output: '{}',
      } as never)
      .execute()
    await db
      .insertInto('hook_executions' as never)
      .values({
        dedup_key: 'd-old:0',
        decision_id: 'd-old',
        tenant: '',
        hook_ref: 'h',
        hook_name: 'h',
        hook_version: 1,
        handler: 'command',
        decision: 'allow',
        duration_ms: 1,
        position: 0,
        created_at: 1,
      } as never)
      .execute()
    await db.destroy()

    const store = await openStore(file)
    try {
      expect(await store.schemaVersion()).toBe(Object.keys(migrations('sqlite')).length)
      const before = await store.listExecutions({ hookRef: 'h' })
      expect(before.rows).toHaveLength(1)
      expect(before.rows[0]?.metadata).toBeUndefined()
      await store.writeAudit({
        decisions: [],
        executions: [
          {
            dedupKey: 'd-old:1',
            decisionId: 'd-old',
            tenant: '',
            hookRef: 'h',
            hookName: 'h',
            hookVersion: 1,
            handler: 'command',
            decision: 'deny',
            durationMs: 2,
            position: 1,
            createdAt: 2,
            metadata: { exitCode: 2, stdoutBytes: 0 },
          },
        ],
        approvals: [],
      })
      const after = await store.listExecutions({ hookRef: 'h' })
      expect(after.rows.map((r) => r.metadata)).toEqual([{ exitCode: 2, stdoutBytes: 0 }, undefined])
    } finally {
      await store.close()
    }
  })
})
