// The gateway bridge in process: the SDK client on an in-memory transport, the gateway's
// bridge, and server-everything as a real child process. Covers what needs fn hooks or an
// approver: held asks, modified arguments, hooks that throw, invalid modifies, and which
// events and directions hooks see.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type Decision,
  deny,
  type HookDefinition,
  type JsonObject,
  modify,
  withToolInput,
} from '../../src/core/index.js'
import { McpBridge, prepareGateway } from '../../src/gateway/index.js'
import { EVERYTHING, eventually, firstText } from './helpers.js'

interface Harness {
  client: Client
  bridge: McpBridge
  toServer: JSONRPCMessage[]
  close(): Promise<void>
}

const open: Harness[] = []
/** The decisions the gateway's engine recorded: what each peer was told. */
const recorded: Decision[] = []

async function harness(
  hooks: HookDefinition[],
  approver?: (request: ApprovalRequest) => Promise<ApprovalAnswer>,
): Promise<Harness> {
  const setup = await prepareGateway({
    extraHooks: hooks,
    recorder: { record: ({ decision }) => void recorded.push(decision) },
    ...(approver ? { approver } : {}),
  })
  const [clientSide, gatewaySide] = InMemoryTransport.createLinkedPair()
  const [command, ...args] = EVERYTHING as [string, ...string[]]
  const server = new StdioClientTransport({ command, args, stderr: 'ignore' })
  const toServer: JSONRPCMessage[] = []
  const send = server.send.bind(server)
  server.send = (message) => {
    toServer.push(message)
    return send(message)
  }
  const bridge = new McpBridge({ ...setup, client: gatewaySide, server })
  await bridge.start()
  const client = new Client({ name: 'bridge-test', version: '1.0.0' })
  await client.connect(clientSide)
  const h: Harness = {
    client,
    bridge,
    toServer,
    async close() {
      await client.close()
      await bridge.close()
      await setup.close()
    },
  }
  open.push(h)
  return h
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()))
})

