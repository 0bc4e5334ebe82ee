// Helpers for the gateway tests: the servers under test, and an official SDK client
// connected through `warden mcp` (the real CLI, started as a child process).

import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js'
import { cliArgs, ROOT } from '../helpers/cli.js'

/** server-everything over stdio. */
export const EVERYTHING = [
  process.execPath,
  `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`,
  'stdio',
]

/** The entry of server-filesystem (append the allowed folders). */
export const FILESYSTEM = [
  process.execPath,
  `${ROOT}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`,
]

/** The test fixture server whose greet description comes from GREET_DESCRIPTION. */
export const SHIFTY = [process.execPath, `${ROOT}test/fixtures/mcp/shifty-server.mjs`]

/** A fixture file's absolute path. */
export function fixture(name: string): string {
  return `${ROOT}test/fixtures/mcp/${name}`
}

/** A fresh temporary folder. */
export function tempDir(prefix = 'warden-mcp-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Writes a warden.yaml into a fresh folder and returns its path. */
export function writeConfig(yaml: string): string {
  const path = join(tempDir('warden-mcp-config-'), 'warden.yaml')
  writeFileSync(path, yaml)
  return path
}

/** An SDK client talking to a server through the gateway, and the gateway's stderr. */
export interface GatewayClient {
  client: Client
  transport: StdioClientTransport
  stderr(): string
  close(): Promise<void>
}

/**
 * Starts `warden mcp WARDEN_ARGS -- SERVER` and connects an SDK client through it; `setUp`
 * may register the client's handlers (sampling, elicitation) before it connects.
 */
export async function connectThroughGateway(
  wardenArgs: string[],
  server: string[],
  env: Record<string, string> = {},
  capabilities: ClientCapabilities = {},
  setUp?: (client: Client) => void,
): Promise<GatewayClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(['mcp', ...wardenArgs, '--', ...server]),
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  })
  let stderr = ''
  ;(transport.stderr as Readable).on('data', (chunk) => {
    stderr += chunk
  })
  const client = new Client({ name: 'gateway-test', version: '1.0.0' }, { capabilities })
  setUp?.(client)
  await client.connect(transport)
  return {
    client,
    transport,
    stderr: () => stderr,
    close: () => client.close(),
  }
}

/** Connects an SDK client straight to a stdio server (the baseline). */
export async function connectDirect(server: string[], env: Record<string, string> = {}): Promise<Client> {
  const [command, ...args] = server as [string, ...string[]]
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'ignore',
  })
  const client = new Client({ name: 'direct-test', version: '1.0.0' })
  await client.connect(transport)
  return client
}

/** The text of a tool result's first text block. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? []
  return content.find((block) => block.type === 'text')?.text ?? ''
}

/** Waits until `check` holds, polling (for effects that land asynchronously). */
export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** A TCP port on loopback that is free now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
