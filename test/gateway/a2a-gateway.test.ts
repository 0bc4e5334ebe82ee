// `warden a2a` between two real SDK agents: an SDK client calls an SDK server agent
// through the gateway over JSON-RPC and HTTP+JSON; sends are allowed, denied and
// modified, tasks fetched and cancelled, push configs checked, the card rewritten.

import type { Client } from '@a2a-js/sdk/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  deny,
  type Engine,
  type HookCall,
  type HookDefinition,
  type JsonObject,
  modify,
} from '../../src/core/index.js'
import { A2A_DENIED_CODE, type A2aGateway, startA2aGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { clientFor, type PeerAgent, partsText, startPeerAgent, userMessage } from './a2a-peer.js'

function firstText(payload: JsonObject): string {
  const message = ((payload.a2a as JsonObject).payload as JsonObject).params as JsonObject
  const parts = ((message.message as JsonObject | undefined)?.parts ?? []) as JsonObject[]
  return parts.map((p) => String(p.text ?? '')).join('')
}

const hooks: HookDefinition[] = [
  {
    name: 'no-secrets-out',
    event: 'a2a.send',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) =>
        firstText(event.payload).includes('password') ? deny('no passwords to other agents') : undefined,
    },
  },
  {
    name: 'polite',
    event: 'a2a.send',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        if (!firstText(event.payload).startsWith('shout')) return undefined
        const a2a = event.payload.a2a as JsonObject
        const request = structuredClone(a2a.payload) as JsonObject
        const parts = ((request.params as JsonObject).message as JsonObject).parts as JsonObject[]
        ;(parts[0] as JsonObject).text = 'whisper'
        return modify({ ...event.payload, a2a: { ...a2a, payload: request } })
      },
    },
  },
  {
    name: 'hide-admin-skill',
    event: 'a2a.card',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const a2a = event.payload.a2a as JsonObject
        const card = a2a.card as JsonObject
        const skills = (card.skills as JsonObject[]).filter((s) => s.id !== 'admin')
        return modify({ ...event.payload, a2a: { ...a2a, card: { ...card, skills } } })
      },
    },
  },
  {
    name: 'no-get-of-secret-task',
    event: 'a2a.get',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) =>
        JSON.stringify(event.payload).includes('"historyLength":99') ? deny('history too long') : undefined,
    },
  },
]

