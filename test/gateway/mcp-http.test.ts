// `warden mcp --upstream`: the Streamable HTTP gateway in front of server-everything in its
// streamableHttp mode (a child process on loopback), with the official SDK client.

import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deny, type JsonObject, modify, withToolOutput } from '../../src/core/index.js'
import { type HttpGateway, prepareGateway, startHttpGateway, toolDigest } from '../../src/gateway/index.js'
import { cliArgs, ROOT } from '../helpers/cli.js'
import { eventually, firstText, freePort, tempDir } from './helpers.js'

async function startEverythingHttp(): Promise<{ child: ChildProcess; url: URL }> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [`${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'streamableHttp'],
    { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr?.on('data', (d) => {
    stderr += d
  })
  await eventually(() => stderr.includes('listening on port'), 30_000)
  return { child, url: new URL(`http://127.0.0.1:${port}/mcp`) }
}

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

describe('warden mcp --upstream (Streamable HTTP)', () => {
  let upstream: { child: ChildProcess; url: URL }
  let gateway: HttpGateway
  let closeSetup: () => Promise<void>
  let client: Client
  let direct: Client
  const pinFile = join(tempDir(), 'pins.json')

  beforeAll(async () => {
    upstream = await startEverythingHttp()
    writeFileSync(
      pinFile,
      JSON.stringify({
        version: 1,
        tools: {
          'get-tiny-image': {
            description: 'an older description',
            digest: toolDigest({ name: 'get-tiny-image', description: 'an older description' }),
            pinnedAt: new Date(0).toISOString(),
          },
        },
      }),
    )
    const setup = await prepareGateway({
      pinPath: pinFile,
      extraHooks: [
        {
          name: 'no-env',
          event: 'tool.pre',
          matcher: '^get-env$',
          handler: { type: 'deny', reason: 'env is private' },
        },
        {
          name: 'redact',
          event: 'tool.post',
          matcher: '^echo$',
          handler: {
            type: 'fn',
            fn: ({ event }: { event: { payload: JsonObject } }) => {
              const output = (event.payload.tool as JsonObject).output as JsonObject[]
              const redacted = output.map((b) => ({
                ...b,
                text: String(b.text).replace(/sk-\w+/g, '[REDACTED]'),
              }))
              return modify(withToolOutput(event.payload, redacted))
            },
          },
        },
        {
          name: 'no-big-sums',
          event: 'tool.pre',
          matcher: '^get-sum$',
          if: 'tool_input.a > 100',
          handler: { type: 'fn', fn: () => deny('sums over 100 are not allowed') },
        },
      ],
    })
    closeSetup = setup.close
    gateway = await startHttpGateway({ ...setup, upstream: upstream.url })
    client = await connect(gateway.url)
    direct = await connect(upstream.url)
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    await direct?.close()
    await gateway?.close()
    await closeSetup?.()
    upstream?.child.kill()
  })

  it('listens on loopback and passes allowed calls through unchanged', async () => {
    expect(gateway.url.hostname).toBe('127.0.0.1')
    const through = await client.callTool({ name: 'echo', arguments: { message: 'over http' } })
    const straight = await direct.callTool({ name: 'echo', arguments: { message: 'over http' } })
    expect(through).toEqual(straight)
    expect(firstText(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }))).toContain('5')
    expect(gateway.sessions()).toBe(1)
  })

  it('filters tools/list and denies what the hooks deny', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).not.toContain('get-env')
    expect(names).toContain('get-sum')
    const big = await client.callTool({ name: 'get-sum', arguments: { a: 500, b: 1 } })
    expect(big.isError).toBe(true)
    expect(firstText(big)).toContain('sums over 100 are not allowed')
  })

  it('rewrites a result through a redaction hook', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { message: 'token sk-live123' } })
    expect(firstText(result)).toBe('Echo: token [REDACTED]')
  })

  it('denies calls to a tool whose listing no longer matches its pin', async () => {
    await client.listTools()
    const result = await client.callTool({ name: 'get-tiny-image', arguments: {} })
    expect(result.isError).toBe(true)
    expect(firstText(result)).toContain('changed since it was pinned')
  })

  it('passes progress notifications through on the request stream', async () => {
    const progress: number[] = []
    await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
    )
    // The SDK client handles notifications a microtask later than answers, so a last progress
    // notification read in the same chunk as the answer can be dropped by the client itself.
    expect([
      [1, 2],
      [1, 2, 3],
    ]).toContainEqual(progress)
  })

  it('takes a posted JSON-RPC batch apart and answers each element, hooks included', async () => {
    const transport = client.transport as StreamableHTTPClientTransport
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': String(transport.sessionId),
        'mcp-protocol-version': String(transport.protocolVersion),
      },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 900, method: 'ping' },
        { jsonrpc: '2.0', id: 901, method: 'tools/call', params: { name: 'get-env', arguments: {} } },
      ]),
    })
    expect(response.status).toBe(200)
    const text = await response.text()
    const answers = [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1] as string) as JsonObject)
    expect(answers.find((a) => a.id === 900)).toMatchObject({ result: {} })
    expect(JSON.stringify(answers.find((a) => a.id === 901))).toContain('env is private')
  })

  it('refuses requests whose Host is not the loopback address it listens on', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        gateway.url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
        (res) => {
          res.resume()
          resolve(res.statusCode)
        },
      )
      req.once('error', reject)
      req.end('{}')
    })
    expect(status).toBe(421)
    const unknown = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'mcp-session-id': 'nope',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    })
    expect(unknown.status).toBe(404)
  })

  it('runs from the CLI with --upstream and --port', async () => {
    const port = await freePort()
    const child = spawn(
      process.execPath,
      cliArgs(['mcp', '--upstream', upstream.url.href, '--port', String(port)]),
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stderr = ''
    child.stderr.on('data', (d) => {
      stderr += d
    })
    try {
      await eventually(() => stderr.includes('listening on'), 30_000)
      const viaCli = await connect(new URL(`http://127.0.0.1:${port}/mcp`))
      expect(firstText(await viaCli.callTool({ name: 'echo', arguments: { message: 'cli' } }))).toBe(
        'Echo: cli',
      )
      await viaCli.close()
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    }
  }, 60_000)
})
