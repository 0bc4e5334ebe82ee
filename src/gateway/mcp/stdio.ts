// The stdio gateway: the MCP client starts Warden in place of the server, and Warden
// starts the server as a child process. Protocol messages alone go to stdout; the child's
// stderr passes through to Warden's stderr; the gateway ends with the child and returns
// the child's exit code.

import type { Readable, Writable } from 'node:stream'
import { errorMessage } from '../../core/index.js'
import { McpBridge } from './bridge.js'
import type { McpChecksOptions } from './checks.js'
import { ChildTransport, LineTransport } from './lines.js'

/** Default cap on one message, in bytes (in either direction). */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024

/** How to run the stdio gateway. */
export interface StdioGatewayOptions extends McpChecksOptions {
  /** The server command and its arguments. */
  command: string
  args?: string[]
  /** The child's environment; defaults to the gateway's own. */
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** The client side; defaults to the process's stdin and stdout. */
  input?: Readable
  output?: Writable
  maxMessageBytes?: number
}

/** A running stdio gateway. */
export interface StdioGateway {
  bridge: McpBridge
  /** The child's process id. */
  pid: number | undefined
  /** Resolves with the child's exit code (128 + signal number when it was killed). */
  exited: Promise<number>
  /** Stops the child and the session. */
  close(): Promise<void>
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }

/**
 * Starts the server child and the gateway between it and the client streams.
 * @throws Error when the server command cannot be started.
 */
export async function startStdioGateway(options: StdioGatewayOptions): Promise<StdioGateway> {
  const log = options.log ?? (() => undefined)
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  const server = new ChildTransport({
    command: options.command,
    args: options.args ?? [],
    env: options.env ?? process.env,
    maxMessageBytes,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  })
  const input = options.input ?? process.stdin
  const client = new LineTransport(input, options.output ?? process.stdout, maxMessageBytes)
  const bridge = new McpBridge({ ...options, client, server })
  let resolveExit!: (code: number) => void
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve
  })
  try {
    await bridge.start()
  } catch (error) {
    await bridge.close('the server could not be started')
    throw new Error(`cannot start the MCP server "${options.command}": ${errorMessage(error)}`)
  }
  const child = server.child
  if (child) {
    child.once('exit', (code, signal) => {
      const status = code ?? 128 + (SIGNAL_NUMBERS[signal ?? ''] ?? 0)
      log(`the MCP server exited with ${code === null ? `signal ${signal}` : `code ${code}`}`)
      resolveExit(status)
      void bridge.close('the MCP server exited')
    })
  } else {
    void bridge.closed.then(() => resolveExit(1))
  }
  const endOfInput = () => void bridge.close('the client closed its input')
  input.once('end', endOfInput)
  input.once('close', endOfInput)
  return {
    bridge,
    pid: child?.pid,
    exited,
    async close() {
      await bridge.close('the gateway was stopped')
    },
  }
}
