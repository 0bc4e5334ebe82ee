// `warden mcp`: the MCP gateway. In stdio mode the MCP client starts Warden in place of
// the server (`warden mcp -- <server command>`) and Warden starts the server; with
// `--upstream <url>` Warden listens for Streamable HTTP clients in front of a remote
// server. `warden mcp pin` records or checks the tool pins. In stdio mode stdout carries
// protocol messages only; every log line goes to stderr.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { type EventContext, errorMessage, type HookDefinition } from '../core/index.js'
import {
  type GatewaySetup,
  HTTP_GATEWAY_DEFAULTS,
  prepareGateway,
  startHttpGateway,
  startStdioGateway,
} from '../gateway/index.js'
import { type InFlightLimiter, inFlightLimiterFor, settleAfterBursts } from '../inflight/index.js'
import { formatProblem, loadConfig, loadHookSources, type WardenConfig } from '../sources/index.js'
import type { CliIo } from './io.js'
import { type HttpAccess, httpAccess } from './mcp-access.js'
import { type McpArgs, splitMcpArgs } from './mcp-options.js'
import { runPin } from './mcp-pin.js'

export { type McpArgs, splitMcpArgs } from './mcp-options.js'

const HELP = `usage: warden mcp [options] -- <server command> [args...]
       warden mcp [options] --upstream <url> [--host 127.0.0.1] [--port N]
       warden mcp pin [--update] --pin FILE (-- <server command> [args...] | --upstream <url>)

Puts Warden between an MCP client and server: every message is checked by the hooks
(mcp.outbound client -> server, mcp.inbound server -> client; tools/call also tool.pre and
its result tool.post). Denied tools/call get a tool result with isError; other denied
requests a JSON-RPC error. Tools the hooks deny unconditionally are left out of tools/list.
In HTTP mode with server.auth: token in the config, clients send "Authorization: Bearer
<token>" (a token of role agent or admin from warden tokens create).

options:
  -c, --config FILE          warden.yaml (default: ./warden.yaml when present)
      --hooks DIR            a folder of Markdown hook files (repeatable)
      --pin FILE             pin tool names, descriptions and schemas; deny calls to tools
                             that changed since (update with "warden mcp pin --update")
      --upstream URL         Streamable HTTP mode: the remote MCP endpoint
      --host ADDRESS         HTTP mode: address to listen on (default 127.0.0.1)
      --port N               HTTP mode: port to listen on (default 0: any free port)
      --allowed-host NAME    HTTP mode: a Host name clients use besides 127.0.0.1,
                             localhost and [::1] (repeatable; adds to server.allowedHosts)
      --db URL               HTTP mode with server.auth: token: where the access tokens are
                             (default as warden serve)
      --agent NAME           the agent name hooks see in the context
      --tenant ID            the tenant hooks see in the context
      --max-message-bytes N  largest message accepted (default 16 MiB)
      --max-in-flight N      HTTP mode: most requests with a body in flight; more get 503
                             (default 128 per CPU, 256 to 4096)
      --max-in-flight-bytes N  HTTP mode: most body bytes in flight; more get 503
                             (default a 1024th of memory, 8 to 32 MiB)
  -h, --help                 this text

examples:
  warden mcp --config warden.yaml -- npx -y @modelcontextprotocol/server-filesystem ./work
  warden mcp --config warden.yaml --upstream https://mcp.example.com/mcp --port 8931
  warden mcp pin --pin .warden/pins.json -- npx -y @modelcontextprotocol/server-everything
`

