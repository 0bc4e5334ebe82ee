// `warden mcp -- <server>` end to end: the official SDK client talks through the real CLI
// to server-everything and server-filesystem, started as child processes.

import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connectDirect,
  connectThroughGateway,
  EVERYTHING,
  FILESYSTEM,
  firstText,
  fixture,
  type GatewayClient,
  tempDir,
  writeConfig,
} from './helpers.js'

const node = process.execPath

describe('warden mcp over stdio, in front of server-everything', () => {
  let gateway: GatewayClient
  let direct: Client

  beforeAll(async () => {
    const config = writeConfig(`
tools:
  hide: [get-env]
hooks:
  - name: no-sums
    event: tool.pre
    matcher: "^get-sum$"
    handler: { type: deny, reason: "sums are not allowed here" }
  - name: redact-keys
    event: tool.post
    matcher: "^echo$"
    handler: { type: command, command: "${node} ${fixture('redact.mjs')}" }
  - name: no-prompts
    event: mcp.outbound
    matcher: "^prompts/list$"
    handler: { type: deny, reason: "prompts are switched off" }
  - name: crashing-hook
    event: tool.pre
    matcher: "^get-tiny-image$"
    handler: { type: command, command: "${node} ${fixture('crash-hook.mjs')}" }
`)
    gateway = await connectThroughGateway(['--config', config], EVERYTHING)
    direct = await connectDirect(EVERYTHING)
  }, 60_000)

  afterAll(async () => {
    await gateway?.close()
    await direct?.close()
  })

  it('passes allowed calls through unchanged', async () => {
    const through = await gateway.client.callTool({ name: 'echo', arguments: { message: 'hello there' } })
    const straight = await direct.callTool({ name: 'echo', arguments: { message: 'hello there' } })
    expect(through).toEqual(straight)
    expect(firstText(through)).toBe('Echo: hello there')
    const sum = await direct.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } })
    expect(sum.isError).not.toBe(true)
  })

  it('leaves hidden and unconditionally denied tools out of tools/list', async () => {
    const through = (await gateway.client.listTools()).tools.map((t) => t.name)
    const straight = (await direct.listTools()).tools.map((t) => t.name)
    expect(straight).toContain('get-env')
    expect(straight).toContain('get-sum')
    expect(through).not.toContain('get-env')
    expect(through).not.toContain('get-sum')
    expect(through).toContain('echo')
    expect(through.length).toBe(straight.length - 2)
  })

  it('denies calls to hidden tools with a tool error that gives the reason', async () => {
    const hidden = await gateway.client.callTool({ name: 'get-env', arguments: {} })
    expect(hidden.isError).toBe(true)
    expect(firstText(hidden)).toMatch(/tools\.hide/)
    const denied = await gateway.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })
    expect(denied.isError).toBe(true)
    expect(firstText(denied)).toContain('sums are not allowed here')
  })

  it('rewrites a result through a redaction hook', async () => {
    const result = await gateway.client.callTool({
      name: 'echo',
      arguments: { message: 'my key is sk-abc123XYZ' },
    })
    expect(firstText(result)).toBe('Echo: my key is [REDACTED]')
    expect(JSON.stringify(result)).not.toContain('sk-abc123XYZ')
  })

  it('answers a denied request other than tools/call with a JSON-RPC error', async () => {
    const error = await gateway.client.listPrompts().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).code).toBe(-32003)
    expect((error as McpError).message).toContain('prompts are switched off')
  })

  it('fails closed when a hook crashes, and the session goes on', async () => {
    const crashed = await gateway.client.callTool({ name: 'get-tiny-image', arguments: {} })
    expect(crashed.isError).toBe(true)
    expect(firstText(crashed)).toMatch(/crashing-hook|exit|code 1/i)
    const after = await gateway.client.callTool({ name: 'echo', arguments: { message: 'still here' } })
    expect(firstText(after)).toBe('Echo: still here')
  })

  it('passes progress notifications through', async () => {
    const progress: number[] = []
    const result = await gateway.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
    )
    expect(firstText(result)).toContain('Long running operation completed')
    // The SDK client handles notifications a microtask later than answers, so a last progress
    // notification read in the same chunk as the answer can be dropped by the client itself.
    expect([
      [1, 2],
      [1, 2, 3],
    ]).toContainEqual(progress)
  })

  it('passes the server stderr through to its own stderr and never writes logs to stdout', async () => {
    expect(gateway.stderr()).toContain('Starting default (STDIO) server')
    expect(gateway.stderr()).toContain('warden mcp: denied')
  })
})

describe('warden mcp over stdio, in front of server-filesystem', () => {
  let gateway: GatewayClient
  let root: string
  let safe: string

  beforeAll(async () => {
    root = tempDir('warden-fs-')
    safe = join(root, 'safe')
    mkdirSync(safe)
    const config = writeConfig(`
hooks:
  - name: writes-stay-in-safe
    event: tool.pre
    matcher: "^(write_file|edit_file|create_directory|move_file)$"
    handler: { type: command, command: "${node} ${fixture('path-guard.mjs')}", env: [SAFE_DIR] }
`)
    gateway = await connectThroughGateway(['--config', config], [...FILESYSTEM, root], { SAFE_DIR: safe })
  }, 60_000)

  afterAll(async () => {
    await gateway?.close()
  })

  it('allows a write inside the folder', async () => {
    const path = join(safe, 'note.txt')
    const result = await gateway.client.callTool({ name: 'write_file', arguments: { path, content: 'kept' } })
    expect(result.isError).not.toBe(true)
    expect(readFileSync(path, 'utf8')).toBe('kept')
  })

  it('denies a write outside the folder before it reaches the server', async () => {
    const path = join(root, 'escape.txt')
    const result = await gateway.client.callTool({ name: 'write_file', arguments: { path, content: 'no' } })
    expect(result.isError).toBe(true)
    expect(firstText(result)).toContain('outside')
    expect(existsSync(path)).toBe(false)
    const sneaky = join(safe, '..', 'sneaky.txt')
    const traversal = await gateway.client.callTool({
      name: 'write_file',
      arguments: { path: sneaky, content: 'no' },
    })
    expect(traversal.isError).toBe(true)
    expect(existsSync(join(root, 'sneaky.txt'))).toBe(false)
  })

  it('lets reads anywhere the server allows through', async () => {
    const result = await gateway.client.callTool({ name: 'list_directory', arguments: { path: root } })
    expect(result.isError).not.toBe(true)
    expect(firstText(result)).toContain('safe')
  })
})
