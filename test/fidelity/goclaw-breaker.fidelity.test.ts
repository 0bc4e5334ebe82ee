// GoClaw's circuit breaker on real stores (SQLite and PostgreSQL), with hooks that are real
// child processes: hooks in GoClaw's format count their blocks as well as their timeouts
// (5 in a minute trip it), Warden-native hooks count failures and timeouts only unless
// `breakerCountsBlocks` is set. With `disableOnTrip`, a trip switches the hook off in the
// store, once: a stored hook's `enabled` (what hooks.list shows), or an override for a hook
// from a file; turning the hook back on and resetting the breaker runs it again.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BreakerTrip, HookDefinition } from '../../src/core/index.js'
import { commandHandler } from '../../src/handlers/index.js'
import { createEngine } from '../../src/index.js'
import { parseGoclawHooks } from '../../src/sources/index.js'
import { openStore, openStoreBreakerState, type Store } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-goclaw-breaker-'))
let pgDb: TestDatabase | undefined
beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

const backends = [
  { backend: 'sqlite', location: (name: string) => join(dir, `${name}.db`) },
  { backend: 'postgres', location: () => pgDb?.url },
]

/** One GoClaw hook definition as GoClaw stores it, converted by Warden's loader. */
function goclaw(name: string, command: string, extra: Record<string, unknown> = {}): HookDefinition {
  const report = parseGoclawHooks(
    JSON.stringify([
      {
        name,
        event: 'pre_tool_use',
        handler_type: 'command',
        config: { command },
        matcher: '^exec$',
        ...extra,
      },
    ]),
    'goclaw.json',
  )
  expect(report.problems).toEqual([])
  return report.hooks[0] as HookDefinition
}

const native = (name: string, command: string, extra: Partial<HookDefinition> = {}): HookDefinition => ({
  name,
  event: 'tool.pre',
  matcher: '^exec$',
  handler: { type: 'command', command, shell: true },
  ...extra,
})

const BLOCK = "echo 'not here' >&2; exit 2"
const SLOW = 'sleep 5'

const rows: {
  name: string
  hook: (name: string) => HookDefinition
  /** Runs dispatched in one minute. */
  runs: number
  trips: boolean
}[] = [
  { name: 'GoClaw hook: 5 blocks trip it', hook: (n) => goclaw(n, BLOCK), runs: 5, trips: true },
  { name: 'GoClaw hook: 4 blocks do not', hook: (n) => goclaw(n, BLOCK), runs: 4, trips: false },
  {
    name: 'GoClaw hook: 5 timeouts trip it (on_timeout allow)',
    hook: (n) => goclaw(n, SLOW, { timeout_ms: 60, on_timeout: 'allow' }),
    runs: 5,
    trips: true,
  },
  { name: 'native hook: 6 blocks do not trip it', hook: (n) => native(n, BLOCK), runs: 6, trips: false },
  {
    name: 'native hook: 5 timeouts trip it',
    hook: (n) => native(n, SLOW, { timeoutMs: 60 }),
    runs: 5,
    trips: true,
  },
  {
    name: 'native hook with breakerCountsBlocks: 5 blocks trip it',
    hook: (n) => native(n, BLOCK, { breakerCountsBlocks: true }),
    runs: 5,
    trips: true,
  },
]

const event = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }

async function breakerOn(store: Store, disabled: BreakerTrip[]) {
  return openStoreBreakerState(store, {
    disableOnTrip: true,
    onDisabled: (trip) => disabled.push(trip),
  })
}

describe.each(backends)('GoClaw breaker on $backend', ({ backend, location }) => {
  it.for(rows)('$name', { timeout: 30_000 }, async ({ name, hook, runs, trips }, ctx) => {
    const where = location(`rows-${rows.findIndex((r) => r.name === name)}`)
    if (!where) ctx.skip()
    const store = await openStore(where as string)
    const id = `${backend}-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`
    const definition = hook(id)
    await store.putHook({ name: id, event: 'tool.pre', handler: definition.handler })
    const disabled: BreakerTrip[] = []
    const state = await breakerOn(store, disabled)
    const engine = createEngine({ hooks: [definition], handlers: [commandHandler], breaker: state })
    try {
      for (let i = 0; i < runs; i++) {
        const decision = await engine.dispatch(event)
        expect(decision.trace[0]?.error?.kind).not.toBe('breaker-open')
      }
      await state.flush()
      expect(disabled.map((t) => t.hookId)).toEqual(trips ? [id] : [])
      expect((await store.getHook(id))?.enabled).toBe(!trips)
      expect((await store.listHooks()).find((h) => h.id === id)?.enabled).toBe(!trips)
      const next = await engine.dispatch(event)
      if (trips) {
        expect(next.decision).toBe('deny')
        expect(next.trace[0]?.error?.kind).toBe('breaker-open')
        await store.setHookEnabled(id, true)
        engine.resetBreaker(id)
        await state.flush()
        expect(state.openTrip(id)).toBeUndefined()
        expect((await store.getHook(id))?.enabled).toBe(true)
        const again = await engine.dispatch(event)
        expect(again.trace[0]?.error?.kind).not.toBe('breaker-open')
      } else {
        expect(next.trace[0]?.error?.kind).not.toBe('breaker-open')
      }
    } finally {
      await engine.close()
      await state.close()
      await store.close()
    }
  })

  it('switches a hook from a file off with an override, once, and back on', async (ctx) => {
    const where = location('file-hook')
    if (!where) ctx.skip()
    const store = await openStore(where as string)
    const disabled: BreakerTrip[] = []
    const state = await breakerOn(store, disabled)
    const id = `${backend}-file-blocker`
    const engine = createEngine({ hooks: [goclaw(id, BLOCK)], handlers: [commandHandler], breaker: state })
    try {
      for (let i = 0; i < 7; i++) await engine.dispatch(event)
      await state.flush()
      expect(disabled.map((t) => t.hookId)).toEqual([id])
      expect((await store.listHookOverrides()).get(id)).toBe(false)
      expect(await store.getHook(id)).toBeUndefined()
      await store.setHookOverride(id, true)
      engine.resetBreaker(id)
      await state.flush()
      expect((await store.listHookOverrides()).get(id)).toBe(true)
      expect((await engine.dispatch(event)).trace[0]?.error).toBeUndefined()
    } finally {
      await engine.close()
      await state.close()
      await store.close()
    }
  }, 30_000)
})
