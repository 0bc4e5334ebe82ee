// Bad frames on the management WebSocket against a real `warden serve` with a small frame
// limit: malformed JSON, frames that are not requests, unknown and prototype-named methods,
// params of the wrong shape, hook definitions the engine refuses, approvals resolved
// wrongly, binary frames, frames over the limit and over the hard cap, very deep nesting
// and a flood. Each gets one error frame naming what was wrong, and afterwards the same
// connection, another connection, `/healthz` and the process all carry on.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import {
  aos,
  type Res,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  toolCall,
  WsClient,
} from './management-helper.js'

const dir = tempDir('warden-frames-')
const db = join(dir, 'warden.db')
const MAX_FRAME = 65536
const RATE = 50
/** The size over which the socket itself closes the connection (see ws.ts). */
const HARD_CAP = MAX_FRAME * 4 + 64 * 1024

const YAML = `
limits: { approvalTimeoutMs: 30000 }
management: { maxFrameBytes: ${MAX_FRAME}, requestsPerSecond: ${RATE} }
hooks:
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`

let warden: Served
let store: Store
let admin: string
/** The connection every bad frame is sent on. */
let c: WsClient
/** A connection opened before the barrage, used only afterwards. */
let bystander: WsClient
const clients: WsClient[] = []
/** Distinct bad frames answered with an error frame. */
const tested = new Set<string>()

async function client(secret = admin): Promise<WsClient> {
  const opened = await WsClient.connect(warden.url, secret)
  clients.push(opened)
  return opened
}

/** What an error frame must carry. */
interface Expected {
  code: string
  message: RegExp | string
  field?: string | null
}

function check(res: Res, expected: Expected): void {
  expect(res.type).toBe('res')
  expect(res.ok).toBe(false)
  expect(res.error?.code).toBe(expected.code)
  if (typeof expected.message === 'string') expect(res.error?.message).toContain(expected.message)
  else expect(res.error?.message).toMatch(expected.message)
  if (expected.field === null) expect(res.error).not.toHaveProperty('field')
  else if (expected.field !== undefined) expect(res.error?.field).toBe(expected.field)
}

/** Sends a raw frame the server cannot take an id from; expects an error frame with `id: null`. */
async function badNoId(text: string | Buffer, expected: Expected): Promise<Res> {
  const key = typeof text === 'string' ? text : `binary:${text.toString('hex')}`
  expect(tested.has(key), `frame sent twice: ${key.slice(0, 80)}`).toBe(false)
  const res = await c.raw(text)
  expect(res.id).toBeNull()
  check(res, expected)
  tested.add(key)
  return res
}

let seq = 0
/** Sends a frame object with a fresh string id; expects an error frame echoing it. */
async function bad(frame: Record<string, unknown>, expected: Expected): Promise<Res> {
  const id = `bad-${++seq}`
  const text = JSON.stringify({ type: 'req', id, ...frame })
  const key = JSON.stringify(frame)
  expect(tested.has(key), `frame sent twice: ${key.slice(0, 80)}`).toBe(false)
  const res = await c.raw(text, id)
  expect(res.id).toBe(id)
  check(res, expected)
  tested.add(key)
  return res
}

/** A request for a method with params. */
function req(method: string, params?: unknown): Record<string, unknown> {
  return params === undefined ? { method } : { method, params }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  warden = await serve({ dir, name: 'frames', yaml: YAML, db })
  store = await storeAt(db)
  admin = (await token(store, 'admin')).token
  c = await client()
  bystander = await client()
  expect((await c.ok('server.info')).token.role).toBe('admin')
})

afterAll(async () => {
  for (const opened of clients) opened.close()
  await store?.close()
  await warden?.stop()
})

describe('frames that are not JSON', () => {
  it('answers each kind of invalid JSON with bad-frame naming the JSON error', async () => {
    const notJson = { code: 'bad-frame', message: /^the frame is not valid JSON: .+/, field: null }
    await badNoId('{"type":"req","id":1,"method":"server.info"', notJson)
    await badNoId('{"type":"req","id":2,"method":"server.info"} trailing', notJson)
    await badNoId('{"type":"req","id":3,"method":"hooks.list","params":{"limit":NaN}}', notJson)
    await badNoId('', notJson)
    await badNoId("{'type':'req','id':4,'method':'server.info'}", notJson)
    await badNoId('{"type":"req","id":5,"method":"server.info",}', notJson)
    await badNoId('{"type":"req","id":6,"method":"server.info","params":{"search":"\u0001"}}', notJson)
  })

  it('refuses a binary frame, asking for JSON text', async () => {
    await badNoId(Buffer.from(JSON.stringify({ type: 'req', id: 'bin', method: 'server.info' })), {
      code: 'bad-frame',
      message: 'binary frames are not accepted',
      field: null,
    })
  })
})

