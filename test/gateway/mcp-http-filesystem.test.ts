// `warden mcp --upstream` in front of server-filesystem, served over Streamable HTTP by a
// pass-through fixture (the server itself speaks only stdio): the same path guard as in
// stdio mode, a real command hook, keeps writes inside one folder.

import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HttpGateway, prepareGateway, startHttpGateway } from '../../src/gateway/index.js'
import { eventually, FILESYSTEM, firstText, fixture, freePort, tempDir } from './helpers.js'

describe('warden mcp --upstream in front of server-filesystem (Streamable HTTP)', () => {
  let upstream: ChildProcess
  let gateway: HttpGateway
  let closeSetup: () => Promise<void>
  let client: Client
  const root = tempDir('warden-fs-http-')
  const safe = join(root, 'safe')

  beforeAll(async () => {
    mkdirSync(safe)
    process.env.SAFE_DIR = safe
    const port = await freePort()
    upstream = spawn(
      process.execPath,
      [fixture('stdio-over-http.mjs'), String(port), '--', ...FILESYSTEM, root],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    let stderr = ''
    upstream.stderr?.on('data', (d) => {
      stderr += d
    })
    await eventually(() => stderr.includes('listening on port'), 30_000)
    const setup = await prepareGateway({
      extraHooks: [
        {
          name: 'writes-stay-in-safe',
          event: 'tool.pre',
          matcher: '^(write_file|edit_file|create_directory|move_file)$',
          handler: {
            type: 'command',
            command: `${process.execPath} ${fixture('path-guard.mjs')}`,
            env: ['SAFE_DIR'],
          },
        },
      ],
    })
    closeSetup = setup.close
    gateway = await startHttpGateway({ ...setup, upstream: new URL(`http://127.0.0.1:${port}/mcp`) })
    client = new Client({ name: 'fs-http-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(gateway.url))
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    await gateway?.close()
    await closeSetup?.()
    upstream?.kill('SIGTERM')
  })

  it('allows a write inside the folder', async () => {
    const path = join(safe, 'note.txt')
    const result = await client.callTool({
      name: 'write_file',
      arguments: { path, content: 'kept over http' },
    })
    expect(result.isError).not.toBe(true)
    expect(readFileSync(path, 'utf8')).toBe('kept over http')
  })

  it('denies a write outside the folder before it reaches the server', async () => {
    const path = join(root, 'escape.txt')
    const result = await client.callTool({ name: 'write_file', arguments: { path, content: 'no' } })
    expect(result.isError).toBe(true)
    expect(firstText(result)).toContain('outside')
    expect(existsSync(path)).toBe(false)
  })

  it('lets reads the server allows through', async () => {
    const result = await client.callTool({ name: 'list_directory', arguments: { path: root } })
    expect(result.isError).not.toBe(true)
    expect(firstText(result)).toContain('safe')
  })
})
