// Resources, prompts, sampling and elicitation as events, in process: the official SDK
// client and server on in-memory transports with the gateway's bridge between them. What
// hooks see of each request and answer, modifies written back, elicitation checked both
// ways, and an unknown type let through by mcp.allowUnknownTypes (logged, and named in the
// decision record's reason codes).

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  GetPromptRequestSchema,
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  type Decision,
  deny,
  type HookDefinition,
  type JsonObject,
  modify,
  type WardenEvent,
} from '../../src/core/index.js'
import { McpBridge, prepareGateway } from '../../src/gateway/index.js'

interface Harness {
  client: Client
  server: Server
  /** Every event hooks saw, in order. */
  seen: WardenEvent[]
  records: Decision[]
  log: string[]
  /** What the server was asked: prompt arguments, elicitation answers. */
  serverSaw: JsonObject[]
  close(): Promise<void>
}

const open: Harness[] = []
afterEach(async () => {
  for (const h of open.splice(0)) await h.close()
})

/** How many resources the scripted server lists. */
let listedCount = 3

const ECHO = z.object({ method: z.literal('debug/echo'), params: z.object({}).loose().optional() })

/** A server with one resource, one prompt, a tool that samples and one that elicits. */
function scriptedServer(serverSaw: JsonObject[], fieldType = 'string'): Server {
  const server = new Server(
    { name: 'scripted', version: '1' },
    { capabilities: { resources: {}, prompts: {}, tools: {} } },
  )
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => ({
    contents: [{ uri: params.uri, text: `contents of ${params.uri}` }],
  }))
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: Array.from({ length: listedCount }, (_, i) => ({ uri: `memo://${i}`, name: `m${i}` })),
  }))
  server.setRequestHandler(GetPromptRequestSchema, async ({ params }) => {
    serverSaw.push({ prompt: params.arguments ?? {} })
    return {
      messages: [{ role: 'user', content: { type: 'text', text: `topic: ${params.arguments?.topic}` } }],
    }
  })
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    if (params.name === 'sample') {
      const answer = await server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hello model' } }],
        maxTokens: 10,
      })
      serverSaw.push({ sampled: answer.content as JsonObject })
      return { content: [{ type: 'text', text: 'ok' }] }
    }
    const answer = await server
      .elicitInput({
        message: 'Your deploy token, please',
        requestedSchema: { type: 'object', properties: { token: { type: fieldType as 'string' } } },
      })
      .catch((error: Error) => ({ action: 'failed', content: { error: error.message } }))
    serverSaw.push({ elicited: answer as JsonObject })
    return { content: [{ type: 'text', text: 'ok' }] }
  })
  server.setRequestHandler(ECHO, async () => ({ echoed: true }))
  return server
}

const WATCHED = ['mcp.resource.read', 'mcp.prompt.get', 'mcp.sampling', 'mcp.elicitation'].flatMap((e) => [
  e,
  `${e}.post`,
])

async function harness(hooks: HookDefinition[], allowUnknownTypes: string[] = [], fieldType?: string) {
  const seen: WardenEvent[] = []
  const records: Decision[] = []
  const log: string[] = []
  const serverSaw: JsonObject[] = []
  const watchers: HookDefinition[] = WATCHED.map((event) => ({
    name: `watch-${event}`,
    event,
    priority: -1,
    handler: {
      type: 'fn',
      fn: ({ event: e }: { event: WardenEvent }) =>
        void seen.push({ ...e, payload: structuredClone(e.payload), context: {} }),
    },
  }))
  const setup = await prepareGateway({
    extraHooks: [...watchers, ...hooks],
    recorder: { record: ({ decision }) => void records.push(decision) },
    allowUnknownTypes,
    log: (line) => log.push(line),
  })
  const [clientSide, gatewayClientSide] = InMemoryTransport.createLinkedPair()
  const [gatewayServerSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = scriptedServer(serverSaw, fieldType)
  await server.connect(serverSide)
  const bridge = new McpBridge({ ...setup, client: gatewayClientSide, server: gatewayServerSide })
  await bridge.start()
  const client = new Client(
    { name: 'features-test', version: '1' },
    { capabilities: { sampling: {}, elicitation: {} } },
  )
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'm',
    content: { type: 'text', text: 'model says hi' },
  }))
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { token: 'tok-123' },
  }))
  await client.connect(clientSide)
  const h: Harness = {
    client,
    server,
    seen,
    records,
    log,
    serverSaw,
    async close() {
      await client.close()
      await bridge.close()
      await setup.close()
    },
  }
  open.push(h)
  return h
}

