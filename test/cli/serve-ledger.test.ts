// The LLM judge's monthly token budget is counted in the store under `warden serve`, so
// every instance and every restart sees the same totals, per tenant and month.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { storeTokenLedger } from '../../src/cli/serve.js'
import { openStore } from '../../src/store/index.js'

describe('store-backed token ledger', () => {
  it('adds up per tenant and month and survives reopening the store', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-ledger-')), 'w.db')
    const store = await openStore(file)
    const ledger = storeTokenLedger({ store })
    await ledger.add('acme', '2026-11', 120)
    await ledger.add('acme', '2026-11', 30)
    await ledger.add('globex', '2026-11', 7)
    expect(await ledger.used('acme', '2026-11')).toBe(150)
    expect(await ledger.used('acme', '2026-12')).toBe(0)
    await store.close()
    const reopened = await openStore(file)
    expect(await storeTokenLedger({ store: reopened }).used('acme', '2026-11')).toBe(150)
    expect(await storeTokenLedger({ store: reopened }).used('globex', '2026-11')).toBe(7)
    await reopened.close()
  })
})
