// The LLM judge's monthly token budget is counted in the store under `warden serve`, so
// every instance and every restart sees the same totals, per tenant and month: two stores
// open on one database add in turn (each with concurrent adds), on SQLite and on a real
// PostgreSQL.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeTokenLedger } from '../../src/cli/serve.js'
import { openStore } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-ledger-'))
let pgDb: TestDatabase | undefined
beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

const backends = [
  { name: 'sqlite', location: () => join(dir, 'w.db') },
  { name: 'postgres', location: () => pgDb?.url },
]

describe.each(backends)('store-backed token ledger on $name', ({ location }) => {
  it('adds up per tenant and month across instances and survives reopening the store', async (ctx) => {
    const where = location()
    if (!where) ctx.skip()
    const [one, two] = [await openStore(where!), await openStore(where!)]
    const [a, b] = [storeTokenLedger({ store: one }), storeTokenLedger({ store: two })]
    for (const ledger of [a, b, a, b, a]) {
      await Promise.all([10, 10, 10].map((tokens) => ledger.add('acme', '2026-11', tokens)))
    }
    await b.add('globex', '2026-11', 7)
    expect(await a.used('acme', '2026-11')).toBe(150)
    expect(await b.used('acme', '2026-11')).toBe(150)
    expect(await a.used('acme', '2026-12')).toBe(0)
    await Promise.all([one.close(), two.close()])
    const reopened = await openStore(where!)
    expect(await storeTokenLedger({ store: reopened }).used('acme', '2026-11')).toBe(150)
    expect(await storeTokenLedger({ store: reopened }).used('globex', '2026-11')).toBe(7)
    await reopened.close()
  })
})
