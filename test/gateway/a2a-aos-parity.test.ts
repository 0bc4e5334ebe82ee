// One hook definition, two parts of Warden: the same hooks run on `/aos` (the AOS A2A
// methods, and `protocols/A2A` for answers) and on `warden a2a` between two official
// @a2a-js/sdk agents (JSON-RPC and HTTP+JSON), and decide the same: they read the same
// text at `a2a.payload.params.message.parts` and `a2a.payload.result`, allow, deny and
// modify alike, and a modify that changes the JSON-RPC method is refused on both.

import type { Client } from '@a2a-js/sdk/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  deny,
  type Engine,
  type HookCall,
  type HookDefinition,
  type Json,
  type JsonObject,
  modify,
} from '../../src/core/index.js'
import { type A2aGateway, startA2aGateway } from '../../src/gateway/index.js'
import { createEngine } from '../../src/index.js'
import { example, startGuardian, type TestGuardian } from '../server/aos-helper.js'
import { clientFor, type PeerAgent, partsText, startPeerAgent, userMessage } from './a2a-peer.js'

const isObj = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The parts of the message an A2A request sends (v0.3 `{kind, text}` or current `{text}`). */
function requestParts(payload: JsonObject): JsonObject[] {
  const request = (payload.a2a as JsonObject).payload as JsonObject
  const message = (request.params as JsonObject).message as JsonObject
  return message.parts as JsonObject[]
}

/** The text of every part under an answer: message, task, artifact or update. */
function texts(value: Json | undefined): string[] {
  if (Array.isArray(value)) return value.flatMap(texts)
  if (!isObj(value)) return []
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'parts' && Array.isArray(inner)
      ? inner.flatMap((p) => (isObj(p) && typeof p.text === 'string' ? [p.text] : []))
      : texts(inner),
  )
}

function redacted(value: Json): Json {
  if (typeof value === 'string') return value.replaceAll('secret', '[redacted]')
  if (Array.isArray(value)) return value.map(redacted)
  if (!isObj(value)) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v)]))
}

/** What the hooks read, side by side. */
const read: { side: string; text: string }[] = []
let side = ''

/** The hooks under test: one definition, used as it is by both engines. */
const HOOKS: HookDefinition[] = [
  {
    name: 'no-passwords-out',
    event: 'a2a.send',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const text = requestParts(event.payload)
          .map((p) => String(p.text ?? ''))
          .join('')
        read.push({ side, text })
        return text.includes('password') ? deny('no passwords to other agents') : undefined
      },
    },
  },
  {
    name: 'whisper',
    event: 'a2a.send',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        if (!String(requestParts(event.payload)[0]?.text).startsWith('shout')) return undefined
        const copy = structuredClone(event.payload)
        ;(requestParts(copy)[0] as JsonObject).text = 'whisper'
        return modify(copy)
      },
    },
  },
  {
    name: 'reroute',
    event: 'a2a.send',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        if (requestParts(event.payload)[0]?.text !== 'reroute') return undefined
        const copy = structuredClone(event.payload)
        ;((copy.a2a as JsonObject).payload as JsonObject).method = 'tasks/cancel'
        return modify(copy)
      },
    },
  },
  {
    name: 'answers',
    event: 'a2a.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const answer = (event.payload.a2a as JsonObject).payload as JsonObject
        const text = texts(answer.result).join('')
        read.push({ side, text })
        if (text.includes('sk-live')) return deny('an API key in the answer')
        if (!text.includes('secret')) return undefined
        const copy = structuredClone(event.payload)
        const inner = (copy.a2a as JsonObject).payload as JsonObject
        inner.result = redacted(inner.result as Json)
        return modify(copy)
      },
    },
  },
]

/** The outcome as a client sees it: the text the agent answered with, or the denial. */
type Outcome = { answered: string } | { denied: string }

const SEND_EXAMPLE = example('a2a__hooks__send_message_request__02__5-aos-payload.json') as JsonObject

function aosSend(text: string): JsonObject {
  const request = structuredClone(SEND_EXAMPLE)
  const payload = (request.params as JsonObject).payload as JsonObject
  const message = (payload.params as JsonObject).message as JsonObject
  message.parts = [{ kind: 'text', text }]
  return request
}

function aosAnswer(text: string): JsonObject {
  const result = { kind: 'message', role: 'agent', messageId: 'r', parts: [{ kind: 'text', text }] }
  return {
    jsonrpc: '2.0',
    id: 'answer',
    method: 'protocols/A2A',
    params: { message: { jsonrpc: '2.0', id: 1, result } },
  }
}

