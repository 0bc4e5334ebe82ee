// A2A hooks, one shape whatever the client speaks: every `a2a.response` carries the
// read-only view `a2a.task` (always an object) and `a2a.artifacts` (always a list), the same
// for a v0.3 and a current stream event and for a task that is `result.task` (send) or
// `result` (GetTask); and a request's message rewritten from each handler type (`fn`,
// command, Starlark script, http webhook) through a real `warden a2a` gateway in front of an
// official @a2a-js/sdk agent.

import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine, HookCall, HookDefinition, JsonObject } from '../../src/core/index.js'
import { type A2aGateway, responseKind, responsePayload, startA2aGateway } from '../../src/gateway/index.js'
import { createHttpHandler, createScriptHandler } from '../../src/handlers/index.js'
import { createEngine } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { type PeerAgent, startPeerAgent } from '../gateway/a2a-peer.js'

const target = { name: 'peer', url: 'http://127.0.0.1:1/' }
const view = (result: JsonObject) => {
  const kind = responseKind(result).kind
  return (responsePayload('SendStreamingMessage', 1, kind, result, target).a2a as JsonObject) ?? {}
}

describe('a2a.task and a2a.artifacts: one view for every version and method', () => {
  const artifact = { artifactId: 'a1', parts: [{ kind: 'text', text: 'hi' }] }
  const task = { id: 't1', contextId: 'c1', status: { state: 'working' } }
  const rows: [string, JsonObject, JsonObject, JsonObject[]][] = [
    [
      'a v0.3 artifact-update event',
      { kind: 'artifact-update', taskId: 't1', contextId: 'c1', artifact },
      { id: 't1', contextId: 'c1', artifacts: [artifact], history: [] },
      [artifact],
    ],
    [
      'a current artifactUpdate event',
      { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact } },
      { id: 't1', contextId: 'c1', artifacts: [artifact], history: [] },
      [artifact],
    ],
    [
      'a send answered with {task} and no artifacts on the wire',
      { task },
      { id: 't1', contextId: 'c1', status: { state: 'working' }, artifacts: [], history: [] },
      [],
    ],
    [
      'GetTask answered with the task itself',
      { ...task, artifacts: [artifact] },
      { id: 't1', contextId: 'c1', status: { state: 'working' }, artifacts: [artifact] },
      [artifact],
    ],
    [
      'a v0.3 status-update without a status state',
      { kind: 'status-update', taskId: 't1', contextId: 'c1', status: {} },
      { id: 't1', status: { state: '' }, artifacts: [] },
      [],
    ],
    ['a plain message', { message: { messageId: 'm', parts: [] } }, { id: '', status: { state: '' } }, []],
  ]
  for (const [label, result, taskView, artifacts] of rows) {
    it(label, () => {
      const a2a = view(result)
      expect(a2a.task).toMatchObject(taskView)
      expect(a2a.artifacts).toEqual(artifacts)
    })
  }
})

describe('rewriting an A2A message from each handler type', () => {
  let peer: PeerAgent
  let gateway: A2aGateway
  let engine: Engine
  let webhook: Server
  let webhookUrl = ''
  const client = createOutboundClient({ allow: ['127.0.0.0/8'] })
  const responses: JsonObject[] = []

  /** The params with the message's text digits masked, as every handler below returns them. */
  const masked = (params: JsonObject): JsonObject =>
    JSON.parse(JSON.stringify(params).replace(/\d{4}/g, '####'))

  beforeAll(async () => {
    peer = await startPeerAgent()
    webhook = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => {
        body += d
      })
      req.on('end', () => {
        const input = JSON.parse(body) as {
          warden: { payload: { a2a: { payload: { params: JsonObject } } } }
        }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            decision: 'allow',
            updatedInput: masked(input.warden.payload.a2a.payload.params),
          }),
        )
      })
    })
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve))
    const address = webhook.address()
    webhookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`
    engine = createEngine({
      handlers: [createScriptHandler(), createHttpHandler({ client })],
      hooks: [
        {
          name: 'views',
          event: 'a2a.response',
          if: 'size(payload.a2a.artifacts) >= 0 && payload.a2a.task.status.state != "x"',
          handler: {
            type: 'fn',
            fn: ({ event }: HookCall) => void responses.push(event.payload.a2a as JsonObject),
          },
        },
      ],
    })
    gateway = await startA2aGateway({ engine, upstream: peer.url })
  }, 30_000)

  afterAll(async () => {
    await gateway?.close()
    await peer?.close()
    await engine?.close()
    webhook?.closeAllConnections()
    webhook?.close()
    await client.close()
  })

  const script = `
def handle(event, payload):
    a2a = payload["a2a"]
    rpc = a2a["payload"]
    params = rpc["params"]
    message = params["message"]
    parts = [dict(p, text = p["text"].replace("4711", "####")) for p in message["parts"]]
    message = dict(message, parts = parts)
    return modify(dict(payload, a2a = dict(a2a, payload = dict(rpc, params = dict(params, message = message)))))
`
  const node = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const p=JSON.parse(s).warden.payload.a2a.payload.params;process.stdout.write(JSON.stringify({updatedInput:JSON.parse(JSON.stringify(p).replace(/\\d{4}/g,'####'))}))})`
  const handlers: [string, () => HookDefinition['handler']][] = [
    [
      'fn (updatedInput)',
      () => ({
        type: 'fn',
        fn: ({ event }: HookCall) => ({
          decision: 'modify',
          updatedInput: masked(
            ((event.payload.a2a as JsonObject).payload as JsonObject).params as JsonObject,
          ),
        }),
      }),
    ],
    [
      'command (updatedInput on stdout)',
      () => ({ type: 'command', command: process.execPath, args: ['-e', node] }),
    ],
    ['script (modify(payload))', () => ({ type: 'script', source: script })],
    ['http (GoClaw updatedInput)', () => ({ type: 'http', url: webhookUrl })],
  ]
  for (const [label, handler] of handlers) {
    it(label, async () => {
      const hook = engine.register({
        name: `mask-${label.split(' ')[0]}`,
        event: 'a2a.send',
        handler: handler(),
      })
      try {
        const raw = await fetch(new URL('/a2a/jsonrpc', gateway.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'card 4711' }] } },
          }),
        })
        // Only the message's parts are compared: its random ids may hold any digits.
        const answer = (await raw.json()) as { result?: { message?: { parts?: unknown } } }
        const parts = JSON.stringify(answer.result?.message?.parts ?? null)
        expect(parts).toContain('echo: card ####')
        expect(parts).not.toContain('4711')
      } finally {
        engine.unregister(hook.id)
      }
    })
  }

  it('a stream: the view is present on every event, so the `if` never fails closed', async () => {
    responses.length = 0
    const raw = await fetch(new URL('/a2a/jsonrpc', gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'stream:3:abcdef' }] } },
      }),
    })
    const text = await raw.text()
    expect(text).not.toContain('"error"')
    expect(responses.map((r) => r.kind)).toEqual([
      'task',
      'artifactUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ])
    for (const r of responses) {
      expect(typeof (r.task as JsonObject).id).toBe('string')
      expect(Array.isArray(r.artifacts)).toBe(true)
    }
    expect(responses.slice(1, 4).map((r) => (r.artifacts as JsonObject[]).length)).toEqual([1, 1, 1])
  })
})