describe('JSON that is not a request', () => {
  it('refuses arrays, strings, numbers, booleans and null', async () => {
    const notObject = { code: 'bad-frame', message: 'a frame must be an object', field: null }
    await badNoId('[{"type":"req","id":1,"method":"server.info"}]', notObject)
    await badNoId('"server.info"', notObject)
    await badNoId('42', notObject)
    await badNoId('null', notObject)
    await badNoId('true', notObject)
  })

  it('names a missing or wrong type, and echoes the id when there is one', async () => {
    await badNoId('{"method":"server.info"}', {
      code: 'bad-frame',
      message: 'type must be "req" (got nothing)',
      field: 'type',
    })
    await bad(
      { type: 'request', method: 'server.info' },
      {
        code: 'bad-frame',
        message: 'type must be "req" (got "request")',
        field: 'type',
      },
    )
    await bad(
      { type: 42, method: 'server.info' },
      {
        code: 'bad-frame',
        message: 'type must be "req" (got 42)',
        field: 'type',
      },
    )
    await bad(
      { type: { req: true }, method: 'server.info' },
      {
        code: 'bad-frame',
        message: 'type must be "req" (got an object)',
        field: 'type',
      },
    )
    await bad(
      { type: 'res', method: 'server.info' },
      {
        code: 'bad-frame',
        message: 'type must be "req" (got "res")',
        field: 'type',
      },
    )
  })

  it('names a missing id or one of the wrong type', async () => {
    const badId = { code: 'bad-frame', message: 'id must be a string or a number', field: 'id' }
    await badNoId('{"type":"req","method":"server.info"}', badId)
    await badNoId('{"type":"req","id":{"n":1},"method":"server.info"}', badId)
    await badNoId('{"type":"req","id":true,"method":"server.info"}', badId)
    await badNoId('{"type":"req","id":null,"method":"server.info"}', badId)
    await badNoId('{"type":"req","id":[7],"method":"server.info"}', badId)
  })

  it('names a missing method or one of the wrong type', async () => {
    const badMethod = { code: 'bad-frame', message: 'method must be a string', field: 'method' }
    await bad({}, badMethod)
    await bad({ method: 42 }, badMethod)
    await bad({ method: ['server.info'] }, badMethod)
    await bad({ method: null }, badMethod)
  })

  it('names an unknown frame field', async () => {
    await bad(
      { method: 'server.info', parms: {} },
      {
        code: 'bad-frame',
        message: 'unknown field "parms" in the frame',
        field: 'parms',
      },
    )
    const proto = await c.raw(
      '{"type":"req","id":"proto-field","method":"server.info","__proto__":{"x":1}}',
      'proto-field',
    )
    check(proto, { code: 'bad-frame', message: 'unknown field "__proto__" in the frame', field: '__proto__' })
    tested.add('proto-field')
  })
})

describe('methods', () => {
  it('names an unknown method and hints at the methods of its group', async () => {
    const res = await bad(req('hooks.lst'), {
      code: 'unknown-method',
      message: 'unknown method "hooks.lst"',
      field: 'method',
    })
    expect(res.error?.message).toContain('the methods of "hooks" are hooks.list, hooks.get, hooks.create')
    await bad(req('nothing.here'), {
      code: 'unknown-method',
      message: /^unknown method "nothing\.here"$/,
      field: 'method',
    })
    await bad(req(''), { code: 'unknown-method', message: 'unknown method ""', field: 'method' })
    const long = await bad(req(`x${'y'.repeat(5000)}`), {
      code: 'unknown-method',
      message: 'unknown method "xyy',
      field: 'method',
    })
    expect(long.error?.message.length).toBeLessThan(200)
  })

  it('does not reach the prototype through method names', async () => {
    for (const name of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
    ]) {
      await bad(req(name), { code: 'unknown-method', message: `unknown method "${name}"`, field: 'method' })
    }
  })
})