describe('one A2A hook on /aos and on warden a2a', () => {
  let guardian: TestGuardian
  let peer: PeerAgent
  let gateway: A2aGateway
  let engine: Engine
  const clients: Record<string, Client> = {}

  beforeAll(async () => {
    guardian = await startGuardian({ hooks: HOOKS })
    peer = await startPeerAgent()
    engine = createEngine({ hooks: HOOKS })
    gateway = await startA2aGateway({ engine, upstream: peer.url })
    clients.jsonrpc = await clientFor(gateway.url)
    clients.rest = await clientFor(gateway.url, 'HTTP+JSON')
  }, 30_000)

  afterAll(async () => {
    await gateway?.close()
    await peer?.close()
    await engine?.close()
    await guardian?.close()
  })

  /** A send on /aos: what the agent would be sent (or the denial). */
  async function onAos(text: string): Promise<Outcome> {
    side = 'aos'
    // protocols/A2A modifies are read raw: the AOS schemas do not list that method.
    const response = await fetch(`${guardian.url}/aos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(aosSend(text)),
    })
    const result = ((await response.json()) as { result: JsonObject }).result
    if (result.decision === 'deny') return { denied: String(result.message) }
    const sent =
      result.decision === 'modify'
        ? (((result.modifiedRequest as JsonObject).params as JsonObject).payload as JsonObject)
        : ((aosSend(text).params as JsonObject).payload as JsonObject)
    return { answered: `echo: ${requestParts({ a2a: { payload: sent } })[0]?.text}` }
  }

  /** An answer on /aos (`protocols/A2A`): what the client would be given (or the denial). */
  async function answerOnAos(text: string): Promise<Outcome> {
    side = 'aos'
    const response = await fetch(`${guardian.url}/aos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(aosAnswer(text)),
    })
    const result = ((await response.json()) as { result: JsonObject }).result
    if (result.decision === 'deny') return { denied: String(result.message) }
    const message =
      result.decision === 'modify'
        ? (((result.modifiedRequest as JsonObject).params as JsonObject).message as JsonObject)
        : ((aosAnswer(text).params as JsonObject).message as JsonObject)
    return { answered: texts(message.result).join('') }
  }

  /** A send through the gateway to the SDK agent, which echoes what it gets. */
  async function onGateway(transport: string, text: string): Promise<Outcome> {
    side = transport
    const client = clients[transport] as Client
    try {
      const result = await client.sendMessage({ message: userMessage(text) } as never)
      return { answered: 'messageId' in result ? partsText(result.parts) : 'not a message' }
    } catch (error) {
      const message = (error as Error).message
      return { denied: /Denied by Warden: (.*?)(?:"|$| \(-?\d+\))/.exec(message)?.[1] ?? message }
    }
  }

  /** The refused modify names the field; the method it was differs by transport, so it is cut. */
  const normal = (outcome: Outcome): Outcome =>
    'denied' in outcome
      ? { denied: outcome.denied.replace(/^.*(a modify may not change a2a\.payload\.\w+).*$/, '$1') }
      : outcome

  it.each([
    ['allows', 'hello', { answered: 'echo: hello' }],
    ['denies', 'my password is hunter2', { denied: 'no passwords to other agents' }],
    ['modifies', 'shout it', { answered: 'echo: whisper' }],
    ['refuses a modify of the method', 'reroute', { denied: 'a modify may not change a2a.payload.method' }],
  ])('%s a send alike (%s)', async (_, text, expected) => {
    read.length = 0
    const outcomes = {
      aos: normal(await onAos(text)),
      jsonrpc: normal(await onGateway('jsonrpc', text)),
      rest: normal(await onGateway('rest', text)),
    }
    for (const outcome of Object.values(outcomes)) {
      if ('denied' in expected)
        expect(outcome).toMatchObject({ denied: expect.stringContaining(expected.denied) })
      else expect(outcome).toEqual(expected)
    }
    expect(outcomes.jsonrpc).toEqual(outcomes.aos)
    expect(outcomes.rest).toEqual(outcomes.aos)
    const sent = read.filter((r) => !r.text.startsWith('echo: '))
    expect(sent).toEqual([
      { side: 'aos', text },
      { side: 'jsonrpc', text },
      { side: 'rest', text },
    ])
  })

  it.each([
    ['denies', 'sk-live12345678', { denied: 'an API key in the answer' }],
    ['modifies', 'the secret plan', { answered: 'echo: the [redacted] plan' }],
    ['allows', 'nothing to see', { answered: 'echo: nothing to see' }],
  ])('%s an answer alike (%s)', async (_, text, expected) => {
    read.length = 0
    const aos = await answerOnAos(`echo: ${text}`)
    const jsonrpc = await onGateway('jsonrpc', text)
    const rest = await onGateway('rest', text)
    expect(aos).toEqual(expected)
    expect(jsonrpc).toEqual(expected)
    expect(rest).toEqual(expected)
    const answers = read.filter((r) => r.text.startsWith('echo: '))
    expect(answers.map((r) => r.side)).toEqual(['aos', 'jsonrpc', 'rest'])
    expect(new Set(answers.map((r) => r.text))).toEqual(new Set([`echo: ${text}`]))
  })
})
