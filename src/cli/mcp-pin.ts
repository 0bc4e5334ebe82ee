// `warden mcp pin [--update] --pin FILE (-- <server command> | --upstream <url>)`: connects
// to the server as an MCP client, lists every tool and either records them as the new
// pins (--update) or reports which tools differ from their pins (exit 2 when any do).

import { resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { errorMessage, type JsonObject } from '../core/index.js'
import { ToolPins } from '../gateway/index.js'
import type { CliIo } from './io.js'
import type { McpArgs } from './mcp-options.js'

const MAX_PAGES = 100

/** Runs `warden mcp pin`. */
export async function runPin(parsed: McpArgs, io: CliIo, log: (line: string) => void): Promise<number> {
  const pinPath = parsed.values.pin
  if (!pinPath) {
    log('pin: --pin FILE is required (the pin file to check or update)')
    return 1
  }
  let pins: ToolPins
  let tools: JsonObject[]
  try {
    pins = await ToolPins.load(resolve(io.cwd, pinPath))
    tools = await listServerTools(parsed, io)
  } catch (error) {
    log(`pin: ${errorMessage(error)}`)
    return 1
  }
  if (parsed.values.update) {
    pins.replaceAll(tools)
    await pins.save()
    io.stdout(`pinned ${tools.length} tool${tools.length === 1 ? '' : 's'} in ${pinPath}\n`)
    return 0
  }
  const known = new Set(pins.names())
  const seen = pins.observe(tools)
  for (const name of seen.added) io.stdout(`new      ${name} (not pinned yet)\n`)
  for (const change of seen.changed) io.stdout(`changed  ${change.name} (${change.fields.join(', ')})\n`)
  const kept =
    tools.filter((t) => typeof t.name === 'string' && known.has(t.name)).length - seen.changed.length
  io.stdout(`${kept} pinned tool${kept === 1 ? '' : 's'} unchanged\n`)
  if (seen.changed.length > 0) {
    log(
      `pin: ${seen.changed.length} tool(s) changed; run "warden mcp pin --update --pin ${pinPath}" to accept`,
    )
    return 2
  }
  return 0
}

async function listServerTools(parsed: McpArgs, io: CliIo): Promise<JsonObject[]> {
  const transport = transportFor(parsed, io)
  const client = new Client({ name: 'warden-pin', version: '0.1.0' })
  await client.connect(transport)
  try {
    const tools: JsonObject[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor })
      tools.push(...(result.tools as unknown as JsonObject[]))
      cursor = result.nextCursor
      if (cursor === undefined) return tools
    }
    throw new Error(`the server listed more than ${MAX_PAGES} pages of tools`)
  } finally {
    await client.close()
  }
}

function transportFor(parsed: McpArgs, io: CliIo): Transport {
  if (parsed.values.upstream) return new StreamableHTTPClientTransport(new URL(parsed.values.upstream))
  const [command, ...args] = parsed.command as [string, ...string[]]
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(io.env)) if (typeof value === 'string') env[key] = value
  return new StdioClientTransport({ command, args, env, cwd: io.cwd, stderr: 'inherit' })
}