const events = (h: Harness, name: string) => h.seen.filter((e) => e.event === name)

describe('warden mcp feature events', () => {
  it('shows hooks a resource read and its contents, a prompt and its messages, sampling both ways', async () => {
    const h = await harness([])
    await h.client.readResource({ uri: 'memo://a' })
    await h.client.getPrompt({ name: 'p', arguments: { topic: 'tea' } })
    await h.client.callTool({ name: 'sample', arguments: {} })
    expect(events(h, 'mcp.resource.read')[0]?.payload).toMatchObject({
      mcp: { method: 'resources/read', direction: 'outbound' },
      resource: { uri: 'memo://a', via: 'resources/read' },
    })
    expect(events(h, 'mcp.resource.read.post')[0]?.payload).toMatchObject({
      resource: { uri: 'memo://a', contents: [{ text: 'contents of memo://a' }] },
    })
    expect(events(h, 'mcp.prompt.get')[0]?.payload).toMatchObject({
      prompt: { name: 'p', arguments: { topic: 'tea' } },
    })
    expect(events(h, 'mcp.prompt.get.post')[0]?.payload).toMatchObject({
      prompt: { name: 'p', messages: [{ role: 'user', content: { text: 'topic: tea' } }] },
    })
    expect(events(h, 'mcp.sampling')[0]?.payload).toMatchObject({
      mcp: { method: 'sampling/createMessage', direction: 'inbound' },
      sampling: { messages: [{ content: { text: 'hello model' } }], maxTokens: 10 },
    })
    expect(events(h, 'mcp.sampling.post')[0]?.payload).toMatchObject({
      sampling: { result: { content: { text: 'model says hi' } } },
    })
  })

  it('writes a modify of prompt arguments and of sampling answers back, and denies one that renames the prompt', async () => {
    const h = await harness([
      {
        name: 'calm-topic',
        event: 'mcp.prompt.get',
        handler: {
          type: 'fn',
          fn: ({ event }: { event: { payload: JsonObject } }) => {
            const prompt = event.payload.prompt as JsonObject
            if (prompt.name === 'rename')
              return modify({ ...event.payload, prompt: { ...prompt, name: 'other' } })
            return modify({ ...event.payload, prompt: { ...prompt, arguments: { topic: 'coffee' } } })
          },
        },
      },
      {
        name: 'tame-answer',
        event: 'mcp.sampling.post',
        handler: {
          type: 'fn',
          fn: ({ event }: { event: { payload: JsonObject } }) => {
            const sampling = event.payload.sampling as JsonObject
            const result = { ...(sampling.result as JsonObject), content: { type: 'text', text: 'tamed' } }
            return modify({ ...event.payload, sampling: { ...sampling, result } })
          },
        },
      },
    ])
    const got = await h.client.getPrompt({ name: 'p', arguments: { topic: 'tea' } })
    expect(got.messages[0]?.content).toMatchObject({ text: 'topic: coffee' })
    await expect(h.client.getPrompt({ name: 'rename' })).rejects.toThrow(
      /may not change the name of the prompt/,
    )
    await h.client.callTool({ name: 'sample', arguments: {} })
    expect(h.serverSaw).toContainEqual({ sampled: { type: 'text', text: 'tamed' } })
  })

  it('checks an elicitation as shown to the user and the answer going back', async () => {
    const h = await harness([
      {
        name: 'no-token-asks',
        event: 'mcp.elicitation',
        if: "payload.elicitation.message.contains('token')",
        handler: { type: 'fn', fn: () => deny('servers may not ask users for tokens') },
      },
    ])
    await h.client.callTool({ name: 'elicit', arguments: {} })
    const elicited = h.serverSaw.find((entry) => 'elicited' in entry)?.elicited as JsonObject
    expect(elicited.action).toBe('failed')
    expect(JSON.stringify(elicited)).toContain('servers may not ask users for tokens')
    expect(events(h, 'mcp.elicitation')[0]?.payload).toMatchObject({
      elicitation: {
        message: 'Your deploy token, please',
        requestedSchema: { properties: { token: { type: 'string' } } },
      },
    })
    expect(events(h, 'mcp.elicitation.post')).toHaveLength(0)
  })

  it("refuses an elicitation field type MCP does not define, and checks the user's answer otherwise", async () => {
    const odd = await harness([], [], 'password')
    await odd.client.callTool({ name: 'elicit', arguments: {} })
    const refused = odd.serverSaw.find((entry) => 'elicited' in entry)?.elicited as JsonObject
    expect(JSON.stringify(refused)).toContain('unknown mcp elicitation field type \\"password\\"')
    const plain = await harness([])
    await plain.client.callTool({ name: 'elicit', arguments: {} })
    expect(events(plain, 'mcp.elicitation.post')[0]?.payload).toMatchObject({
      elicitation: { result: { action: 'accept', content: { token: 'tok-123' } } },
    })
  })
})