describe('params', () => {
  it('refuses params that are not an object', async () => {
    await bad(req('hooks.list', []), {
      code: 'invalid-params',
      message: /^hooks\.list: params .*object/,
      field: 'params',
    })
    await bad(req('hooks.list', 'limit=10'), {
      code: 'invalid-params',
      message: /^hooks\.list: params .*object/,
      field: 'params',
    })
    await bad(req('server.info', 7), {
      code: 'invalid-params',
      message: /^server\.info: params .*object/,
      field: 'params',
    })
  })

  it('names unknown params fields', async () => {
    await bad(req('hooks.list', { limt: 10 }), {
      code: 'invalid-params',
      message: 'hooks.list: unknown field "limt"',
      field: 'limt',
    })
    await bad(req('server.info', { verbose: true, all: 1 }), {
      code: 'invalid-params',
      message: 'server.info: unknown fields "verbose", "all"',
      field: 'verbose',
    })
    await bad(req('subscribe', { events: ['decision'], filter: { tool: ['x'] } }), {
      code: 'invalid-params',
      message: 'subscribe: unknown field "filter.tool"',
      field: 'filter.tool',
    })
  })

  it('names params of the wrong type or out of range', async () => {
    await bad(req('hooks.toggle', { id: 'ask-deploy', enabled: 'yes' }), {
      code: 'invalid-params',
      message: 'hooks.toggle: params.enabled must be true or false',
      field: 'enabled',
    })
    await bad(req('hooks.toggle', { id: 42, enabled: true }), {
      code: 'invalid-params',
      message: 'hooks.toggle: params.id must be a hook id string',
      field: 'id',
    })
    await bad(req('hooks.list', { limit: 0 }), {
      code: 'invalid-params',
      message: /hooks\.list: params\.limit .*1/,
      field: 'limit',
    })
    await bad(req('hooks.list', { limit: 5000 }), {
      code: 'invalid-params',
      message: /hooks\.list: params\.limit .*1000/,
      field: 'limit',
    })
    await bad(req('hooks.list', { limit: '10' }), {
      code: 'invalid-params',
      message: /hooks\.list: params\.limit .*number/,
      field: 'limit',
    })
    await bad(req('hooks.list', { limit: 2.5 }), {
      code: 'invalid-params',
      message: /hooks\.list: params\.limit .*int/,
      field: 'limit',
    })
    await bad(req('decisions.list', { decision: 'maybe' }), {
      code: 'invalid-params',
      message: /decisions\.list: params\.decision .*"allow"/,
      field: 'decision',
    })
    await bad(req('hooks.get', { id: '' }), {
      code: 'invalid-params',
      message: 'hooks.get: params.id must not be empty',
      field: 'id',
    })
    await bad(req('hooks.get', {}), {
      code: 'invalid-params',
      message: 'hooks.get: params.id must be a hook id string',
      field: 'id',
    })
    await bad(req('hooks.update', { id: 'x', changes: { name: 'renamed' } }), {
      code: 'invalid-params',
      message: 'hooks.update: unknown field "changes.name"',
      field: 'changes.name',
    })
  })
})

describe('hooks.create with bad definitions', () => {
  const base = { name: 'bad-hook', event: 'tool.pre' }

  it('names the nested field that is wrong', async () => {
    await bad(req('hooks.create', { ...base, handler: 'deny' }), {
      code: 'invalid-params',
      message: 'hooks.create: params.handler must be an object',
      field: 'handler',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'deny' }, scope: { agents: 'triage' } }), {
      code: 'invalid-params',
      message: /agents/,
      field: 'scope.agents',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'deny' }, matcher: '(?<=a)b' }), {
      code: 'invalid-params',
      message: 'is not a valid RE2 regular expression',
      field: 'matcher',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'deny' }, if: 'tool.name ==' }), {
      code: 'invalid-params',
      message: /if/,
      field: 'if',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'deny' }, timeoutMs: 10_000_000 }), {
      code: 'invalid-params',
      message: /timeoutMs.*600000/,
      field: 'timeoutMs',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'teleport' } }), {
      code: 'invalid-params',
      message: /teleport/,
      field: 'handler.type',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'deny', reason: 5 } }), {
      code: 'invalid-params',
      message: 'handler: reason must be a string',
      field: 'handler.reason',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'deny', colour: 'red' } }), {
      code: 'invalid-params',
      message: 'unknown field "colour"',
      field: 'handler.colour',
    })
    await bad(req('hooks.create', { ...base, handler: { type: 'deny' }, enabled: 'on' }), {
      code: 'invalid-params',
      message: 'hooks.create: params.enabled must be true or false',
      field: 'enabled',
    })
    await bad(req('hooks.create', { event: 'tool.pre', handler: { type: 'deny' } }), {
      code: 'invalid-params',
      message: 'hooks.create: params.name must be a string',
      field: 'name',
    })
    await bad(req('hooks.create', { ...base, event: 'tool.sometime', handler: { type: 'deny' } }), {
      code: 'invalid-params',
      message: /tool\.sometime/,
      field: 'event',
    })
    // None of them was stored.
    expect((await c.ok('hooks.list', { source: 'api' })).hooks).toEqual([])
  })
})

