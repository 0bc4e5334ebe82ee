// What `warden a2a` hooks see: every request as the A2A JSON-RPC request
// `{jsonrpc, id, method, params}` (synthesised on HTTP+JSON with the call's request id),
// every answer and streamed event as the JSON-RPC response `{jsonrpc, id, result}`; and a
// modify that changes the envelope (id, method, params, an answer into an error) refused.

import type { Client } from '@a2a-js/sdk/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CheckedEvent,
  type Decision,
  type Engine,
  type HookCall,
  type Json,
  type JsonObject,
  modify,
} from '../../src/core/index.js'
import { type A2aGateway, startA2aGateway } from '../../src/gateway/index.js'
import { createEngine } from '../../src/index.js'
import { clientFor, type PeerAgent, startPeerAgent, userMessage } from './a2a-peer.js'

const seen: CheckedEvent[] = []
/** What the engine recorded: the decision each caller was told. */
const recorded: Decision[] = []
/** What the `tamper` hook changes in the next event it sees, if anything. */
let tamper: ((a2aPayload: JsonObject) => void) | undefined

const a2aOf = (event: CheckedEvent | undefined) => (event?.payload.a2a ?? {}) as JsonObject

/** A tamper that sets (or, with undefined, removes) one field of `a2a.payload`. */
const setTo = (field: string, value: Json | undefined) => (payload: JsonObject) => {
  if (value === undefined) delete payload[field]
  else payload[field] = value
}

function tampering({ event }: HookCall) {
  if (!tamper) return undefined
  const copy = structuredClone(event.payload)
  tamper((copy.a2a as JsonObject).payload as JsonObject)
  return modify(copy)
}

describe('warden a2a: the JSON-RPC envelope hooks see', () => {
  let peer: PeerAgent
  let gateway: A2aGateway
  let engine: Engine
  let rest: Client
  let jsonrpc: Client

  beforeAll(async () => {
    peer = await startPeerAgent()
    engine = createEngine({
      recorder: { record: ({ decision }) => void recorded.push(decision) },
      hooks: [
        ...(['a2a.send', 'a2a.stream', 'a2a.response'] as const).map((event) => ({
          name: `record-${event}`,
          event,
          handler: { type: 'fn' as const, fn: (call: HookCall) => void seen.push(call.event) },
        })),
        { name: 'tamper-send', event: 'a2a.send', handler: { type: 'fn', fn: tampering } },
        { name: 'tamper-answer', event: 'a2a.response', handler: { type: 'fn', fn: tampering } },
      ],
    })
    gateway = await startA2aGateway({ engine, upstream: peer.url })
    jsonrpc = await clientFor(gateway.url)
    rest = await clientFor(gateway.url, 'HTTP+JSON')
  }, 30_000)

  afterAll(async () => {
    await gateway?.close()
    await peer?.close()
    await engine?.close()
  })

  it('shows a JSON-RPC call as its request and its answer as the response, same id', async () => {
    seen.length = 0
    const params = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }
    const raw = await fetch(new URL('/a2a/jsonrpc', gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params }),
    })
    expect(((await raw.json()) as JsonObject).id).toBe(7)
    const [send, answer] = seen
    expect(send?.event).toBe('a2a.send')
    expect(a2aOf(send)).toMatchObject({
      method: 'SendMessage',
      payload: { jsonrpc: '2.0', id: 7, method: 'SendMessage', params },
    })
    expect(answer?.event).toBe('a2a.response')
    expect(a2aOf(answer)).toMatchObject({ method: 'SendMessage', direction: 'inbound', kind: 'message' })
    const response = a2aOf(answer).payload as JsonObject
    expect(Object.keys(response).sort()).toEqual(['id', 'jsonrpc', 'result'])
    expect(response).toMatchObject({ jsonrpc: '2.0', id: 7 })
  })

  it('synthesises the envelope for HTTP+JSON: current method name, the request id as id', async () => {
    seen.length = 0
    await rest.sendMessage({ message: userMessage('over rest') } as never)
    const [send, answer] = seen
    const request = a2aOf(send).payload as JsonObject
    expect(request).toMatchObject({ jsonrpc: '2.0', method: 'SendMessage', id: send?.context.requestId })
    expect(typeof request.id).toBe('string')
    expect(((request.params as JsonObject).message as JsonObject).parts).toMatchObject([
      { text: 'over rest' },
    ])
    expect(a2aOf(answer).payload).toMatchObject({ jsonrpc: '2.0', id: request.id })
  })

  it('shows every streamed event as the JSON-RPC response that carries it', async () => {
    seen.length = 0
    for await (const _ of jsonrpc.sendMessageStream({ message: userMessage('stream:3:abcdef') } as never)) {
      void _
    }
    const request = a2aOf(seen[0]).payload as JsonObject
    const events = seen.filter((e) => e.event === 'a2a.response').map((e) => a2aOf(e))
    expect(events.map((e) => e.kind)).toEqual([
      'task',
      'artifactUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ])
    for (const event of events) {
      expect(event.payload).toMatchObject({ jsonrpc: '2.0', id: request.id })
      expect((event.payload as JsonObject).result).toBeTypeOf('object')
    }
  })

  it.each([
    ['id', setTo('id', 'other'), 'a modify may not change a2a.payload.id'],
    ['method', setTo('method', 'CancelTask'), 'a2a.payload.method'],
    ['jsonrpc', setTo('jsonrpc', undefined), 'a2a.payload.jsonrpc'],
    ['params', setTo('params', 'x'), 'the modified a2a.payload.params is not an object'],
  ])('refuses a modify of the request %s, naming it, on both bindings', async (_, change, reason) => {
    tamper = change
    try {
      for (const client of [jsonrpc, rest]) {
        recorded.length = 0
        const error = await client.sendMessage({ message: userMessage('hello') } as never).catch((e) => e)
        expect(String((error as Error).message)).toContain(reason)
        const sent = recorded.filter((d) => d.event === 'a2a.send')
        expect(sent.map((d) => d.decision)).toEqual(['deny'])
        expect(sent[0]?.reasonCode).toContain('modify-refused')
        expect(sent[0]?.reason).toContain(reason)
        expect(sent[0]?.payload).toBeUndefined()
      }
    } finally {
      tamper = undefined
    }
  })

  it('refuses a modify that turns an answer into an error or drops its result', async () => {
    const changes = [setTo('error', { code: 1, message: 'no' }), setTo('result', undefined), setTo('id', 99)]
    const reasons = ['a2a.payload.error', 'the modified a2a.payload has no result', 'a2a.payload.id']
    for (const [i, change] of changes.entries()) {
      tamper = (payload) => {
        if (!('method' in payload)) change(payload)
      }
      try {
        recorded.length = 0
        const error = await jsonrpc.sendMessage({ message: userMessage('hello') } as never).catch((e) => e)
        expect(String((error as Error).message)).toContain(reasons[i])
        const answers = recorded.filter((d) => d.event === 'a2a.response')
        expect(answers.map((d) => d.decision)).toEqual(['deny'])
        expect(answers[0]?.reasonCode).toContain('modify-refused')
      } finally {
        tamper = undefined
      }
    }
  })
})
