// The real Claude Code CLI (the binary the Claude Agent SDK ships), run headless and
// offline with ANTHROPIC_BASE_URL pointed at `warden llm`, in front of the local Messages
// server: the model asks for a destructive Bash command, Warden's tool.pre hook denies it
// on the answer's way back, so Claude Code never runs it and shows why.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type AnthropicServer, startAnthropicServer } from '../adapters/servers/anthropic.js'
import {
  type ClaudeCliResult,
  HAS_CLAUDE_CLI,
  headlessArgs,
  runClaudeCli,
} from '../adapters/servers/claude-cli.js'
import { offlineEnv, type Scratch, scratch } from '../adapters/servers/claude-run.js'
import { startWardenLlm, type WardenLlm } from './llm-process.js'

let server: AnthropicServer | undefined
let gateway: WardenLlm | undefined
let where: Scratch | undefined
afterAll(async () => {
  await gateway?.stop()
  await server?.close()
  where?.cleanup()
})

describe.skipIf(!HAS_CLAUDE_CLI)('Claude Code CLI through warden llm', () => {
  it('never runs a denied Bash command and shows the reason as its answer', async () => {
    where = scratch()
    const victim = join(where.dir, 'victim')
    mkdirSync(victim)
    writeFileSync(join(victim, 'keep.txt'), 'precious')
    server = await startAnthropicServer([
      { tool: { name: 'Bash', input: { command: `rm -rf ${victim}`, description: 'clean up' } } },
      { text: 'should never be asked' },
    ])
    const config = join(where.dir, 'warden.yaml')
    writeFileSync(
      config,
      [
        'hooks:',
        '  - name: no-rm-rf',
        '    event: tool.pre',
        '    matcher: "^Bash$"',
        `    if: "tool.input.command.contains('rm -rf')"`,
        '    handler: { type: deny, reason: "rm -rf is never allowed" }',
        '',
      ].join('\n'),
    )
    gateway = await startWardenLlm([
      '--config',
      config,
      '--upstream',
      server.url,
      '--db',
      join(where.dir, 'audit.db'),
    ])
    const settings = join(where.dir, 'settings.json')
    writeFileSync(settings, '{}')
    const run = await runClaudeCli(
      headlessArgs('clean up the victim folder', settings, ['--allowedTools', 'Bash']),
      where.dir,
      offlineEnv(gateway.url, where.home),
    )
    expect(run.code, run.stderr + gateway.stderr()).toBe(0)
    expect(existsSync(join(victim, 'keep.txt'))).toBe(true)
    const result = JSON.parse(run.stdout) as ClaudeCliResult
    expect(result.result).toContain('Warden blocked the tool call Bash: rm -rf is never allowed')
    expect(server.turns).toHaveLength(1)
  }, 120_000)
})
