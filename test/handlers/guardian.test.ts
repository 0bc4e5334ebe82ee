// The guardian handler against real HTTP servers on loopback: the event goes out as an AOS
// request, the answer comes back as a verdict; unreachable, slow or garbled Guardians get
// the hook's onError / onTimeout, with the cause as the reason.

import { createServer as createHttpServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { guardianHandler, mergeModifications } from '../../src/handlers/index.js'
import { createEngine, type HookDefinition, type JsonObject } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { createAosGuardianCodec } from '../../src/protocols/index.js'

type Reply = (request: JsonObject) => { status?: number; body: string; delayMs?: number }
let reply: Reply = () => ({ body: '{}' })
const received: JsonObject[] = []
let server: Server
let url = ''

beforeAll(async () => {
  server = createHttpServer((req, res) => {
    let text = ''
    req.on('data', (d) => {
      text += d
    })
    req.on('end', () => {
      const request = JSON.parse(text) as JsonObject
      received.push({ ...request, tenantHeader: req.headers['x-warden-tenant'] ?? null })
      const answer = reply(request)
      setTimeout(() => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' })
        res.end(answer.body)
      }, answer.delayMs ?? 0)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/aos`
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

function engineWith(hook: Partial<HookDefinition> = {}) {
  const client = createOutboundClient({ allow: ['127.0.0.0/8'] })
  return createEngine({
    handlers: [
      { ...guardianHandler({ client, codec: createAosGuardianCodec() }), close: () => client.close() },
    ],
    hooks: [
      { name: 'remote', event: 'tool.pre', handler: { type: 'guardian', url }, ...hook } as HookDefinition,
    ],
  })
}

const event = {
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'ls', dir: '/tmp' } } },
  context: { tenantId: 'acme', session: { id: 's' } },
}

const result = (request: JsonObject, body: JsonObject) => ({
  body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: body }),
})

describe('the guardian handler', () => {
  it('sends the event as steps/toolCallRequest with the tenant header, and takes a deny', async () => {
    received.length = 0
    reply = (request) =>
      result(request, { decision: 'deny', message: 'remote says no', reasonCode: ['remote-policy'] })
    const engine = engineWith()
    const decision = await engine.dispatch(event)
    await engine.close()
    expect(decision).toMatchObject({
      decision: 'deny',
      reason: 'remote says no',
      reasonCode: ['remote-policy'],
    })
    expect(received[0]).toMatchObject({
      jsonrpc: '2.0',
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: {
          toolId: 'exec',
          inputs: [
            { name: 'cmd', value: 'ls' },
            { name: 'dir', value: '/tmp' },
          ],
        },
      },
      tenantHeader: 'acme',
    })
  })

  it('maps a modify answer back into the payload', async () => {
    reply = (request) => {
      const params = request.params as { toolCallRequest: { inputs: { name: string; value: unknown }[] } }
      const inputs = params.toolCallRequest.inputs.map((i) =>
        i.name === 'cmd' ? { ...i, value: 'ls -l' } : i,
      )
      return result(request, {
        decision: 'modify',
        message: 'safer',
        modifiedRequest: {
          ...request,
          params: {
            ...params,
            toolCallRequest: { ...params.toolCallRequest, inputs },
          } as unknown as JsonObject,
        },
      })
    }
    const engine = engineWith()
    const decision = await engine.dispatch(event)
    await engine.close()
    expect(decision.decision).toBe('modify')
    expect(decision.payload?.tool).toMatchObject({ name: 'exec', input: { cmd: 'ls -l', dir: '/tmp' } })
  })

  const failures: [string, Reply, string][] = [
    ['garbage', () => ({ body: 'not json at all' }), 'not JSON'],
    [
      'a JSON-RPC error',
      (r) => ({
        body: JSON.stringify({ jsonrpc: '2.0', id: r.id, error: { code: -32603, message: 'boom' } }),
      }),
      'error -32603',
    ],
    [
      'an unknown decision',
      (r) => result(r, { decision: 'maybe', message: '?' }),
      'expected allow, deny or modify',
    ],
    ['another id', () => result({ id: 'other' }, { decision: 'allow', message: 'ok' }), 'answered id'],
    ['HTTP 500', () => ({ status: 500, body: '{}' }), 'HTTP 500'],
    [
      'modify without a modifiedRequest',
      (r) => result(r, { decision: 'modify', message: 'x' }),
      'without a modifiedRequest',
    ],
  ]
  for (const [name, answer, reason] of failures) {
    it(`denies on ${name} (onError), saying why; allows when onError is allow`, async () => {
      reply = answer
      const engine = engineWith()
      const denied = await engine.dispatch(event)
      await engine.close()
      expect(denied.decision).toBe('deny')
      expect(denied.reason).toContain(reason)
      const lenient = engineWith({ onError: 'allow' })
      expect((await lenient.dispatch(event)).decision).toBe('allow')
      await lenient.close()
    })
  }

  it('denies a Guardian slower than the hook timeout (onTimeout)', async () => {
    reply = (r) => ({ ...result(r, { decision: 'allow', message: 'late' }), delayMs: 1500 })
    const engine = engineWith({ timeoutMs: 200 })
    const decision = await engine.dispatch(event)
    await engine.close()
    expect(decision.decision).toBe('deny')
    expect(decision.trace[0]?.error?.kind).toBe('timeout')
  })

  it('denies an unreachable Guardian', async () => {
    const client = createOutboundClient({ allow: ['127.0.0.0/8'] })
    const engine = createEngine({
      handlers: [guardianHandler({ client, codec: createAosGuardianCodec() })],
      hooks: [
        { name: 'gone', event: 'tool.pre', handler: { type: 'guardian', url: 'http://127.0.0.1:9/aos' } },
      ],
    })
    const decision = await engine.dispatch(event)
    await engine.close()
    await client.close()
    expect(decision.decision).toBe('deny')
    expect(decision.reason.length).toBeGreaterThan(10)
  })

  it('refuses, at registration, events AOS has no method for, and bad URLs', () => {
    const client = createOutboundClient()
    const handlers = [guardianHandler({ client, codec: createAosGuardianCodec() })]
    expect(() =>
      createEngine({
        handlers,
        hooks: [{ name: 'x', event: 'session.start', handler: { type: 'guardian', url } }],
      }),
    ).toThrow(/AOS has a method/)
    expect(() =>
      createEngine({
        handlers,
        hooks: [{ name: 'y', event: 'tool.pre', handler: { type: 'guardian', url: 'ftp://x' } }],
      }),
    ).toThrow(/http\(s\) URL/)
  })
})

describe('mergeModifications', () => {
  it('applies each modification over the ones before, in order', () => {
    const original = { tool: { name: 't', input: { a: 1, b: 2, c: 3 } } }
    const first = { tool: { name: 't', input: { a: 10, b: 2, c: 3 } } }
    const second = { tool: { name: 't', input: { a: 1, b: 20, d: 4 } } }
    expect(mergeModifications(original, [first, second])).toEqual({
      tool: { name: 't', input: { a: 10, b: 20, d: 4 } },
    })
    const conflicting = { tool: { name: 't', input: { a: 99, b: 2, c: 3 } } }
    expect(mergeModifications(original, [first, conflicting]).tool).toMatchObject({ input: { a: 99 } })
    expect(mergeModifications(original, [conflicting, first]).tool).toMatchObject({ input: { a: 10 } })
  })
})
