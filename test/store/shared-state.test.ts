// Two instances on one database: hooks stored by one join the other's engine within a
// second; a circuit breaker tripped on one is open on the other and after a restart, and
// a reset anywhere closes it everywhere. On SQLite (one file) and a real PostgreSQL.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/index.js'
import {
  loadHooksFromStore,
  openStore,
  openStoreBreakerState,
  type Store,
  syncHooksFromStore,
} from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

let pgDb: TestDatabase | undefined
const dir = mkdtempSync(join(tmpdir(), 'warden-shared-'))

beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

const toolPre = (tenantId?: string) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'ls' } } },
  context: tenantId ? { tenantId } : {},
})

const backends = [
  { name: 'sqlite', location: () => join(dir, 'shared.db') },
  { name: 'postgres', location: () => pgDb?.url },
]

describe.each(backends)('two instances on $name', ({ location }) => {
  const open: Store[] = []
  const engines: Engine[] = []
  async function instance(): Promise<Store> {
    const where = location()
    if (!where) throw new Error('no database')
    const store = await openStore(where)
    open.push(store)
    return store
  }
  afterAll(async () => {
    for (const engine of engines) await engine.close()
    for (const store of open) await store.close()
  })

  it('see each other’s hook changes within 1 s', async (ctx) => {
    if (!location()) ctx.skip()
    const [a, b] = [await instance(), await instance()]
    const engineB = createEngine({
      hooks: [{ name: 'from-config', event: 'tool.pre', handler: { type: 'fn', fn: () => undefined } }],
    })
    engines.push(engineB)
    const errors: Error[] = []
    const sync = await syncHooksFromStore(engineB, b, { onError: (e) => errors.push(e) })
    expect((await engineB.dispatch(toolPre())).decision).toBe('allow')

    const started = Date.now()
    await a.putHook({
      name: 'no-exec',
      event: 'tool.pre',
      matcher: '^exec$',
      handler: { type: 'command', command: 'sh -c "exit 2"' },
    })
    await expect
      .poll(() => engineB.hooks().some((h) => h.id === 'no-exec'), { timeout: 5000, interval: 20 })
      .toBe(true)
    expect(Date.now() - started).toBeLessThan(1000)
    expect((await engineB.dispatch(toolPre())).decision).toBe('deny')

    await a.setHookEnabled('no-exec', false)
    await expect
      .poll(() => engineB.hooks().find((h) => h.id === 'no-exec')?.enabled, { timeout: 5000 })
      .toBe(false)
    expect(sync.loaded().get('no-exec')).toBe(2)

    await a.deleteHook('no-exec')
    await expect.poll(() => engineB.hooks().some((h) => h.id === 'no-exec'), { timeout: 5000 }).toBe(false)
    expect(engineB.hooks().map((h) => h.id)).toEqual(['from-config'])

    await a.putHook({ name: 'from-config', event: 'tool.pre', handler: { type: 'command', command: 'true' } })
    await expect.poll(() => errors.length, { timeout: 5000 }).toBeGreaterThan(0)
    expect(errors[0]?.message).toMatch(/"from-config" is skipped: a hook with that id is already defined/)
    expect(engineB.hooks().find((h) => h.id === 'from-config')?.handler.type).toBe('fn')
    await a.deleteHook('from-config')
    sync.stop()
  })

  it('load a tenant’s hooks and the global ones, never another tenant’s', async (ctx) => {
    if (!location()) ctx.skip()
    const a = await instance()
    await a.putHook({
      name: 'acme-only',
      tenant: 'acme',
      event: 'tool.pre',
      handler: { type: 'command', command: 'true' },
    })
    await a.putHook({
      name: 'globex-only',
      tenant: 'globex',
      event: 'tool.pre',
      handler: { type: 'command', command: 'true' },
    })
    await a.putHook({ name: 'everyone', event: 'tool.pre', handler: { type: 'command', command: 'true' } })
    const names = (await loadHooksFromStore(a, 'acme')).map((h) => h.name)
    expect(names).toContain('acme-only')
    expect(names).toContain('everyone')
    expect(names).not.toContain('globex-only')
  })

  it('share circuit breakers: a trip holds on every instance and across restarts', async (ctx) => {
    if (!location()) ctx.skip()
    const [a, b] = [await instance(), await instance()]
    const stateA = await openStoreBreakerState(a, { breaker: { failures: 2, windowMs: 60_000 } })
    const stateB = await openStoreBreakerState(b)
    const failing = {
      name: 'flaky',
      event: 'tool.pre',
      handler: {
        type: 'fn',
        fn: () => {
          throw new Error('down')
        },
      },
    }
    const engineA = createEngine({ hooks: [failing], breaker: stateA })
    engines.push(engineA)
    await engineA.dispatch(toolPre())
    const tripped = await engineA.dispatch(toolPre())
    expect(tripped.decision).toBe('deny')
    expect(stateA.openTrip('flaky')).toBeDefined()
    await stateA.flush()
    await expect.poll(() => stateB.openTrip('flaky')?.failures, { timeout: 5000 }).toBe(2)

    const restarted = await instance()
    const stateC = await openStoreBreakerState(restarted)
    expect(stateC.openTrip('flaky')?.lastError).toMatch(/down/)
    const engineC = createEngine({
      hooks: [{ ...failing, handler: { type: 'fn', fn: () => undefined } }],
      breaker: stateC,
    })
    engines.push(engineC)
    const held = await engineC.dispatch(toolPre())
    expect(held.decision).toBe('deny')
    expect(held.trace[0]?.error?.kind).toBe('breaker-open')

    stateB.reset('flaky')
    await stateB.flush()
    await expect.poll(() => stateC.openTrip('flaky'), { timeout: 5000 }).toBeUndefined()
    await expect.poll(() => stateA.openTrip('flaky'), { timeout: 5000 }).toBeUndefined()
    expect((await engineC.dispatch(toolPre())).decision).toBe('allow')
    for (const s of [stateA, stateB, stateC]) await s.close()
  })

  it('count a breaker’s failures together, per tenant: 2 on one and 1 on the other open a breaker of 3', async (ctx) => {
    if (!location()) ctx.skip()
    const [a, b] = [await instance(), await instance()]
    const breaker = { failures: 3, windowMs: 60_000 }
    const [stateA, stateB] = [
      await openStoreBreakerState(a, { breaker }),
      await openStoreBreakerState(b, { breaker }),
    ]
    const hookId = `counted-${Math.random().toString(36).slice(2)}`
    const failure = (tenant: string) => ({ hookId, tenant, global: true, at: Date.now(), error: 'down' })
    expect(await stateA.recordFailure(failure('acme'))).toBeUndefined()
    expect(await stateA.recordFailure(failure('acme'))).toBeUndefined()
    // Another tenant's failure counts apart.
    expect(await stateB.recordFailure(failure('globex'))).toBeUndefined()
    const opened = await stateB.recordFailure(failure('acme'))
    expect(opened).toMatchObject({ hookId, tenant: 'acme', failures: 3 })
    expect(stateB.openTrip(hookId, 'acme')).toBeDefined()
    await expect.poll(() => stateA.openTrip(hookId, 'acme')?.failures, { timeout: 5000 }).toBe(3)
    expect(stateA.openTrip(hookId, 'globex')).toBeUndefined()
    expect(stateB.openTrip(hookId)).toBeUndefined()
    stateA.reset(hookId)
    await stateA.flush()
    await expect.poll(() => stateB.openTrip(hookId, 'acme'), { timeout: 5000 }).toBeUndefined()
    for (const s of [stateA, stateB]) await s.close()
  })
})
