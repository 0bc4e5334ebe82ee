// Joch enforces memory and knowledge hooks on the AOS steps `steps/knowledgeRetrieval` and
// `steps/memoryContextRetrieval`; the design's catalog names their events
// `knowledge.retrieve` and `memory.retrieve`. Behind `warden mcp`, what an MCP server returns
// for a resources/read is such a retrieval: knowledge, or a memory for a `memory:` URI. The
// official SDK client and server, in process, with the gateway's bridge between them.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deny, type HookDefinition, type JsonObject, modify } from '../../src/core/index.js'
import { McpBridge, prepareGateway } from '../../src/gateway/index.js'

const hooks: HookDefinition[] = [
  {
    name: 'no-leaked-keys',
    event: 'knowledge.retrieve',
    handler: {
      type: 'fn',
      fn: ({ event }: { event: { payload: JsonObject } }) =>
        JSON.stringify(event.payload).includes('AKIA')
          ? deny('a retrieved document holds an access key')
          : undefined,
    },
  },
  {
    name: 'forget-the-card',
    event: 'memory.retrieve',
    handler: {
      type: 'fn',
      fn: ({ event }: { event: { payload: { memory: { query: string; items: JsonObject[] } } } }) =>
        modify({
          memory: {
            query: event.payload.memory.query,
            items: event.payload.memory.items.map((item) => ({
              ...item,
              text: String(item.text).replace(/\d{4} \d{4} \d{4} \d{4}/, '[card]'),
            })),
          },
        }),
    },
  },
]

let client: Client
let close: () => Promise<void>

beforeAll(async () => {
  const server = new Server({ name: 'docs', version: '1' }, { capabilities: { resources: {} } })
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => ({
    contents: [
      {
        uri: params.uri,
        text: params.uri.includes('keys')
          ? 'deploy with AKIAIOSFODNN7EXAMPLE'
          : params.uri.startsWith('memory:')
            ? 'the user paid with 4111 1111 1111 1111'
            : 'the handbook',
      },
    ],
  }))
  const setup = await prepareGateway({ extraHooks: hooks, log: () => undefined })
  const [clientSide, gatewayClientSide] = InMemoryTransport.createLinkedPair()
  const [gatewayServerSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const bridge = new McpBridge({ ...setup, client: gatewayClientSide, server: gatewayServerSide })
  await bridge.start()
  client = new Client({ name: 'joch-retrieval', version: '1' })
  await client.connect(clientSide)
  close = async () => {
    await client.close()
    await bridge.close()
    await setup.close()
  }
})

afterAll(async () => {
  await close?.()
})

describe('memory and knowledge hooks behind warden mcp', () => {
  it('a resources/read answer is knowledge.retrieve: a knowledge hook’s deny refuses it', async () => {
    await expect(client.readResource({ uri: 'docs://keys' })).rejects.toThrow(/access key/)
    const fine = await client.readResource({ uri: 'docs://handbook' })
    expect(fine.contents[0]).toMatchObject({ text: 'the handbook' })
  })

  it('a memory: URI is memory.retrieve: a memory hook’s modify rewrites the contents', async () => {
    const read = await client.readResource({ uri: 'memory://user/42' })
    expect(read.contents[0]).toMatchObject({ uri: 'memory://user/42', text: 'the user paid with [card]' })
  })
})