/** Runs `warden mcp`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: McpArgs
  try {
    parsed = splitMcpArgs(args)
    if (parsed.values.help) {
      io.stdout(HELP)
      return 0
    }
    if (parsed.command.length === 0 && !parsed.values.upstream) {
      throw new Error('give the server command after "--", or --upstream <url>')
    }
    if (parsed.command.length > 0 && parsed.values.upstream) {
      throw new Error('give either a server command after "--" or --upstream, not both')
    }
    positiveInt(parsed.values.port, '--port')
    positiveInt(parsed.values['max-message-bytes'], '--max-message-bytes')
    positiveInt(parsed.values['max-in-flight'], '--max-in-flight')
    positiveInt(parsed.values['max-in-flight-bytes'], '--max-in-flight-bytes')
  } catch (error) {
    io.stderr(`warden mcp: ${errorMessage(error)}\n\n${HELP}`)
    return 1
  }
  const log = (line: string) => io.stderr(`warden mcp: ${line}\n`)
  if (parsed.action === 'pin') return runPin(parsed, io, log)
  let setup: GatewaySetup
  let config: WardenConfig | undefined
  try {
    config = await configFromArgs(parsed, io)
    setup = await setupFromArgs(parsed, config, io, log)
  } catch (error) {
    log(errorMessage(error))
    return 1
  }
  try {
    return parsed.values.upstream
      ? await runHttp(parsed, setup, config, io, log)
      : await runStdio(parsed, setup, io, log)
  } finally {
    await setup.close()
  }
}

async function configFromArgs(parsed: McpArgs, io: CliIo): Promise<WardenConfig | undefined> {
  const configPath =
    parsed.values.config ??
    (existsSync(resolve(io.cwd, 'warden.yaml')) ? resolve(io.cwd, 'warden.yaml') : undefined)
  return configPath ? await loadConfig(resolve(io.cwd, configPath)) : undefined
}

async function setupFromArgs(
  parsed: McpArgs,
  config: WardenConfig | undefined,
  io: CliIo,
  log: (line: string) => void,
): Promise<GatewaySetup> {
  const values = parsed.values
  let extraHooks: HookDefinition[] = []
  if (values.hooks?.length) {
    const report = await loadHookSources({
      hookDirs: values.hooks.map((dir) => resolve(io.cwd, dir)),
      env: io.env,
      ...(config ? { config } : {}),
    })
    for (const warning of report.warnings) log(`warning: ${formatProblem(warning)}`)
    if (report.problems.length > 0) throw new Error(report.problems.map(formatProblem).join('\n'))
    extraHooks = report.hooks
  }
  const context: EventContext = {}
  if (values.agent) context.agent = { name: values.agent, id: values.agent }
  if (values.tenant) context.tenantId = values.tenant
  return prepareGateway({
    ...(config ? { config } : {}),
    extraHooks,
    ...(values.pin ? { pinPath: resolve(io.cwd, values.pin) } : {}),
    context,
    log,
  })
}

async function runStdio(
  parsed: McpArgs,
  setup: GatewaySetup,
  io: CliIo,
  log: (line: string) => void,
): Promise<number> {
  const [command, ...args] = parsed.command as [string, ...string[]]
  const maxMessageBytes = positiveInt(parsed.values['max-message-bytes'], '--max-message-bytes')
  const gateway = await startStdioGateway({
    ...setup,
    command,
    args,
    env: io.env,
    cwd: io.cwd,
    ...(maxMessageBytes ? { maxMessageBytes } : {}),
  }).catch((error: unknown) => {
    log(errorMessage(error))
    return undefined
  })
  if (!gateway) return 1
  const stop = () => void gateway.close()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  const code = await gateway.exited
  await gateway.bridge.closed
  process.off('SIGINT', stop)
  process.off('SIGTERM', stop)
  process.stdin.destroy()
  return code
}

async function runHttp(
  parsed: McpArgs,
  setup: GatewaySetup,
  config: WardenConfig | undefined,
  io: CliIo,
  log: (line: string) => void,
): Promise<number> {
  let upstream: URL
  try {
    upstream = new URL(parsed.values.upstream as string)
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error('not http(s)')
  } catch {
    log(`--upstream must be an http or https URL (got "${parsed.values.upstream}")`)
    return 1
  }
  const port = positiveInt(parsed.values.port, '--port') ?? 0
  let inFlight: InFlightLimiter
  let access: HttpAccess
  try {
    inFlight = inFlightLimiterFor(
      {
        maxInFlight: positiveInt(parsed.values['max-in-flight'], '--max-in-flight'),
        maxInFlightBytes: positiveInt(parsed.values['max-in-flight-bytes'], '--max-in-flight-bytes'),
      },
      { maxInFlight: '--max-in-flight', maxInFlightBytes: '--max-in-flight-bytes' },
      { bytes: HTTP_GATEWAY_DEFAULTS.maxRequestBytes, setting: 'the largest request body' },
    )
    access = await httpAccess(config, parsed.values, io)
  } catch (error) {
    log(errorMessage(error))
    return 1
  }
  settleAfterBursts(inFlight)
  const gateway = await startHttpGateway({
    ...setup,
    upstream,
    port,
    inFlight,
    ...(parsed.values.host ? { host: parsed.values.host } : {}),
    ...access.options,
  }).catch(async (error: unknown) => {
    log(errorMessage(error))
    await access.close()
    return undefined
  })
  if (!gateway) return 1
  log(`listening on ${gateway.url.href}, forwarding to ${upstream.origin}${upstream.pathname}`)
  await new Promise<void>((done) => {
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
  await gateway.close()
  await access.close()
  return 0
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const number = Number(value)
  if (!Number.isInteger(number) || number < 0)
    throw new Error(`${flag} must be a whole number (got "${value}")`)
  return number
}
