// Nothing is lost on a graceful shutdown; after kill -9 under load and a restart there are
// no duplicate rows, nothing acknowledged is lost in sync mode, and in async mode only
// decisions from the last batch interval are. Real child processes on SQLite and PostgreSQL.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const CHILD = fileURLToPath(new URL('./fixtures/load-child.ts', import.meta.url))
const INTERVAL_MS = 100
/** Allowance for a loaded machine on top of the batch interval (the write itself, scheduling). */
const SLACK_MS = 1500

let pgDb: TestDatabase | undefined
const dir = mkdtempSync(join(tmpdir(), 'warden-crash-'))
beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

interface Run {
  child: ChildProcess
  acked: Map<string, number>
  ready: Promise<void>
  exited: Promise<number | null>
  output(): string
}

function start(location: string, mode: 'sync' | 'async'): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, location, mode, String(INTERVAL_MS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const acked = new Map<string, number>()
  let buffer = ''
  let stderr = ''
  let onReady: () => void = () => undefined
  const ready = new Promise<void>((resolve) => {
    onReady = resolve
  })
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8')
    const lines = buffer.split('\n')
    buffer = lines.pop() ?? ''
    const now = Date.now()
    for (const line of lines) {
      if (line === 'ready') onReady()
      else if (line && line !== 'closed' && !line.startsWith('refused ')) acked.set(line, now)
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, acked, ready, exited, output: () => stderr }
}

async function underLoad(run: Run, ms: number): Promise<void> {
  await run.ready
  await expect.poll(() => run.acked.size, { timeout: 30_000 }).toBeGreaterThan(200)
  await new Promise((resolve) => setTimeout(resolve, ms))
}

async function storedIds(location: string): Promise<{ ids: Set<string>; rows: number; executions: number }> {
  const store = await openStore(location)
  try {
    const rows: { id: string }[] = []
    for (;;) {
      const page = await store.listDecisions({ tenant: 'crash', limit: 10_000, offset: rows.length })
      rows.push(...page)
      if (page.length < 10_000) break
    }
    const detail = rows.length ? await store.getDecision(rows[0]!.id) : undefined
    return {
      ids: new Set(rows.map((r) => r.id)),
      rows: rows.length,
      executions: detail?.executions.length ?? 0,
    }
  } finally {
    await store.close()
  }
}

const backends = [
  { name: 'sqlite', location: (tag: string) => join(dir, `${tag}.db`) },
  { name: 'postgres', location: () => pgDb?.url },
]

describe.each(backends)('audit durability on $name', ({ name, location }) => {
  it('loses nothing on a graceful shutdown', async (ctx) => {
    const where = location(`graceful-${name}`)
    if (!where) ctx.skip()
    const before = await storedIds(where!)
    const run = start(where!, 'async')
    await underLoad(run, 300)
    run.child.kill('SIGTERM')
    expect(await run.exited, run.output()).toBe(0)
    const after = await storedIds(where!)
    const missing = [...run.acked.keys()].filter((id) => !after.ids.has(id))
    expect(missing).toEqual([])
    expect(after.rows).toBe(before.rows + run.acked.size)
  })

  it('after kill -9 in sync mode loses nothing acknowledged, and a restart adds no duplicates', async (ctx) => {
    const where = location(`sync-${name}`)
    if (!where) ctx.skip()
    const before = await storedIds(where!)
    const run = start(where!, 'sync')
    await underLoad(run, 300)
    run.child.kill('SIGKILL')
    await run.exited
    const after = await storedIds(where!)
    const missing = [...run.acked.keys()].filter((id) => !after.ids.has(id))
    expect(missing).toEqual([])
    expect(after.rows).toBeGreaterThanOrEqual(before.rows + run.acked.size)
    expect(after.rows - before.rows).toBeLessThanOrEqual(run.acked.size + 1)
    expect(after.executions).toBe(1)

    const again = start(where!, 'sync')
    await underLoad(again, 100)
    again.child.kill('SIGTERM')
    expect(await again.exited).toBe(0)
    const final = await storedIds(where!)
    expect(final.rows).toBe(final.ids.size)
    expect(final.rows).toBe(after.rows + again.acked.size)
  })

  it('after kill -9 in async mode loses at most the last batch interval', async (ctx) => {
    const where = location(`async-${name}`)
    if (!where) ctx.skip()
    const run = start(where!, 'async')
    await underLoad(run, 1500)
    const killedAt = Date.now()
    run.child.kill('SIGKILL')
    await run.exited
    const after = await storedIds(where!)
    const lost = [...run.acked.entries()].filter(([id]) => !after.ids.has(id))
    const oldestLost = Math.min(...lost.map(([, at]) => at))
    if (lost.length > 0) expect(killedAt - oldestLost).toBeLessThanOrEqual(INTERVAL_MS + SLACK_MS)
    expect(after.ids.size).toBeGreaterThan(0)
    expect(after.rows).toBe(after.ids.size)
  })
})
