// The http handler against a real webhook on loopback (explicitly allowed): the request it
// sends, every answer dialect, 4xx / 5xx / connection failure / timeout outcomes with their
// retry rules, SSRF refusals, and config validation.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpHandler } from '../../src/handlers/index.js'
import { createEngine, type HookDefinition } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { type Listener, listen } from '../net/helpers.js'

let hook: Listener
let base: string
const client = createOutboundClient({ allow: ['127.0.0.1'] })
const hits = new Map<string, number>()

const json = (status: number, body: unknown) => (res: import('node:http').ServerResponse) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))

const routes: Record<string, (res: import('node:http').ServerResponse, n: number) => void> = {
  '/allow': json(200, { decision: 'allow' }),
  '/block': json(200, { decision: 'block', reason: 'rm is not allowed' }),
  '/claude': json(200, {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'claude says no',
    },
  }),
  '/modify': json(200, { decision: 'allow', updatedInput: { cmd: 'ls -la' }, reason: 'safer' }),
  '/context': json(200, { additionalContext: 'remember the staging rules' }),
  '/ask': json(200, { decision: 'ask', reason: 'a human should look' }),
  '/stop': json(200, { continue: false, stopReason: 'stop the agent' }),
  '/text': (res) => res.end('OK'),
  '/empty': (res) => res.writeHead(204).end(),
  '/bad-decision': json(200, { decision: 42 }),
  '/array': json(200, [1, 2]),
  '/forbidden': json(403, { reason: 'tool not permitted for this team' }),
  '/fail': (res) => res.writeHead(503).end('down'),
  '/fail-once': (res, n) =>
    n === 1 ? res.writeHead(500).end() : json(200, { decision: 'allow', reason: 'second try' })(res),
  '/slow': (res) => setTimeout(() => res.end('{}'), 10_000).unref(),
  '/hang': (res) => {
    res.on('close', () => {
      hangClosed = true
    })
  },
}
let hangClosed = false

beforeAll(async () => {
  hook = await listen('127.0.0.1', (req, res) => {
    const path = req.url ?? '/'
    const n = (hits.get(path) ?? 0) + 1
    hits.set(path, n)
    const route = routes[path]
    if (route) route(res, n)
    else res.writeHead(404).end()
  })
  base = `http://127.0.0.1:${hook.port}`
})

afterAll(async () => {
  await client.close()
  await hook.close()
})

const event = {
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'ls' } } },
  context: { session: { id: 's1' }, tenantId: 'acme' },
}

function http(path: string, extra: Partial<HookDefinition> = {}, handler: Record<string, unknown> = {}) {
  return {
    name: `web${path.replace(/\//g, '-')}`,
    event: 'tool.pre',
    handler: { type: 'http', url: `${base}${path}`, ...handler },
    ...extra,
  }
}

async function decide(def: HookDefinition, options: { retryDelayMs?: number; allow?: string[] } = {}) {
  const local = options.allow ? createOutboundClient({ allow: options.allow }) : client
  const engine = createEngine({
    hooks: [def],
    handlers: [
      createHttpHandler({
        client: local,
        ...(options.retryDelayMs ? { retryDelayMs: options.retryDelayMs } : {}),
      }),
    ],
  })
  try {
    return await engine.dispatch(event)
  } finally {
    await engine.close()
    if (local !== client) await local.close()
  }
}

describe('http handler: request and answers', () => {
  it('POSTs Claude Code style JSON with the canonical event and the configured headers', async () => {
    const before = hook.received.length
    await decide(http('/allow', {}, { headers: { 'X-Team': 'platform' } }))
    const got = hook.received[before]!
    expect(got.method).toBe('POST')
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['x-team']).toBe('platform')
    expect(JSON.parse(got.body)).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'exec',
      tool_input: { cmd: 'ls' },
      warden: { event: 'tool.pre', payload: { tool: { name: 'exec' } }, context: { tenantId: 'acme' } },
    })
  })

  it('reads the GoClaw, Claude Code and loom dialects', async () => {
    expect((await decide(http('/allow'))).decision).toBe('allow')
    expect(await decide(http('/block'))).toMatchObject({ decision: 'deny', reason: 'rm is not allowed' })
    expect(await decide(http('/claude'))).toMatchObject({ decision: 'deny', reason: 'claude says no' })
    const modified = await decide(http('/modify'))
    expect(modified.decision).toBe('modify')
    expect(modified.payload).toEqual({ tool: { name: 'exec', input: { cmd: 'ls -la' } } })
    const context = await decide(http('/context'))
    expect(context.decision).toBe('allow')
    expect(context.additionalContext).toEqual(['remember the staging rules'])
    expect(await decide(http('/stop'))).toMatchObject({ decision: 'deny', reason: 'stop the agent' })
    const asked = await decide(http('/ask'))
    expect(asked.trace[0]?.outcome).toBe('ask')
  })

  it('allows on a non-JSON 2xx answer, and fails closed on an invalid JSON decision', async () => {
    expect((await decide(http('/text'))).decision).toBe('allow')
    expect((await decide(http('/empty'))).decision).toBe('allow')
    const bad = await decide(http('/bad-decision'))
    expect(bad.decision).toBe('deny')
    expect(bad.trace[0]?.error?.message).toMatch(/answered an invalid decision: decision must be one of/)
    expect((await decide(http('/array'))).trace[0]?.error?.message).toMatch(/not an object/)
  })
})

