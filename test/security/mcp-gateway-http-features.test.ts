// The same attacks through `warden mcp --upstream` (Streamable HTTP): a real gateway process
// with the secrets, protected-paths and prompt-injection packs in front of the scripted SDK
// server on loopback, and the official SDK client. A credentials file read or listed as a
// resource, a prompt carrying an injection, a server's sampling request carrying a key, and
// an unknown method all went through before.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type CreateMessageRequest, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { eventually, fixture, freePort, tempDir, writeConfig } from '../gateway/helpers.js'
import { cliArgs, ROOT } from '../helpers/cli.js'

const KEY = 'AKIAZ7QX3V5N2M4K6J2H'

/** A child process and what it wrote on stderr. */
function start(args: string[], env: Record<string, string>): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (d) => {
    stderr += d
  })
  return { child, stderr: () => stderr }
}

let upstream: ReturnType<typeof start>
let gateway: ReturnType<typeof start>
let client: Client
let dir: string
const sampled: CreateMessageRequest['params'][] = []

beforeAll(async () => {
  dir = tempDir('warden-mcp-http-features-')
  mkdirSync(join(dir, '.aws'))
  writeFileSync(join(dir, '.aws', 'credentials'), `[default]\naws_access_key_id = ${KEY}\n`)
  const [upstreamPort, gatewayPort] = [await freePort(), await freePort()]
  upstream = start([fixture('features-server.mjs')], {
    FEATURES_DIR: dir,
    FEATURES_PORT: String(upstreamPort),
  })
  await eventually(() => upstream.stderr().includes('features server listening'), 30_000)
  const config = writeConfig('packs: [secrets, protected-paths, prompt-injection]\n')
  gateway = start(
    cliArgs([
      'mcp',
      '--config',
      config,
      '--upstream',
      `http://127.0.0.1:${upstreamPort}/mcp`,
      '--port',
      String(gatewayPort),
    ]),
    {},
  )
  await eventually(() => gateway.stderr().includes('listening on'), 30_000)
  client = new Client({ name: 'http-features', version: '1' }, { capabilities: { sampling: {} } })
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    sampled.push(request.params)
    return { role: 'assistant', model: 'm', content: { type: 'text', text: 'fine' } }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${gatewayPort}/mcp`)))
}, 60_000)

afterAll(async () => {
  await client?.close()
  for (const started of [gateway, upstream]) started?.child.kill()
})

describe('warden mcp --upstream resources, prompts and sampling', () => {
  it('refuses a credentials file as a resource and leaves it out of the list', async () => {
    await expect(client.readResource({ uri: `file://${dir}/.aws/credentials` })).rejects.toThrow(
      /Denied by Warden: paths detector/,
    )
    const { resources } = await client.listResources()
    expect(resources.some((resource) => resource.uri.includes('.aws'))).toBe(false)
    expect(resources.map((resource) => resource.uri)).toContain('memo://plain')
  })

  it('refuses a prompt that steers the model and an unknown method', async () => {
    await expect(client.getPrompt({ name: 'steer' })).rejects.toThrow(/Denied by Warden: injection detector/)
    await expect(
      client.request({ method: 'debug/dumpEnv', params: {} }, z.object({}).loose()),
    ).rejects.toThrow(/unknown mcp client request type "debug\/dumpEnv"/)
  })

  it("redacts the key in a server's sampling request before the client's model sees it", async () => {
    await client.callTool({ name: 'sample', arguments: { topic: 'deploys' } })
    expect(sampled).toHaveLength(1)
    expect(sampled[0]?.systemPrompt).toContain('[REDACTED:')
    expect(JSON.stringify(sampled)).not.toContain(KEY)
  })
})
