// An agent cannot stall the audit trail of a `warden serve` on PostgreSQL with a value the
// database refuses: a tool name and an agent id holding a NUL (which PostgreSQL refuses in
// text) used to fail their audit batch at every retry, taking every later decision of every
// tenant down with it (the queue filled, then blocking decisions were denied). The hostile
// decision is recorded with U+FFFD in place of the NUL, and the next caller's decision is
// recorded too.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { aos, type Served, serve, storeAt, tempDir, toolCall } from '../server/management-helper.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = tempDir('warden-poison-')
let database: TestDatabase | undefined
let served: Served | undefined
let store: Store | undefined

const YAML = `
audit: { intervalMs: 20 }
hooks:
  - name: guard
    event: tool.pre
    handler: { type: allow }
`

beforeAll(async () => {
  database = await postgresForTests()
  if (!database) return
  served = await serve({ dir, name: 'poison', yaml: YAML, db: database.url })
  store = await storeAt(database.url)
}, 120_000)

afterAll(async () => {
  await store?.close()
  await served?.stop()
  await database?.release()
})

/** The decisions stored so far, polled until `count` are there (bounded by the test's timeout). */
async function storedDecisions(count: number) {
  for (;;) {
    const rows = (await store?.listDecisions({ limit: 100 })) ?? []
    if (rows.length >= count) return rows
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('a NUL in an agent-supplied name on PostgreSQL', () => {
  it('is stored as U+FFFD, and the decisions after it are still recorded', async (ctx) => {
    if (!database || !served) return ctx.skip()
    const hostile = toolCall('rm\u0000-rf', { path: '/\u0000' })
    hostile.params.context.agent.id = 'agent\u0000x'
    const first = await aos(served.url, hostile)
    expect(first.status).toBe(200)
    const next = await aos(served.url, toolCall('read_file', { path: '/tmp/a' }))
    expect(next.body.result.decision).toBe('allow')
    const rows = await storedDecisions(2)
    const tools = rows.map((r) => r.tool).sort()
    expect(tools).toEqual(['read_file', 'rm\ufffd-rf'])
    expect(rows.find((r) => r.tool === 'rm\ufffd-rf')?.agentId).toBe('agent\ufffdx')
  }, 30_000)
})
