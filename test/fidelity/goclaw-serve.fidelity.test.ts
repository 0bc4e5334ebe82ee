// GoClaw's hooks under a real `warden serve` (SQLite and PostgreSQL), loaded with --goclaw
// and `limits.breaker.disableOnTrip: true`: five blocks in a minute trip a GoClaw hook's
// breaker, which switches it off as hooks.list shows, until hooks.toggle turns it back on;
// a Warden-native hook that blocks keeps running. hooks.history and decisions.get return
// each execution's metadata, and stderr carries `security.hook.*` lines, without secrets.

import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Loose,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  toolCall,
  WsClient,
} from '../server/management-helper.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = tempDir('warden-goclaw-serve-')
let pgDb: TestDatabase | undefined
const running: Served[] = []
beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  for (const served of running) await served.stop('SIGKILL')
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

const YAML = `limits:
  breaker: { disableOnTrip: true }
hooks:
  - name: native-block
    event: tool.pre
    matcher: "^rm$"
    handler: { type: command, shell: true, command: "echo native says no >&2; exit 2" }
`

const GOCLAW = {
  hooks: [
    {
      name: 'gc-block',
      event: 'pre_tool_use',
      handler_type: 'command',
      matcher: '^exec$',
      config: { command: "echo 'goclaw says no Bearer sk-secret-123' >&2; exit 2" },
    },
  ],
}

async function ask(url: string, tool: string): Promise<{ decision: string; message: string }> {
  const response = await fetch(`${url}/aos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(toolCall(tool, { cmd: 'x' })),
  })
  return ((await response.json()) as { result: { decision: string; message: string } }).result
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const hookOf = async (ws: WsClient, id: string): Promise<Loose> =>
  ((await ws.ok('hooks.list', {})).hooks as Loose[]).find((h) => h.id === id)

const backends = [
  { backend: 'sqlite', db: () => join(dir, 'serve.db') },
  { backend: 'postgres', db: () => pgDb?.url },
]

describe.each(backends)('warden serve --goclaw on $backend', ({ backend, db }) => {
  it('trips, disables, logs and records GoClaw hooks as GoClaw documents', async (ctx) => {
    const where = db()
    if (!where) ctx.skip()
    const file = join(dir, `goclaw-${backend}.json`)
    writeFileSync(file, JSON.stringify(GOCLAW))
    const store = await storeAt(where as string)
    const admin = await token(store, 'admin')
    await store.close()
    const served = await serve({
      dir,
      name: backend,
      yaml: YAML,
      db: where as string,
      args: ['--goclaw', file],
    })
    running.push(served)
    const ws = await WsClient.connect(served.url, admin.token)
    try {
      for (let i = 0; i < 5; i++) {
        const answer = await ask(served.url, 'exec')
        expect(answer.decision).toBe('deny')
        expect(answer.message).toContain('goclaw says no')
      }
      const off = await until('gc-block switched off', async () => {
        const hook = await hookOf(ws, 'gc-block')
        return hook?.enabled === false ? hook : undefined
      })
      expect(off.source).toBe('file')
      expect((await ask(served.url, 'exec')).decision).toBe('allow')

      for (let i = 0; i < 6; i++) {
        const answer = await ask(served.url, 'rm')
        expect(answer.decision).toBe('deny')
        expect(answer.message).toContain('native says no')
      }
      expect((await hookOf(ws, 'native-block'))?.enabled).toBe(true)

      const on = await ws.ok('hooks.toggle', { id: 'gc-block', enabled: true })
      expect(on.enabled).toBe(true)
      expect(on.breaker).toBeUndefined()
      const again = await ask(served.url, 'exec')
      expect(again.decision).toBe('deny')
      expect(again.message).toContain('goclaw says no')

      const history = await until('the history of gc-block', async () => {
        const page = await ws.ok('hooks.history', { id: 'gc-block', decision: 'deny' })
        return page.executions.length >= 6 ? page : undefined
      })
      expect(history.executions[0].metadata).toMatchObject({
        matcherMatched: true,
        exitCode: 2,
        stdoutBytes: 0,
      })
      const listed = await ws.ok('decisions.list', { decision: 'deny', limit: 1 })
      const decision = await ws.ok('decisions.get', { id: listed.decisions[0].id })
      expect(decision.trace.find((t: Loose) => t.name === 'gc-block')?.metadata).toMatchObject({
        matcherMatched: true,
        exitCode: 2,
      })
    } finally {
      ws.close()
      expect(await served.stop()).toBe(0)
    }

    const lines = served
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Loose)
    const security = lines.filter((l) => String(l.event).startsWith('security.hook.'))
    const count = (event: string, hook: string) =>
      security.filter((l) => l.event === event && l.hook_id === hook).length
    expect(count('security.hook.blocked', 'gc-block')).toBe(6)
    expect(count('security.hook.blocked', 'native-block')).toBe(6)
    expect(count('security.hook.circuit_breaker', 'gc-block')).toBe(1)
    expect(count('security.hook.circuit_breaker', 'native-block')).toBe(0)
    const trip = security.find((l) => l.event === 'security.hook.circuit_breaker')
    expect(trip).toMatchObject({ level: 40, disable_on_trip: true, failures: 5, hook_event: 'tool.pre' })
    const blocked = security.find((l) => l.event === 'security.hook.blocked' && l.hook_id === 'gc-block')
    expect(blocked).toMatchObject({ level: 30, handler: 'command', hook_event: 'tool.pre', outcome: 'deny' })
    expect(served.stderr()).not.toContain('sk-secret-123')
    expect(served.stderr()).not.toContain(admin.token)
  }, 120_000)
})