describe('warden a2a (JSON-RPC and HTTP+JSON)', () => {
  let peer: PeerAgent
  let gateway: A2aGateway
  let engine: Engine
  let client: Client
  let rest: Client
  const seen: { event: string; context: JsonObject }[] = []

  beforeAll(async () => {
    peer = await startPeerAgent()
    engine = buildEngine(undefined, {
      extraHooks: hooks,
      recorder: {
        record: ({ event }) => void seen.push({ event: event.event, context: event.context as JsonObject }),
      },
    })
    gateway = await startA2aGateway({ engine, upstream: peer.url })
    client = await clientFor(gateway.url)
    rest = await clientFor(gateway.url, 'HTTP+JSON')
  }, 30_000)

  afterAll(async () => {
    await gateway?.close()
    await peer?.close()
    await engine?.close()
  })

  it('serves the card with its interfaces moved to the gateway and hidden skills removed', async () => {
    const card = (await (
      await fetch(new URL('/.well-known/agent-card.json', gateway.url))
    ).json()) as JsonObject
    const urls = (card.supportedInterfaces as JsonObject[]).map((i) => String(i.url))
    expect(urls).toEqual([new URL('/a2a/jsonrpc', gateway.url).href, new URL('/a2a/rest', gateway.url).href])
    expect((card.skills as JsonObject[]).map((s) => s.id)).toEqual(['echo'])
  })

  it('passes an allowed send through and records a2a.send and a2a.response', async () => {
    seen.length = 0
    const result = await client.sendMessage({
      message: userMessage('hello', { contextId: 'ctx-1' }),
    } as never)
    expect('messageId' in result && partsText(result.parts)).toBe('echo: hello')
    expect(seen.map((s) => s.event)).toEqual(['a2a.send', 'a2a.response'])
    expect(seen[0]?.context).toMatchObject({ agent: { name: 'peer-agent' }, session: { id: 'ctx-1' } })
  })

  it('denies a send with a JSON-RPC error carrying the reason, and the agent never sees it', async () => {
    const error = await client
      .sendMessage({ message: userMessage('my password is hunter2') } as never)
      .catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect(String((error as Error).message)).toContain('no passwords to other agents')
    const raw = await fetch(new URL('/a2a/jsonrpc', gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'password' }] } },
      }),
    })
    const body = (await raw.json()) as {
      id: number
      error: { code: number; message: string; data: JsonObject }
    }
    expect(body.id).toBe(7)
    expect(body.error.code).toBe(A2A_DENIED_CODE)
    expect(body.error.message).toBe('Denied by Warden: no passwords to other agents')
    expect(body.error.data.warden).toMatchObject({
      decision: 'deny',
      reason: 'no passwords to other agents',
      event: 'a2a.send',
    })
  })

  it('forwards a modified send', async () => {
    const result = await client.sendMessage({ message: userMessage('shout it') } as never)
    expect('messageId' in result && partsText(result.parts)).toBe('echo: whisper')
  })

  it('denies over HTTP+JSON with an A2A REST error body', async () => {
    const result = await rest.sendMessage({ message: userMessage('over rest') } as never)
    expect('messageId' in result && partsText(result.parts)).toBe('echo: over rest')
    const error = await rest.sendMessage({ message: userMessage('password') } as never).catch((e: Error) => e)
    expect(String((error as Error).message)).toContain('no passwords to other agents')
    const raw = await fetch(new URL('/a2a/rest/message:send', gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'password' }] } }),
    })
    expect(raw.status).toBe(403)
    const body = (await raw.json()) as { error: { status: string; message: string; details: JsonObject[] } }
    expect(body.error.status).toBe('PERMISSION_DENIED')
    expect(body.error.details[0]).toMatchObject({
      reason: 'WARDEN_DENIED',
      metadata: { reason: 'no passwords to other agents' },
    })
  })

  it('gets and cancels a task, checking each', async () => {
    const stream = client.sendMessageStream({ message: userMessage('forever') } as never)
    const first = await stream.next()
    const task = (first.value as { payload: { $case: string; value: { id: string } } }).payload.value
    const got = await client.getTask({ id: task.id } as never)
    expect(got.id).toBe(task.id)
    const denied = await client.getTask({ id: task.id, historyLength: 99 } as never).catch((e: Error) => e)
    expect(String((denied as Error).message)).toContain('history too long')
    seen.length = 0
    const cancelled = await client.cancelTask({ id: task.id } as never)
    expect(cancelled.id).toBe(task.id)
    expect(seen.map((s) => s.event)).toContain('a2a.cancel')
    await stream.return(undefined)
  })

  it('refuses a push config whose URL is loopback or the metadata service, forwards a public one', async () => {
    const stream = client.sendMessageStream({ message: userMessage('stream:2:ab') } as never)
    const first = await stream.next()
    const taskId = (first.value as { payload: { value: { id: string } } }).payload.value.id
    for await (const _ of stream) void _
    for (const url of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest/meta-data/']) {
      const error = await client
        .createTaskPushNotificationConfig({
          taskId,
          id: 'c1',
          url,
          token: 't',
          tenant: '',
          authentication: undefined,
        })
        .catch((e: Error) => e)
      expect(String((error as Error).message)).toMatch(
        /push-notification URL refused: .*(loopback|link-local)/,
      )
    }
    const ok = await client.createTaskPushNotificationConfig({
      taskId,
      id: 'c2',
      url: 'https://93.184.216.34/hook',
      token: 't',
      tenant: '',
      authentication: undefined,
    })
    expect(ok.url).toBe('https://93.184.216.34/hook')
    const listed = await client.listTaskPushNotificationConfig({
      taskId,
      tenant: '',
      pageSize: 10,
      pageToken: '',
    })
    expect(listed.configs.map((c) => c.id)).toEqual(['c2'])
  })
})
