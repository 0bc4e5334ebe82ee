// The real Claude Code CLI (the native binary the Claude Agent SDK ships), run headless
// (`-p`) against the scripted local Messages server, with a settings.json whose PreToolUse
// hook is `warden check`: the destructive Bash command never runs and Claude Code hands
// Warden's reason to the model; a rewrite reaches the tool while Claude Code's own
// permission rules still decide whether it runs.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type AnthropicServer, startAnthropicServer, toolResults } from './servers/anthropic.js'
import {
  type ClaudeCliResult,
  HAS_CLAUDE_CLI,
  headlessArgs,
  runClaudeCli,
  wardenHookSettings,
} from './servers/claude-cli.js'
import { offlineEnv, type Scratch, scratch } from './servers/claude-run.js'

let server: AnthropicServer | undefined
let where: Scratch | undefined
afterEach(async () => {
  await server?.close()
  where?.cleanup()
})

describe.skipIf(!HAS_CLAUDE_CLI)('Claude Code CLI with warden check as its PreToolUse hook', () => {
  it('never runs the destructive command and tells the model why', async () => {
    where = scratch()
    const victim = join(where.dir, 'victim')
    mkdirSync(victim)
    writeFileSync(join(victim, 'keep.txt'), 'precious')
    server = await startAnthropicServer([
      { tool: { name: 'Bash', input: { command: `rm -rf ${victim}`, description: 'clean up' } } },
      { text: 'Warden stopped me.' },
    ])
    const config = join(where.dir, 'warden.yaml')
    writeFileSync(
      config,
      [
        'hooks:',
        '  - name: no-rm-rf',
        '    event: PreToolUse',
        '    matcher: "^Bash$"',
        `    if: "tool_input.command.contains('rm -rf')"`,
        '    handler: { type: deny, reason: "rm -rf is never allowed" }',
        '',
      ].join('\n'),
    )
    const settings = wardenHookSettings(where.dir, ['--config', config])
    const run = await runClaudeCli(
      headlessArgs('clean up the victim folder', settings, ['--allowedTools', 'Bash']),
      where.dir,
      offlineEnv(server.url, where.home),
    )
    expect(run.code, run.stderr).toBe(0)
    expect(existsSync(join(victim, 'keep.txt'))).toBe(true)
    expect(server.turns).toHaveLength(2)
    expect(toolResults(server.turns[1] as never).join('\n')).toContain('rm -rf is never allowed')
    const result = JSON.parse(run.stdout) as ClaudeCliResult
    expect(result.result).toBe('Warden stopped me.')
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(['Bash'])
  }, 120_000)

  it('passes a rewrite to the tool without granting it: the user’s allow rule still decides', async () => {
    where = scratch()
    server = await startAnthropicServer(
      [
        { tool: { name: 'Bash', input: { command: 'touch original.txt', description: 'make a file' } } },
        { text: 'done' },
      ],
      { perConversation: true },
    )
    const rewrite = join(where.dir, 'rewrite.mjs')
    writeFileSync(
      rewrite,
      [
        "let input = ''",
        'for await (const chunk of process.stdin) input += chunk',
        'const event = JSON.parse(input)',
        "const command = event.tool_input.command.replace('original', 'rewritten')",
        'process.stdout.write(JSON.stringify({ updatedInput: { ...event.tool_input, command } }))',
        '',
      ].join('\n'),
    )
    const config = join(where.dir, 'warden.yaml')
    writeFileSync(
      config,
      [
        'hooks:',
        '  - name: rename',
        '    event: PreToolUse',
        `    handler: { type: command, command: "${process.execPath} ${rewrite}" }`,
        '',
      ].join('\n'),
    )
    const settings = wardenHookSettings(where.dir, ['--config', config])
    const env = offlineEnv(server.url, where.home)
    // The user allows Bash: the rewritten command runs, the original never does.
    const allowed = await runClaudeCli(
      headlessArgs('make a file', settings, ['--allowedTools', 'Bash']),
      where.dir,
      env,
    )
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(existsSync(join(where.dir, 'rewritten.txt'))).toBe(true)
    expect(existsSync(join(where.dir, 'original.txt'))).toBe(false)
    expect((JSON.parse(allowed.stdout) as ClaudeCliResult).permission_denials).toEqual([])
    // In the default permission mode nobody approved Bash: neither command runs.
    const unapproved = await runClaudeCli(headlessArgs('make a file', settings), where.dir, env)
    expect(unapproved.code, unapproved.stderr).toBe(0)
    const denials = (JSON.parse(unapproved.stdout) as ClaudeCliResult).permission_denials
    expect(denials.map((d) => [d.tool_name, d.tool_input?.command])).toEqual([
      ['Bash', 'touch rewritten.txt'],
    ])
    expect(existsSync(join(where.dir, 'original.txt'))).toBe(false)
  }, 120_000)
})
