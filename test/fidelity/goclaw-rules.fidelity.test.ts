// GoClaw's hook rules, from GoClaw's documentation, against a real `warden serve` and real
// child processes:
// - "post_tool_use, stop: async, always allow": the caller is not held for such a hook; its
//   run is still recorded.
// - "circuit breaker: 5 blocks or timeouts in 1 min -> hook disabled", for hooks created over
//   `/ws` in GoClaw's shape too.
// - "scope: global | tenant | agent (global needs master scope)": `scope` is required, and
//   `tenant` without `tenant_id` is the caller's tenant, GoClaw's master (default) tenant for
//   a master caller ("All existing data defaults to this tenant"), dry runs included.
// - a GoClaw client reads GoClaw's shapes back: hook rows with `handler_type`, `config`,
//   `timeout_ms`, `priority` as given (higher first), execution metadata in snake_case.
// - hook spans are `hook.<handler>.<goclaw event>` with `duration_ms` and `metadata.decision`.

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Span, SpanOptions, Tracer } from '@opentelemetry/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Decision, type DispatchInput } from '../../src/core/index.js'
import { commandHandler } from '../../src/handlers/index.js'
import { traceEngine } from '../../src/observability/index.js'
import { parseGoclawHooks } from '../../src/sources/index.js'
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

const MASTER_TENANT = '0193a5b0-7000-7000-8000-000000000001'
const dir = tempDir('warden-goclaw-rules-')
let served: Served
let master: WsClient
let warden: WsClient

beforeAll(async () => {
  const db = join(dir, 'rules.db')
  const store = await storeAt(db)
  const secrets = { master: await token(store, 'admin'), warden: await token(store, 'admin') }
  await store.close()
  const yaml = 'management: { allowCommandHooks: true }\nlimits: { breaker: { disableOnTrip: true } }\n'
  served = await serve({ dir, name: 'goclaw-rules', yaml, db })
  master = await WsClient.connect(served.url, secrets.master.token)
  warden = await WsClient.connect(served.url, secrets.warden.token)
}, 60_000)