describe('approvals and subscriptions', () => {
  it('names a wrong action and an edit without payload or input', async () => {
    await bad(req('approvals.resolve', { id: 'x', action: 'maybe' }), {
      code: 'invalid-params',
      message: 'approvals.resolve: params.action must be "approve", "reject" or "edit"',
      field: 'action',
    })
    await bad(req('approvals.resolve', { id: 'x', action: 'edit', payload: 'rm -rf' }), {
      code: 'invalid-params',
      message: 'approvals.resolve: params.payload must be an object',
      field: 'payload',
    })

    // The edits without a payload need a real pending approval.
    const seen = c.pushes.length
    await c.ok('subscribe', { events: ['approval.requested'] })
    const answer = aos(warden.url, toolCall('deploy', { env: 'prod' }))
    const push = await c.push('approval.requested', () => c.pushes.length > seen)
    const id = push.id as string
    await bad(req('approvals.resolve', { id, action: 'edit' }), {
      code: 'invalid-params',
      message: 'action "edit" needs payload (the new payload) or input (the new tool input)',
      field: 'input',
    })
    await bad(req('approvals.resolve', { id, action: 'edit', payload: { a: 1 }, input: { b: 2 } }), {
      code: 'invalid-params',
      message: 'give either payload or input, not both',
      field: 'input',
    })
    await bad(req('approvals.resolve', { id, action: 'approve', payload: { a: 1 } }), {
      code: 'invalid-params',
      message: 'payload and input are only for action "edit"',
      field: 'payload',
    })
    // Still pending after the bad attempts; reject it so the held request ends.
    await c.ok('approvals.resolve', { id, action: 'reject', comment: 'test over' })
    expect((await answer).body.result.decision).toBe('deny')
    await c.ok('unsubscribe', {})
  })

  it('names an unknown topic and an empty list', async () => {
    await bad(req('subscribe', { events: ['everything'] }), {
      code: 'invalid-params',
      message: /subscribe: params\.events\.0 .*decision/,
      field: 'events.0',
    })
    await bad(req('subscribe', { events: [] }), {
      code: 'invalid-params',
      message: /^subscribe: params\.events must name at least one of decision/,
      field: 'events',
    })
    await bad(req('subscribe', { events: 'decision' }), {
      code: 'invalid-params',
      message: /subscribe: params\.events must be a list of/,
      field: 'events',
    })
    await bad(req('subscribe', {}), {
      code: 'invalid-params',
      message: /subscribe: params\.events must be a list of/,
      field: 'events',
    })
  })
})

