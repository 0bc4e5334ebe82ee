// What the soak's postgres-freeze found, held in a quick test: in sync mode a database that
// stops answering does not hold decisions forever. A real SQLite store whose writes are held
// back (as a frozen server would hold them) makes dispatch deny once the writer's deadline
// passes, naming the cause; once the store answers, both rows are written as the deny their
// callers were told (the one already handed over is corrected, the queued one written so),
// and the writer works again.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createAuditWriter } from '../../src/audit/index.js'
import { createEngine } from '../../src/index.js'
import { openStore, type Store } from '../../src/store/index.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-soak-deadline-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const exec = (cmd: string) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd } } },
  context: { tenantId: 'acme', requestId: `r-${cmd}` },
})

it('sync: a store that stops answering is given up on after the deadline, and the decision denied', async () => {
  const store = await openStore(join(dir, 'frozen.db'))
  let frozen = true
  let thaw: () => void = () => undefined
  const thawed = new Promise<void>((resolve) => {
    thaw = resolve
  })
  const holding: Store = Object.create(store)
  holding.writeAudit = async (batch) => {
    if (frozen) await thawed
    return store.writeAudit(batch)
  }
  const writer = createAuditWriter(holding, { mode: 'sync', syncTimeoutMs: 300 })
  const engine = createEngine({
    hooks: [{ name: 'ok', event: 'tool.pre', handler: { type: 'allow' } }],
    recorder: writer,
  })

  const started = Date.now()
  const pending = engine.dispatch(exec('a'))
  // 'a' is handed to the store (and held there); 'b' waits in the queue behind it
  await new Promise((resolve) => setTimeout(resolve, 20))
  const [first, second] = await Promise.all([pending, engine.dispatch(exec('b'))])
  const took = Date.now() - started
  expect(took).toBeGreaterThanOrEqual(250)
  expect(took).toBeLessThan(5000)
  for (const decision of [first, second]) {
    expect(decision).toMatchObject({ decision: 'deny', reasonCode: ['audit'] })
    expect(decision.reason).toMatch(/the audit write did not finish within 300 ms/)
  }

  frozen = false
  thaw()
  // the held batch, its correction and the queued deny are written first; on a loaded machine
  // they can take longer than the deadline, which would rightly deny the next decision
  await writer.flush()
  const later = await engine.dispatch(exec('c'))
  expect(later.decision).toBe('allow')
  await writer.close()
  // the batch handed over before the freeze ('a') commits when the store answers and is then
  // corrected to the deny; 'b', refused while still queued, is written as the deny; the
  // later decision as it was
  const rows = await store.listDecisions({ tenant: 'acme', limit: 10 })
  const byId = new Map(rows.map((d) => [d.id, d]))
  expect(new Set(byId.keys())).toEqual(new Set([first.id, second.id, later.id]))
  for (const told of [first, second]) {
    expect(byId.get(told.id)).toMatchObject({ decision: 'deny', reason: told.reason, reasonCode: ['audit'] })
  }
  expect(byId.get(later.id)?.decision).toBe('allow')
  await store.close()
})