describe('McpBridge', () => {
  it('holds a call that a hook asks about until a human decides, without holding others', async () => {
    let release: (answer: ApprovalAnswer) => void = () => undefined
    const asked: ApprovalRequest[] = []
    const approver = (request: ApprovalRequest) =>
      new Promise<ApprovalAnswer>((resolve) => {
        asked.push(request)
        release = resolve
      })
    const h = await harness(
      [
        {
          name: 'ask-echo',
          event: 'tool.pre',
          matcher: '^echo$',
          handler: { type: 'fn', fn: () => ({ decision: 'ask', reason: 'echo needs a human' }) },
        },
      ],
      approver,
    )
    const held = h.client.callTool({ name: 'echo', arguments: { message: 'held' } })
    await eventually(() => asked.length === 1)
    const sum = await h.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })
    expect(firstText(sum)).toContain('3')
    expect(h.toServer.some((m) => (m as { params?: { name?: string } }).params?.name === 'echo')).toBe(false)
    release({ outcome: 'approve', by: 'ops' })
    expect(firstText(await held)).toBe('Echo: held')

    const rejected = h.client.callTool({ name: 'echo', arguments: { message: 'nope' } })
    await eventually(() => asked.length === 2)
    release({ outcome: 'reject', reason: 'not today' })
    const answer = await rejected
    expect(answer.isError).toBe(true)
    expect(firstText(answer)).toContain('not today')
  }, 60_000)

  it('forwards the arguments a tool.pre hook modified', async () => {
    const h = await harness([
      {
        name: 'rewrite',
        event: 'tool.pre',
        matcher: '^echo$',
        handler: {
          type: 'fn',
          fn: ({ event }: { event: { payload: JsonObject } }) =>
            modify(withToolInput(event.payload, { message: 'rewritten' })),
        },
      },
    ])
    const result = await h.client.callTool({ name: 'echo', arguments: { message: 'original' } })
    expect(firstText(result)).toBe('Echo: rewritten')
    const sent = h.toServer.find((m) => (m as { method?: string }).method === 'tools/call') as {
      params: JsonObject
    }
    expect(sent.params.arguments).toEqual({ message: 'rewritten' })
  }, 60_000)

  it('fails a call closed when its hook throws, with the cause, and the session goes on', async () => {
    const h = await harness([
      {
        name: 'thrower',
        event: 'tool.pre',
        matcher: '^get-sum$',
        handler: {
          type: 'fn',
          fn: () => {
            throw new Error('hook blew up')
          },
        },
      },
    ])
    const failed = await h.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })
    expect(failed.isError).toBe(true)
    expect(firstText(failed)).toContain('hook blew up')
    expect(h.toServer.some((m) => (m as { method?: string }).method === 'tools/call')).toBe(false)
    expect(firstText(await h.client.callTool({ name: 'echo', arguments: { message: 'ok' } }))).toBe(
      'Echo: ok',
    )
  }, 60_000)

  it('denies a message whose modify is not valid JSON-RPC for it', async () => {
    const h = await harness([
      {
        name: 'bad-modify',
        event: 'mcp.outbound',
        matcher: '^resources/list$',
        handler: {
          type: 'fn',
          fn: ({ event }: { event: { payload: JsonObject } }) => {
            const mcp = event.payload.mcp as JsonObject
            return modify({
              ...event.payload,
              mcp: { ...mcp, message: { ...(mcp.message as JsonObject), id: 'other' } },
            })
          },
        },
      },
    ])
    recorded.length = 0
    const error = await h.client.listResources().catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain('may not change the message id')
    const refused = recorded.filter((d) => d.event === 'mcp.outbound' && d.reasonCode.includes('bad-modify'))
    expect(refused.map((d) => d.decision)).toEqual(['deny'])
    expect(refused[0]?.reasonCode).toContain('modify-refused')
    expect(refused[0]?.reason).toContain('may not change the message id')
  }, 60_000)

  it('shows hooks both directions, with the tool on tools/call, and denies a result on tool.post', async () => {
    const seen: string[] = []
    const record =
      (label: string) =>
      ({ event }: { event: { payload: JsonObject } }) => {
        const mcp = event.payload.mcp as JsonObject | undefined
        const tool = event.payload.tool as JsonObject | undefined
        seen.push([label, mcp?.method, mcp?.direction, tool?.name].filter(Boolean).join(' '))
        return undefined
      }
    const h = await harness([
      { name: 'out', event: 'mcp.outbound', handler: { type: 'fn', fn: record('out') } },
      { name: 'in', event: 'mcp.inbound', handler: { type: 'fn', fn: record('in') } },
      { name: 'pre', event: 'tool.pre', handler: { type: 'fn', fn: record('pre') } },
      { name: 'post', event: 'tool.post', handler: { type: 'fn', fn: record('post') } },
      {
        name: 'no-sum-results',
        event: 'tool.post',
        matcher: '^get-sum$',
        handler: { type: 'fn', fn: () => deny('sum results are secret') },
      },
    ])
    await h.client.callTool({ name: 'echo', arguments: { message: 'x' } })
    expect(seen).toContain('out initialize outbound')
    expect(seen).toContain('in initialize inbound')
    expect(seen).toContain('out notifications/initialized outbound')
    expect(seen).toContain('out tools/call outbound echo')
    expect(seen).toContain('pre echo')
    expect(seen).toContain('in tools/call inbound echo')
    expect(seen).toContain('post echo')
    const secret = await h.client.callTool({ name: 'get-sum', arguments: { a: 20, b: 22 } })
    expect(secret.isError).toBe(true)
    expect(firstText(secret)).toContain('sum results are secret')
    expect(JSON.stringify(secret)).not.toContain('42')
  }, 60_000)

  it('passes a cancellation through to the server', async () => {
    const h = await harness([])
    const controller = new AbortController()
    const call = h.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } },
      undefined,
      { signal: controller.signal },
    )
    await eventually(() => h.toServer.some((m) => (m as { method?: string }).method === 'tools/call'))
    controller.abort('changed my mind')
    await expect(call).rejects.toThrow()
    await eventually(() =>
      h.toServer.some((m) => (m as { method?: string }).method === 'notifications/cancelled'),
    )
    const sent = h.toServer.find((m) => (m as { method?: string }).method === 'tools/call') as { id: number }
    const cancelled = h.toServer.find(
      (m) => (m as { method?: string }).method === 'notifications/cancelled',
    ) as unknown as { params: { requestId: number } }
    expect(cancelled.params.requestId).toBe(sent.id)
    expect(firstText(await h.client.callTool({ name: 'echo', arguments: { message: 'after' } }))).toBe(
      'Echo: after',
    )
  }, 60_000)
})
