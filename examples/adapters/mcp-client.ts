// Warden around an MCP client, in process: tool calls and resource reads are checked and
// rewritten before they reach the server and before their results reach the agent.
// Run: npx tsx examples/adapters/mcp-client.ts

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { createEngine } from 'warden'
import { guardMcpClient } from 'warden/adapters/mcp-client'
import { z } from 'zod'

// A small MCP server, linked in memory (any transport works the same).
const server = new McpServer({ name: 'files', version: '1.0.0' })
server.registerTool('delete_file', { inputSchema: { path: z.string() } }, async ({ path }) => ({
  content: [{ type: 'text', text: `deleted ${path}` }],
}))
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
await server.connect(serverSide)
const client = new Client({ name: 'agent', version: '1.0.0' })
await client.connect(clientSide)

const engine = createEngine({
  hooks: [
    {
      name: 'no-etc',
      event: 'tool.pre',
      if: "tool_input.path.startsWith('/etc')",
      handler: { type: 'deny', reason: '/etc is off limits' },
    },
    {
      name: 'tmp-only',
      event: 'tool.pre',
      if: "tool_input.path.startsWith('/home')",
      handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedInput: { path: '/tmp/trash' } }) },
    },
  ],
})
guardMcpClient(client, engine)

for (const path of ['/etc/passwd', '/home/me/notes', '/tmp/old']) {
  try {
    const result = await client.callTool({ name: 'delete_file', arguments: { path } })
    console.log(`✓ ${path}: ${JSON.stringify(result.content)}`)
  } catch (error) {
    console.log(`✗ ${path}: ${(error as Error).message}`)
  }
}
await client.close()