describe('listed resources', () => {
  it('leaves out each listed URI a hook denies, and refuses a listing past the bound', async () => {
    const h = await harness([
      {
        name: 'hide-one',
        event: 'mcp.resource.read',
        if: "payload.resource.uri == 'memo://1'",
        handler: { type: 'fn', fn: () => deny('memo 1 is private') },
      },
    ])
    const { resources } = await h.client.listResources()
    expect(resources.map((r) => r.uri)).toEqual(['memo://0', 'memo://2'])
    expect(
      events(h, 'mcp.resource.read').map((e) => ((e.payload as JsonObject).resource as JsonObject).via),
    ).toEqual(['resources/list', 'resources/list', 'resources/list'])
    listedCount = 1001
    try {
      await expect(h.client.listResources()).rejects.toThrow(/lists 1001 entries, more than the 1000/)
    } finally {
      listedCount = 3
    }
  })
})

describe('mcp.allowUnknownTypes', () => {
  it('lets a named unknown method through, logged and named in the decision records', async () => {
    const h = await harness([], ['mcp/client-request/debug/echo'])
    const answer = await h.client.request({ method: 'debug/echo', params: {} }, z.object({}).loose())
    expect(answer).toMatchObject({ echoed: true })
    const marked = h.records.filter((r) => r.reasonCode.includes('unknown-type-let-through'))
    expect(marked.length).toBeGreaterThan(0)
    expect(marked[0]?.reasonCode).toContain('unknown-type-let-through:mcp/client-request/debug/echo')
    expect(h.log.join('\n')).toMatch(
      /security\.mcp\.unknown_type_let_through: mcp\/client-request\/debug\/echo/,
    )
    const other = h.client.request({ method: 'debug/other', params: {} }, z.object({}).loose())
    await expect(other).rejects.toThrow(/unknown mcp client request type "debug\/other"/)
  })

  it('refuses a setting that names no MCP place or a type that is always refused', async () => {
    await expect(prepareGateway({ allowUnknownTypes: ['debug/echo'] })).rejects.toThrow(
      /mcp.allowUnknownTypes: "debug\/echo" is not protocol\/place\/type/,
    )
    await expect(prepareGateway({ allowUnknownTypes: ['mcp/client-request/tasks/result'] })).rejects.toThrow(
      /cannot be let through/,
    )
  })
})
