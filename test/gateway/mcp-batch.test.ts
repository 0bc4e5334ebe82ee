// JSON-RPC batches through `warden mcp` over stdio (the real CLI in front of
// server-everything): under MCP 2025-03-26 each element is checked and answered, hooks
// included; under 2025-06-18, which removed batches, each request gets an error naming
// that. No request of a batch is left unanswered.

import type { Readable } from 'node:stream'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { cliArgs, ROOT } from '../helpers/cli.js'
import { EVERYTHING, eventually, writeConfig } from './helpers.js'

interface RawSession {
  transport: StdioClientTransport
  received: JSONRPCMessage[]
  stderr(): string
  answer(id: number): Record<string, unknown> | undefined
}

const sessions: StdioClientTransport[] = []

afterEach(async () => {
  for (const transport of sessions.splice(0)) await transport.close()
})

/** A raw stdio session through the gateway, initialized with `version`. */
async function open(version: string): Promise<RawSession> {
  const config = writeConfig(`
hooks:
  - name: no-sums
    event: tool.pre
    matcher: "^get-sum$"
    handler: { type: deny, reason: "sums are not allowed here" }
`)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(['mcp', '--config', config, '--', ...EVERYTHING]),
    cwd: ROOT,
    env: process.env as Record<string, string>,
    stderr: 'pipe',
  })
  sessions.push(transport)
  let stderr = ''
  const received: JSONRPCMessage[] = []
  transport.onmessage = (message) => received.push(message)
  await transport.start()
  ;(transport.stderr as Readable).on('data', (chunk) => {
    stderr += chunk
  })
  const answer = (id: number) =>
    received.find((m) => (m as { id?: unknown }).id === id) as Record<string, unknown> | undefined
  await transport.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'batch-test', version: '1' } },
  })
  await eventually(() => answer(1) !== undefined, 30_000)
  expect((answer(1)?.result as { protocolVersion?: string } | undefined)?.protocolVersion).toBe(version)
  await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return { transport, received, stderr: () => stderr, answer }
}

function sendBatch(session: RawSession, batch: unknown[]): Promise<void> {
  return session.transport.send(batch as unknown as JSONRPCMessage)
}

describe('warden mcp: JSON-RPC batches', () => {
  it('under 2025-03-26 checks and answers every element, hooks included', async () => {
    const session = await open('2025-03-26')
    await sendBatch(session, [
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get-sum', arguments: { a: 1, b: 2 } } },
      { jsonrpc: '2.0', id: 5, method: 'ping', extra: true },
    ])
    await eventually(() => [2, 3, 4, 5].every((id) => session.answer(id) !== undefined), 30_000)
    expect(session.answer(2)?.result).toEqual({})
    expect(JSON.stringify(session.answer(3)?.result)).toContain('Echo: hi')
    const denied = session.answer(4)?.result as { isError: boolean; content: { text: string }[] }
    expect(denied.isError).toBe(true)
    expect(denied.content[0]?.text).toContain('sums are not allowed here')
    const invalid = session.answer(5)?.error as { code: number; message: string }
    expect(invalid.code).toBe(-32600)
    expect(invalid.message).toContain('unexpected member "extra"')
  }, 60_000)

  it('under 2025-06-18 answers each request with an error saying batches are not supported', async () => {
    const session = await open('2025-06-18')
    await sendBatch(session, [
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ])
    await eventually(() => [2, 3].every((id) => session.answer(id) !== undefined), 30_000)
    for (const id of [2, 3]) {
      const error = session.answer(id)?.error as { code: number; message: string }
      expect(error.code).toBe(-32600)
      expect(error.message).toContain('JSON-RPC batches are not supported in MCP 2025-06-18')
    }
    await eventually(() => session.stderr().includes('dropped outbound a notification in a batch'))
    await session.transport.send({ jsonrpc: '2.0', id: 6, method: 'ping' })
    await eventually(() => session.answer(6) !== undefined, 30_000)
    expect(session.answer(6)?.result).toEqual({})
  }, 60_000)

  it('answers an empty batch with one Invalid Request error', async () => {
    const session = await open('2025-03-26')
    await sendBatch(session, [])
    await eventually(() => session.received.some((m) => 'error' in m))
    const error = session.received.find((m) => 'error' in m) as { error: { code: number; message: string } }
    expect(error.error).toEqual({ code: -32600, message: 'Invalid Request: an empty batch' })
  }, 60_000)
})