describe('size and depth', () => {
  it('answers a frame over the limit but under the hard cap with frame-too-large and stays open', async () => {
    const text = JSON.stringify({
      type: 'req',
      id: 'big',
      method: 'hooks.list',
      params: { search: 'x'.repeat(MAX_FRAME) },
    })
    expect(text.length).toBeGreaterThan(MAX_FRAME)
    expect(text.length).toBeLessThan(HARD_CAP)
    await badNoId(text, {
      code: 'frame-too-large',
      message: `the frame is ${text.length} bytes, over the limit of ${MAX_FRAME} bytes`,
      field: null,
    })
    // Multi-byte characters count as bytes, not characters.
    const wide = JSON.stringify({
      type: 'req',
      id: 'wide',
      method: 'hooks.list',
      params: { search: 'é'.repeat(MAX_FRAME / 2) },
    })
    expect(wide.length).toBeLessThan(MAX_FRAME)
    await badNoId(wide, {
      code: 'frame-too-large',
      message: `the frame is ${Buffer.byteLength(wide)} bytes, over the limit of ${MAX_FRAME} bytes`,
      field: null,
    })
    expect((await c.ok('server.info')).token.role).toBe('admin')
  })

  it('closes a connection that sends a frame over the hard cap with 1009, and goes on serving others', async () => {
    const victim = await client()
    await victim.ok('server.info')
    victim.socket.send(
      JSON.stringify({
        type: 'req',
        id: 'huge',
        method: 'hooks.list',
        params: { search: 'x'.repeat(HARD_CAP) },
      }),
    )
    const closed = await victim.closed
    expect(closed.code).toBe(1009)
    tested.add('over-hard-cap')
    expect((await c.ok('server.info')).token.role).toBe('admin')
    const fresh = await client()
    expect((await fresh.ok('server.info')).token.role).toBe('admin')
  })

  it('refuses very deeply nested JSON at the boundary, wherever it nests', async () => {
    const depth = 30_000
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`
    const deepMessage = 'the JSON nests deeper than 64 levels'
    const inParams = `{"type":"req","id":"deep-params","method":"hooks.list","params":{"search":${nested}}}`
    expect(Buffer.byteLength(inParams)).toBeLessThan(MAX_FRAME)
    await badNoId(inParams, { code: 'bad-frame', message: deepMessage, field: null })
    await badNoId(`{"type":"req","id":"deep-as-params","method":"hooks.list","params":${nested}}`, {
      code: 'bad-frame',
      message: deepMessage,
      field: null,
    })
    await badNoId(`{"type":${nested},"id":"deep-type","method":"server.info"}`, {
      code: 'bad-frame',
      message: deepMessage,
      field: null,
    })
    await badNoId(
      `{"type":"req","id":"deep-test","method":"hooks.test","params":{"hook":{"name":"t","event":"tool.pre","handler":{"type":"deny"}},"event":{"payload":{"tool":{"name":"x","input":{"a":${nested}}}}}}}`,
      { code: 'bad-frame', message: deepMessage, field: null },
    )
    // 64 levels are fine: the frame is parsed and its params checked as usual.
    const ok = `${'['.repeat(60)}${']'.repeat(60)}`
    check(
      await c.raw(`{"type":"req","id":"deep-ok","method":"hooks.list","params":{"search":${ok}}}`, 'deep-ok'),
      {
        code: 'invalid-params',
        message: /params\.search .*string/,
        field: 'search',
      },
    )
    tested.add('deep-ok')

    // A 100k-deep frame is over the limit and never parsed.
    const deeper = `{"type":"req","id":"deeper","method":"hooks.list","params":{"search":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`
    await badNoId(deeper, { code: 'frame-too-large', message: 'over the limit of 65536 bytes', field: null })
    expect((await c.ok('server.info')).token.role).toBe('admin')
  })
})

describe('floods', () => {
  it('answers every request of a flood exactly once, some rate-limited, and serves again after a pause', async () => {
    await sleep(2500) // let the bucket refill after the barrage
    const counts = new Map<string | number | null, number>()
    const count = (data: unknown) => {
      const frame = JSON.parse(String(data)) as Res
      if (frame.type === 'res') counts.set(frame.id, (counts.get(frame.id) ?? 0) + 1)
    }
    c.socket.on('message', count)
    const n = 300
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        c.raw(JSON.stringify({ type: 'req', id: `flood-${i}`, method: 'server.info' }), `flood-${i}`),
      ),
    )
    await sleep(200)
    c.socket.off('message', count)
    for (let i = 0; i < n; i++) expect(counts.get(`flood-${i}`), `answers to flood-${i}`).toBe(1)
    expect(counts.size).toBe(n)
    const limited = answers.filter((a) => !a.ok)
    const served = answers.filter((a) => a.ok)
    expect(served.length).toBeGreaterThanOrEqual(RATE * 2 - 5)
    expect(limited.length).toBeGreaterThan(0)
    for (const a of limited) {
      check(a, {
        code: 'rate-limited',
        message: `too many requests: at most ${RATE} per second (bursts of ${RATE * 2})`,
        field: null,
      })
    }
    tested.add('flood')
    // The bystander has its own bucket.
    expect((await bystander.ok('server.info')).token.role).toBe('admin')
    await sleep(1000)
    expect((await c.ok('server.info')).token.role).toBe('admin')
  })
})

describe('afterwards', () => {
  it('the same connection, an earlier one, /healthz and the process all carry on', async () => {
    expect(tested.size).toBeGreaterThanOrEqual(30)
    expect(c.errors.filter((e) => e.id !== null)).toEqual([])
    expect((await c.ok('server.info')).token.role).toBe('admin')
    expect(
      (await bystander.ok('hooks.list', { source: 'file' })).hooks.map((h: { id: string }) => h.id),
    ).toEqual(['ask-deploy'])
    const health = await fetch(`${warden.url}/healthz`)
    expect(health.status).toBe(200)
    expect(warden.child.exitCode).toBeNull()
    expect(warden.child.signalCode).toBeNull()
    expect(warden.stderr()).not.toMatch(/unhandled|uncaught/i)
  })
})
