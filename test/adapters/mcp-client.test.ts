// The MCP client adapter with the real MCP SDK client and server (linked in memory): the
// server's tool really runs (or never does), with the arguments Warden rewrote, and results
// are rewritten or withheld before the caller sees them.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { WardenDeniedError } from '../../src/adapters/decisions.js'
import { guardMcpClient } from '../../src/adapters/mcp-client/index.js'
import { createEngine, type HookDefinition } from '../../src/index.js'

async function connect(hooks: HookDefinition[], source?: string) {
  const ran: string[] = []
  const server = new McpServer({ name: 'files', version: '1.0.0' })
  server.registerTool('delete_file', { inputSchema: { path: z.string() } }, async ({ path }) => {
    ran.push(path)
    return { content: [{ type: 'text', text: `deleted ${path}` }] }
  })
  server.registerResource('config', 'file:///config', {}, async (uri) => ({
    contents: [{ uri: uri.href, text: 'password=hunter2' }],
  }))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'agent', version: '1.0.0' })
  await client.connect(clientSide)
  guardMcpClient(client, source ?? createEngine({ hooks }))
  return { client, ran, close: () => client.close() }
}

describe('MCP client adapter', () => {
  it('denies a tool call: it never reaches the server', async () => {
    const { client, ran, close } = await connect([
      {
        name: 'no-etc',
        event: 'tool.pre',
        if: "tool_input.path.startsWith('/etc')",
        handler: { type: 'deny', reason: '/etc is off limits' },
      },
    ])
    await expect(
      client.callTool({ name: 'delete_file', arguments: { path: '/etc/passwd' } }),
    ).rejects.toThrow(WardenDeniedError)
    await expect(
      client.callTool({ name: 'delete_file', arguments: { path: '/etc/passwd' } }),
    ).rejects.toThrow('/etc is off limits')
    const ok = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/x' } })
    expect(ok.content).toEqual([{ type: 'text', text: 'deleted /tmp/x' }])
    expect(ran).toEqual(['/tmp/x'])
    await close()
  })

  it('rewrites the arguments sent and the result returned', async () => {
    const { client, ran, close } = await connect([
      {
        name: 'sandbox',
        event: 'tool.pre',
        handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedInput: { path: '/sandbox/x' } }) },
      },
      {
        name: 'quiet',
        event: 'tool.post',
        handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedToolOutput: 'done' }) },
      },
    ])
    const result = await client.callTool({ name: 'delete_file', arguments: { path: '/home/x' } })
    expect(ran).toEqual(['/sandbox/x'])
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    await close()
  })

  it('withholds a resource whose content is denied', async () => {
    const { client, close } = await connect([
      {
        name: 'no-secrets',
        event: 'mcp.inbound',
        handler: {
          type: 'fn',
          fn: ({ event }: { event: { payload: unknown } }) =>
            JSON.stringify(event.payload).includes('password')
              ? { decision: 'deny', reason: 'secrets stay on the server' }
              : undefined,
        },
      },
    ])
    await expect(client.readResource({ uri: 'file:///config' })).rejects.toThrow('secrets stay on the server')
    await close()
  })

  it('fails closed when the remote Warden is unreachable', async () => {
    const { client, ran, close } = await connect([], 'http://127.0.0.1:9/aos')
    await expect(client.callTool({ name: 'delete_file', arguments: { path: '/tmp/x' } })).rejects.toThrow(
      /could not be reached/,
    )
    expect(ran).toEqual([])
    await close()
  })
})