afterAll(async () => {
  for (const ws of [master, warden]) ws?.close()
  await served?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Polls until `read` gives a value (a trip or a background run is recorded after the answer). */
async function eventually<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = await read()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('never happened')
}

describe('GoClaw over /ws: scope, breaker and the shapes read back', () => {
  it('"global needs master scope": scope is required on create', async () => {
    const res = await master.call('hooks.create', {
      event: 'pre_tool_use',
      handler_type: 'command',
      name: 'no-scope',
      config: { command: 'exit 0' },
    })
    expect(res.ok).toBe(false)
    expect(res.error).toMatchObject({ code: 'invalid-params', field: 'scope' })
    expect(res.error?.message).toMatch(/scope is required/)
  })

  it('scope tenant without tenant_id, for a master caller, is the master tenant; dry runs too', async () => {
    const created = await master.ok('hooks.create', {
      event: 'pre_tool_use',
      handler_type: 'command',
      scope: 'tenant',
      name: 'tenant-guard',
      priority: 7,
      config: { command: 'exit 0' },
    })
    expect(created).toMatchObject({ hookId: `${MASTER_TENANT}/tenant-guard`, tenant_id: MASTER_TENANT })
    const dry = await master.ok('hooks.test', {
      config: {
        event: 'pre_tool_use',
        handler_type: 'command',
        scope: 'tenant',
        config: { command: 'echo nope >&2; exit 2' },
      },
      sampleEvent: { toolName: 'exec', toolInput: { cmd: 'ls' } },
    })
    expect(dry.result).toMatchObject({ decision: 'block', reason: 'nope' })
  })

  it('hooks.list and hooks.get answer a GoClaw client in GoClaw’s fields, priority as given', async () => {
    const got = await master.ok('hooks.get', { hookId: `${MASTER_TENANT}/tenant-guard` })
    expect(got).toMatchObject({
      hookId: `${MASTER_TENANT}/tenant-guard`,
      event: 'pre_tool_use',
      handler_type: 'command',
      config: { command: 'exit 0' },
      priority: 7,
      timeout_ms: 5000,
      scope: 'tenant',
    })
    const listed = (await master.ok('hooks.list', {})).hooks as Loose[]
    expect(listed.find((h) => h.id === `${MASTER_TENANT}/tenant-guard`)).toMatchObject({ priority: 7 })
    // A client that never spoke GoClaw's shapes reads Warden's.
    const native = ((await warden.ok('hooks.list', {})).hooks as Loose[]).find(
      (h) => h.id === `${MASTER_TENANT}/tenant-guard`,
    )
    expect(native).toMatchObject({ event: 'tool.pre', priority: -7, timeoutMs: 5000 })
  })

  it('5 blocks of a hook created over /ws trip its breaker and disable it; metadata is snake_case', async () => {
    await master.ok('hooks.create', {
      event: 'pre_tool_use',
      handler_type: 'command',
      scope: 'global',
      name: 'blocker',
      matcher: '^exec$',
      config: { command: "echo 'not here' >&2; exit 2" },
    })
    for (let i = 0; i < 5; i++)
      expect((await aos(served.url, toolCall('exec', { cmd: 'ls' }))).body.result.decision).toBe('deny')
    const disabled = await eventually(async () => {
      const hook = await master.ok('hooks.get', { hookId: 'blocker' })
      return hook.enabled === false ? hook : undefined
    })
    expect(disabled.enabled).toBe(false)
    const metadata = await eventually(async () => {
      const history = await master.ok('hooks.history', { hookId: 'blocker' })
      return (history.executions as Loose[])[0]?.metadata
    })
    expect(metadata.matcher_matched).toBe(true)
    expect(Object.keys(metadata).filter((key) => /[A-Z]/.test(key))).toEqual([])
  }, 30_000)
})

/** A tracer that keeps every span it starts. */
function recordingTracer() {
  const spans: { name: string; attributes: Record<string, unknown> }[] = []
  const make = (name: string, options: SpanOptions = {}) => {
    const entry = { name, attributes: { ...(options.attributes ?? {}) } }
    spans.push(entry)
    return {
      setAttribute: (key: string, value: unknown) => {
        entry.attributes[key] = value
      },
      setStatus: () => undefined,
      end: () => undefined,
      spanContext: () => ({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
    } as unknown as Span
  }
  const tracer = {
    startSpan: make,
    startActiveSpan: (name: string, ...rest: unknown[]) => {
      const fn = rest[rest.length - 1] as (span: Span) => unknown
      return fn(make(name, (rest.length > 1 ? rest[0] : {}) as SpanOptions))
    },
  } as unknown as Tracer
  return { tracer, spans }
}

describe('GoClaw in the engine: async observers and spans', () => {
  const hooks = (event: string, command: string) =>
    parseGoclawHooks(
      JSON.stringify([{ name: 'gc', event, handler_type: 'command', config: { command } }]),
      'g.json',
    ).hooks

  it('"post_tool_use: async": the caller is not held by a 1 s hook, whose run is recorded', async () => {
    const recorded: Decision[] = []
    const engine = createEngine({
      handlers: [commandHandler],
      hooks: hooks('post_tool_use', 'sleep 1; echo late >&2; exit 2'),
      recorder: { record: async ({ decision }) => void recorded.push(decision) },
    })
    const input: DispatchInput = {
      event: 'tool.post',
      payload: { tool: { name: 'exec', input: {}, output: 'done' } },
      context: {},
    }
    const started = Date.now()
    const decision = await engine.dispatch(input)
    expect(Date.now() - started).toBeLessThan(500)
    expect(decision.decision).toBe('allow')
    expect(decision.trace).toEqual([])
    await engine.close()
    const run = recorded.flatMap((d) => d.trace).find((t) => t.hook === 'gc')
    expect(run?.reason).toMatch(/only observes .* it answered deny: late/)
  })

  it('spans are hook.<handler>.<goclaw event> with duration_ms and metadata.decision', async () => {
    const { tracer, spans } = recordingTracer()
    const engine = traceEngine(
      createEngine({ handlers: [commandHandler], hooks: hooks('pre_tool_use', 'exit 2') }),
      { tracer },
    )
    const decision = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'exec', input: {} } },
      context: {},
    })
    expect(decision.decision).toBe('deny')
    const span = spans.find((s) => s.name.startsWith('hook.'))
    expect(span?.name).toBe('hook.command.pre_tool_use')
    expect(span?.attributes['metadata.decision']).toBe('block')
    expect(typeof span?.attributes.duration_ms).toBe('number')
    await engine.close()
  })
})