describe('http handler: failures', () => {
  it('denies on 4xx with the webhook reason, without retrying', async () => {
    const before = hits.get('/forbidden') ?? 0
    const decision = await decide(http('/forbidden', { onError: 'allow' }))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/answered 403: tool not permitted for this team/)
    expect(hits.get('/forbidden')).toBe(before + 1)
  })

  it('retries a 5xx once after a second, then applies onError', async () => {
    const before = hits.get('/fail') ?? 0
    const started = Date.now()
    const denied = await decide(http('/fail'))
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    expect(hits.get('/fail')).toBe(before + 2)
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toMatch(/failed closed: webhook failed twice: .* answered 503/)
    expect(denied.trace[0]?.logs?.[0]).toMatch(/answered 503; retrying once in 1000 ms/)
    const allowed = await decide(http('/fail', { onError: 'allow' }), { retryDelayMs: 50 })
    expect(allowed.decision).toBe('allow')
    expect(allowed.trace[0]?.reason).toMatch(/allowed by its failure policy/)
  })

  it('a 5xx followed by a good answer takes the good answer', async () => {
    const decision = await decide(http('/fail-once'), { retryDelayMs: 50 })
    expect(decision).toMatchObject({ decision: 'allow' })
    expect(decision.trace[0]?.reason).toBe('second try')
    expect(hits.get('/fail-once')).toBe(2)
  })

  it('retries a connection failure once, then applies onError', async () => {
    const gone = await listen('127.0.0.1')
    const port = gone.port
    await gone.close()
    const def = {
      name: 'down',
      event: 'tool.pre',
      handler: { type: 'http', url: `http://127.0.0.1:${port}/` },
    }
    const decision = await decide(def, { retryDelayMs: 50 })
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/webhook failed twice: could not reach/)
    expect(decision.trace[0]?.logs?.[0]).toMatch(/retrying once/)
  })

  it('applies onTimeout when the webhook is too slow', async () => {
    const denied = await decide(http('/slow', { timeoutMs: 300 }))
    expect(denied.decision).toBe('deny')
    expect(denied.trace[0]?.error?.kind).toBe('timeout')
    const allowed = await decide(http('/slow', { timeoutMs: 300, onTimeout: 'allow' }))
    expect(allowed.decision).toBe('allow')
  })

  it('abandons the request when the hook times out (the connection closes, no backstop wait)', async () => {
    hangClosed = false
    const denied = await decide(http('/hang', { timeoutMs: 200 }))
    expect(denied.trace[0]?.error?.kind).toBe('timeout')
    // The client's own backstop would fire only at timeoutMs + 1000 ms.
    await expect.poll(() => hangClosed, { timeout: 700, interval: 20 }).toBe(true)
  })

  it('refuses a webhook on a private address unless network.allow lists it, without retrying', async () => {
    const before = hook.count
    const decision = await decide(http('/allow'), { allow: ['10.0.0.0/8'] })
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(
      /refused to connect to 127\.0\.0\.1: it is a loopback address; to allow it, add "127\.0\.0\.1"/,
    )
    expect(decision.trace[0]?.logs).toBeUndefined()
    expect(hook.count).toBe(before)
  })

  it('refuses bad config at load with the field named', () => {
    const engineWith = (handler: Record<string, unknown>) =>
      createEngine({
        hooks: [{ name: 'h', event: 'tool.pre', handler: { type: 'http', ...handler } }],
        handlers: [createHttpHandler({ client })],
      })
    expect(() => engineWith({})).toThrow(/handler: url is required/)
    expect(() => engineWith({ url: 'ftp://x/' })).toThrow(/url must be an absolute http or https URL/)
    expect(() => engineWith({ url: base, headers: { 'bad header': 'x' } })).toThrow(
      /handler\.headers: "bad header" is not a valid HTTP header name/,
    )
    expect(() => engineWith({ url: base, headers: { Host: 'evil.test' } })).toThrow(
      /handler\.headers: "Host" is set by Warden itself/,
    )
    expect(() => engineWith({ url: base, headers: { 'X-A': 'b\r\nX-B: c' } })).toThrow(
      /handler\.headers\.X-A contains a line break/,
    )
    expect(() => engineWith({ url: base, headers: { 'X-A': 1 } })).toThrow(/must be a string/)
    expect(() => engineWith({ url: base, secretHeaders: { A: 'b' } })).toThrow(/secret box/)
    expect(() => engineWith({ url: base, extra: 1 })).toThrow(/unknown field "extra"/)
  })
})
