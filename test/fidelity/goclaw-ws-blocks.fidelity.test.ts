// GoClaw's blocking rule for hooks created over `/ws` (SQLite and PostgreSQL): a GoClaw
// `post_tool_use` hook stored through the API only observes, as GoClaw runs it: its block
// is recorded in the trace, the tool result goes through, while a Warden-native tool.post hook still
// denies. `max_invocations_per_turn` is kept too, and changing the event with GoClaw's
// `updates` applies GoClaw's rule on the new event.

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  aos,
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

const dir = tempDir('warden-goclaw-blocks-')
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

/** Runs a tool call and its result through `/aos`; returns the decision on the result. */
async function toolResult(url: string, tool: string): Promise<Loose> {
  const request = toolCall(tool, { cmd: 'x' })
  const executionId = request.params.toolCallRequest.executionId
  expect((await aos(url, request)).status).toBe(200)
  const answer = await aos(url, {
    jsonrpc: '2.0',
    id: 2,
    method: 'steps/toolCallResult',
    params: {
      toolCallResult: { executionId, result: { outputs: [{ kind: 'text', text: 'done' }], isError: false } },
      context: request.params.context,
    },
  })
  return answer.body.result
}

/** The hook's latest recorded run, once its background chain has been recorded. */
async function recordedRun(ws: WsClient, hookId: string): Promise<Loose> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const rows = (await ws.ok('hooks.history', { hookId })).executions as Loose[]
    if (rows.length > 0) return rows[0]
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no run of ${hookId} was recorded`)
}

const backends = [
  { backend: 'sqlite', db: () => join(dir, 'blocks.db') },
  { backend: 'postgres', db: () => pgDb?.url },
]

describe.each(backends)('GoClaw hooks over /ws keep GoClaw’s rule on $backend', ({ backend, db }) => {
  it('post_tool_use only observes; max_invocations_per_turn is kept', async (ctx) => {
    const where = db()
    if (!where) ctx.skip()
    const store = await storeAt(where as string)
    const master = await token(store, 'admin')
    await store.close()
    const yaml = 'management: { allowCommandHooks: true }\n'
    const served = await serve({ dir, name: backend, yaml, db: where as string })
    running.push(served)
    const ws = await WsClient.connect(served.url, master.token)
    try {
      const created = await ws.ok('hooks.create', {
        event: 'post_tool_use',
        handler_type: 'command',
        scope: 'global',
        name: 'gc-audit',
        matcher: '^exec$',
        max_invocations_per_turn: 3,
        config: { command: 'echo goclaw saw it >&2; exit 2' },
      })
      expect(created).toMatchObject({ hookId: 'gc-audit', event: 'post_tool_use', blocks: false })
      expect(created.max_invocations_per_turn).toBe(3)
      expect(created.warnings).toBeUndefined()
      await ws.ok('hooks.create', {
        name: 'native-post',
        event: 'tool.post',
        matcher: '^other$',
        handler: { type: 'deny', reason: 'native says no' },
      })

      const observed = await toolResult(served.url, 'exec')
      expect(observed.decision).toBe('allow')
      // GoClaw runs post_tool_use asynchronously: not in the caller's trace, recorded on its own.
      expect((observed.data.trace as Loose[]).some((t) => t.hook === 'gc-audit')).toBe(false)
      const run = await recordedRun(ws, 'gc-audit')
      expect(run.reason).toMatch(/only observes .* it answered deny: goclaw saw it/)
      expect((await toolResult(served.url, 'other')).decision).toBe('deny')

      const listed = ((await ws.ok('hooks.list', {})).hooks as Loose[]).find((h) => h.id === 'gc-audit')
      expect(listed).toMatchObject({ blocks: false, max_invocations_per_turn: 3 })

      const moved = await ws.ok('hooks.update', { hookId: 'gc-audit', updates: { event: 'pre_tool_use' } })
      expect(moved.event).toBe('pre_tool_use')
      expect(moved.blocks).toBeUndefined()
      expect(moved.max_invocations_per_turn).toBe(3)
      const back = await ws.ok('hooks.update', { hookId: 'gc-audit', updates: { event: 'stop' } })
      expect(back).toMatchObject({ event: 'stop', blocks: false })
    } finally {
      ws.close()
    }
  }, 60_000)
})
