// Streaming through `warden a2a`: every SSE event from a real SDK agent passes the
// inbound hooks before the SDK client sees it. A modify rewrites one chunk, a deny ends
// the stream with an A2A error event and closes the upstream stream; with
// `stream.buffer: artifact` a secret split across chunks is still caught; a client that
// leaves closes the upstream stream; 50 streams run at once.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  deny,
  type Engine,
  type HookCall,
  type HookDefinition,
  type JsonObject,
  modify,
} from '../../src/core/index.js'
import { type A2aGateway, startA2aGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { clientFor, type PeerAgent, partsText, startPeerAgent, userMessage } from './a2a-peer.js'

type Streamed = { payload?: { $case: string; value: { artifact?: { parts: never[] } } } }

function chunkText(payload: JsonObject): string {
  const a2a = payload.a2a as JsonObject
  const result = (a2a.payload as JsonObject).result as JsonObject
  const update = result.artifactUpdate as JsonObject | undefined
  const parts = ((update?.artifact as JsonObject | undefined)?.parts ?? []) as JsonObject[]
  return parts.map((p) => String(p.text ?? '')).join('')
}

const hooks: HookDefinition[] = [
  {
    name: 'stop-on-forbidden',
    event: 'a2a.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) =>
        chunkText(event.payload).includes('FORBIDDEN') ? deny('forbidden words in the answer') : undefined,
    },
  },
  {
    name: 'no-leaked-keys',
    event: 'a2a.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) =>
        /sk-[a-z]{8}/.test(chunkText(event.payload)) ? deny('an API key in the answer') : undefined,
    },
  },
  {
    name: 'redact-ssn',
    event: 'a2a.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        if (!chunkText(event.payload).includes('123-45-6789')) return undefined
        const copy = structuredClone(event.payload) as JsonObject
        const result = ((copy.a2a as JsonObject).payload as JsonObject).result as JsonObject
        const update = result.artifactUpdate as JsonObject
        for (const part of (update.artifact as JsonObject).parts as JsonObject[]) {
          part.text = String(part.text).replaceAll('123-45-6789', '[redacted]')
        }
        return modify(copy)
      },
    },
  },
]

async function collect(stream: AsyncGenerator<unknown>): Promise<{ texts: string[]; error?: Error }> {
  const texts: string[] = []
  try {
    for await (const event of stream as AsyncGenerator<Streamed>) {
      if (event.payload?.$case === 'artifactUpdate')
        texts.push(partsText(event.payload.value.artifact?.parts))
    }
    return { texts }
  } catch (error) {
    return { texts, error: error as Error }
  }
}

describe('warden a2a streaming', () => {
  let peer: PeerAgent
  let engine: Engine
  let perEvent: A2aGateway
  let buffered: A2aGateway

  beforeAll(async () => {
    peer = await startPeerAgent()
    engine = buildEngine(undefined, { extraHooks: hooks })
    perEvent = await startA2aGateway({ engine, upstream: peer.url })
    buffered = await startA2aGateway({ engine, upstream: peer.url, limits: { buffer: 'artifact' } })
  }, 30_000)

  afterAll(async () => {
    await perEvent?.close()
    await buffered?.close()
    await peer?.close()
    await engine?.close()
  })

  it('passes every chunk through in order when the hooks allow', async () => {
    const client = await clientFor(perEvent.url)
    const { texts, error } = await collect(
      client.sendMessageStream({ message: userMessage('stream:4:abcdefgh') } as never),
    )
    expect(error).toBeUndefined()
    expect(texts).toEqual(['ab', 'cd', 'ef', 'gh'])
  })

  it('rewrites a chunk a hook redacts', async () => {
    const client = await clientFor(perEvent.url)
    const { texts } = await collect(
      client.sendMessageStream({ message: userMessage('stream:2:ssn 123-45-6789xxxxxxxxxxxxxxx') } as never),
    )
    expect(texts.join('')).toContain('[redacted]')
    expect(texts.join('')).not.toContain('123-45-6789')
  })

  it('ends the stream with an error event on a deny mid-stream', async () => {
    const client = await clientFor(perEvent.url)
    const { texts, error } = await collect(
      client.sendMessageStream({ message: userMessage('stream:3:aaaaaaaaaFORBIDDENbbbbbbbbb') } as never),
    )
    expect(texts).toEqual(['aaaaaaaaa'])
    expect(error?.message).toContain('forbidden words in the answer')
    expect(error?.message).toContain('-32090')
  })

  it('lets a secret split across two chunks through per event, and catches it with artifact buffering', async () => {
    const secret = 'key=sk-abcdefgh end'
    const direct = await collect(
      (await clientFor(perEvent.url)).sendMessageStream({
        message: userMessage(`stream:2:${secret}`),
      } as never),
    )
    expect(direct.error).toBeUndefined()
    expect(direct.texts.join('')).toBe(secret)
    const held = await collect(
      (await clientFor(buffered.url)).sendMessageStream({
        message: userMessage(`stream:2:${secret}`),
      } as never),
    )
    expect(held.texts).toEqual([])
    expect(held.error?.message).toContain('an API key in the answer')
    const clean = await collect(
      (await clientFor(buffered.url)).sendMessageStream({
        message: userMessage('stream:3:nothing to see'),
      } as never),
    )
    expect(clean.error).toBeUndefined()
    expect(clean.texts.join('')).toBe('nothing to see')
  })

  it('closes the upstream stream when the client goes away mid-stream', async () => {
    const client = await clientFor(perEvent.url)
    const abort = new AbortController()
    const stream = client.sendMessageStream({ message: userMessage('forever') } as never, {
      signal: abort.signal,
    })
    await stream.next()
    await stream.next()
    expect(perEvent.openStreams()).toBe(1)
    expect(peer.openStreams()).toBe(1)
    abort.abort()
    await stream.return(undefined).catch(() => undefined)
    const deadline = Date.now() + 10_000
    while ((perEvent.openStreams() > 0 || peer.openStreams() > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(perEvent.openStreams()).toBe(0)
    expect(peer.openStreams()).toBe(0)
  })

  it('relays 50 streams at once, each complete and in order', async () => {
    const client = await clientFor(perEvent.url)
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        collect(
          client.sendMessageStream({
            message: userMessage(`stream:4:stream-${String(i).padStart(2, '0')}-abcd`),
          } as never),
        ),
      ),
    )
    results.forEach((result, i) => {
      expect(result.error).toBeUndefined()
      expect(result.texts.join('')).toBe(`stream-${String(i).padStart(2, '0')}-abcd`)
    })
    expect(perEvent.openStreams()).toBe(0)
  })
})
