// Two `warden serve` instances on one real PostgreSQL count a hook's breaker failures
// together: with the default threshold of 5, three failures on one instance and two on the
// other open the breaker, on both instances (not after 5 on each), and each tenant's
// failures are counted apart. A reset through hooks.toggle closes it everywhere.

import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'
import {
  aos,
  type Loose,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  WsClient,
} from './management-helper.js'

const dir = tempDir('warden-breaker-cluster-')
let database: TestDatabase | undefined
let a: Served
let b: Served
let store: Store

const YAML = `
hooks:
  - name: fragile
    event: tool.pre
    matcher: "^fragile$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            return allow("checked " + payload["args"]["ticket"])
`

beforeAll(async () => {
  database = await postgresForTests()
  if (!database) return
  a = await serve({ dir, name: 'a', yaml: YAML, db: database.url })
  b = await serve({ dir, name: 'b', yaml: YAML, db: database.url })
  store = await storeAt(database.url)
}, 120_000)

afterAll(async () => {
  await store?.close()
  await a?.stop()
  await b?.stop()
  await database?.release()
})

/** A call of the fragile tool; without a ticket the hook fails. */
async function fragile(
  url: string,
  tenant: string,
  ticket?: string,
): Promise<{ decision: string; message: string }> {
  const answer = await aos(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: {
          executionId: `e-${randomUUID()}`,
          toolId: 'fragile',
          inputs: ticket ? [{ name: 'ticket', value: ticket }] : [],
        },
        context: { agent: { id: 'agent-1', name: 'agent' }, session: { id: 's-1' } },
      },
    },
    { 'x-warden-tenant': tenant },
  )
  const result = answer.body.result as Loose
  return { decision: result.decision, message: String(result.message ?? '') }
}

/** Waits until the failures written so far are in the store (written on failure, in the background). */
async function settled(tenant: string, count: number): Promise<void> {
  await expect.poll(() => failuresOf(tenant), { timeout: 5000 }).toBe(count)
}

async function failuresOf(tenant: string): Promise<number> {
  const client = new pg.Client({ connectionString: database?.url })
  await client.connect()
  try {
    const rows = await client.query('select times from breaker_failures where hook_id = $1 and tenant = $2', [
      'fragile',
      tenant,
    ])
    const times = rows.rows[0]?.times as string | undefined
    return times ? (JSON.parse(times) as number[]).length : 0
  } finally {
    await client.end()
  }
}

describe('a breaker counted across two instances on PostgreSQL', () => {
  it('opens after 5 failures in all (3 on one instance, 2 on the other), on both, for that tenant only', async (ctx) => {
    if (!database) return ctx.skip()
    for (let i = 0; i < 3; i++) expect((await fragile(a.url, 'acme')).decision).toBe('deny')
    await settled('acme', 3)
    expect((await fragile(b.url, 'acme')).decision).toBe('deny')
    await settled('acme', 4)
    expect((await fragile(b.url, 'acme')).decision).toBe('deny')
    for (const instance of [a, b]) {
      await expect
        .poll(async () => (await fragile(instance.url, 'acme', 'T-1')).message, { timeout: 5000 })
        .toMatch(/circuit breaker is open .* after 5 failures/)
    }
    // The other tenant's calls still run the hook, on both instances.
    for (const instance of [a, b])
      expect((await fragile(instance.url, 'globex', 'T-2')).decision).toBe('allow')

    // hooks.toggle on turns it back on everywhere.
    const admin = await WsClient.connect(a.url, (await token(store, 'admin')).token)
    try {
      await admin.ok('hooks.toggle', { id: 'fragile', enabled: true })
    } finally {
      admin.close()
    }
    for (const instance of [a, b]) {
      await expect
        .poll(async () => (await fragile(instance.url, 'acme', 'T-3')).decision, { timeout: 5000 })
        .toBe('allow')
    }
  }, 60_000)
})
