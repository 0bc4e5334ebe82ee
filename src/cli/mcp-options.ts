// The options of `warden mcp` and `warden mcp pin`: Warden's own flags before `--`, the
// `pin` subcommand, and the server command after `--`. Shared by the gateway command and
// the pin command, so neither has to import the other.

import { parseArgs } from './args.js'

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  hooks: { type: 'string', multiple: true },
  pin: { type: 'string' },
  upstream: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  db: { type: 'string' },
  agent: { type: 'string' },
  tenant: { type: 'string' },
  'max-message-bytes': { type: 'string' },
  'max-in-flight': { type: 'string' },
  'max-in-flight-bytes': { type: 'string' },
  update: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

/** Parsed `warden mcp` arguments. */
export interface McpArgs {
  values: ReturnType<typeof parseMcpArgs>['values']
  /** `pin` when the pin subcommand was asked for. */
  action: 'gateway' | 'pin'
  /** The server command after `--`. */
  command: string[]
}

function parseMcpArgs(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true })
}

/**
 * Splits `warden mcp` arguments at `--` and parses Warden's own options.
 * @throws Error naming the bad option.
 */
export function splitMcpArgs(args: string[]): McpArgs {
  const dash = args.indexOf('--')
  const own = dash >= 0 ? args.slice(0, dash) : args
  const command = dash >= 0 ? args.slice(dash + 1) : []
  const parsed = parseMcpArgs(own)
  const [first, ...extra] = parsed.positionals
  if (first !== undefined && first !== 'pin') {
    throw new Error(`unexpected argument "${first}"; put the server command after "--"`)
  }
  if (extra.length > 0)
    throw new Error(`unexpected argument "${extra[0]}"; put the server command after "--"`)
  return { values: parsed.values, action: first === 'pin' ? 'pin' : 'gateway', command }
}
