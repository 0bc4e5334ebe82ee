// The `warden` command: parses the subcommand and hands over to its module. Each
// subcommand is one file exporting `run(args, io)` that returns the exit code.

import { editDistance } from '../core/index.js'
import type { CliIo } from './io.js'
import { processIo } from './io.js'

export type { CliIo } from './io.js'

type Subcommand = {
  summary: string
  load: () => Promise<{ run(args: string[], io: CliIo): Promise<number> }>
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  init: {
    summary: 'write a starter warden.yaml (and, with --claude-code, the Claude Code hook that runs it)',
    load: () => import('./init.js'),
  },
  check: {
    summary: 'evaluate one event from a file or stdin; exit 0 allow/modify, 2 deny, 1 error',
    load: () => import('./check.js'),
  },
  test: {
    summary: 'run policy test files (*.test.yaml) against the hooks; exit 0 only when all pass',
    load: () => import('./test.js'),
  },
  hooks: {
    summary: 'validate hook files: warden hooks validate DIR; exit 1 on any problem',
    load: () => import('./hooks.js'),
  },
  mcp: {
    summary: 'MCP gateway: check every message between an MCP client and server',
    load: () => import('./mcp.js'),
  },
  a2a: {
    summary: 'A2A gateway: check every request, answer and streamed event between A2A agents',
    load: () => import('./a2a.js'),
  },
  llm: {
    summary:
      'model-API gateway: check every request and answer between an agent and its model (Anthropic, OpenAI)',
    load: () => import('./llm.js'),
  },
  starlark: {
    summary: 'run Starlark test files with the assert module; exit 0 only when all pass',
    load: () => import('./starlark.js'),
  },
  decisions: {
    summary: 'list recent decisions from the audit store (--tenant, --since, --decision)',
    load: () => import('./decisions.js'),
  },
  replay: {
    summary: "re-run a recorded decision against today's hooks and compare",
    load: () => import('./replay.js'),
  },
  serve: {
    summary: 'AOS Guardian server: JSON-RPC on POST /aos, management API on /ws, /healthz',
    load: () => import('./serve.js'),
  },
  tokens: {
    summary: 'access tokens for /ws and /aos: create, list, revoke',
    load: () => import('./tokens.js'),
  },
  approvals: {
    summary: 'held asks: list, approve or reject them from the terminal',
    load: () => import('./approvals.js'),
  },
  acs: {
    summary: 'ACS v0.1 Guardian on stdin/stdout (--stdio, Content-Length framing)',
    load: () => import('./acs.js'),
  },
  audit: {
    summary: 'audit verify --session ID: prove an ACS session record was not altered',
    load: () => import('./audit-verify.js'),
  },
}

/** The help text listing every subcommand. */
export function usage(): string {
  const lines = Object.entries(SUBCOMMANDS).map(([name, s]) => `  ${name.padEnd(12)} ${s.summary}`)
  return `usage: warden <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nexamples:\n  warden init --claude-code\n  warden serve --config examples/warden.yaml\n  warden check --config examples/warden.yaml examples/events/exec-rm.json\n\nRun "warden <command> --help" (or "warden help <command>") for a command's options and examples.\n`
}

/** The subcommand closest to a mistyped one, when one is close enough. */
function closestCommand(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const candidate of Object.keys(SUBCOMMANDS)) {
    const distance = editDistance(name.toLowerCase(), candidate)
    if (!best || distance < best.distance) best = { name: candidate, distance }
  }
  return best && best.distance <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined
}

/**
 * Runs the CLI with the given arguments (without node and script) and returns the exit code.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv
  if (name === 'help' && rest[0] && SUBCOMMANDS[rest[0]]) return main([rest[0], '--help'], io)
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage())
    return name ? 0 : 1
  }
  if (name === '--version' || name === '-v') {
    io.stdout('warden 0.1.0\n')
    return 0
  }
  const command = SUBCOMMANDS[name]
  if (!command) {
    const closest = closestCommand(name)
    const hint = closest ? ` Did you mean "warden ${closest}"?` : ''
    io.stderr(`warden: unknown command "${name}".${hint}\n\n${usage()}`)
    return 1
  }
  const module = await command.load()
  return module.run(rest, io)
}
