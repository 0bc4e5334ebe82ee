// The real Claude Code CLI (the native binary the Claude Agent SDK ships), run headless
// (`-p`) against the scripted local Messages server, with a settings.json whose PreToolUse
// hook is `warden check`: the destructive Bash command never runs and Claude Code hands
// Warden's reason to the model.

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { type AnthropicServer, startAnthropicServer, toolResults } from './servers/anthropic.js'
import { offlineEnv, type Scratch, scratch } from './servers/claude-run.js'

const require = createRequire(import.meta.url)
const CLAUDE = join(
  dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')),
  'claude',
)

let server: AnthropicServer | undefined
let where: Scratch | undefined
afterEach(async () => {
  await server?.close()
  where?.cleanup()
})

function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')(
  'Claude Code CLI with warden check as its PreToolUse hook',
  () => {
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
      // Absolute paths throughout: Claude Code runs the hook from the session's folder.
      const tsx = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href
      const check = [
        process.execPath,
        '--import',
        tsx,
        join(ROOT, 'src/cli/run.ts'),
        'check',
        '--config',
        config,
      ]
        .map((a) => `'${a}'`)
        .join(' ')
      const settings = join(where.dir, 'settings.json')
      writeFileSync(
        settings,
        JSON.stringify({
          hooks: {
            PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: check, timeout: 60 }] }],
          },
        }),
      )
      const run = await runCli(
        [
          '-p',
          'clean up the victim folder',
          '--settings',
          settings,
          '--output-format',
          'json',
          '--allowedTools',
          'Bash',
          '--model',
          'claude-sonnet-4-5',
        ],
        where.dir,
        offlineEnv(server.url, where.home),
      )
      expect(run.code, run.stderr).toBe(0)
      expect(existsSync(join(victim, 'keep.txt'))).toBe(true)
      expect(server.turns).toHaveLength(2)
      expect(toolResults(server.turns[1] as never).join('\n')).toContain('rm -rf is never allowed')
      const result = JSON.parse(run.stdout) as { result: string; permission_denials: { tool_name: string }[] }
      expect(result.result).toBe('Warden stopped me.')
      expect(result.permission_denials.map((d) => d.tool_name)).toEqual(['Bash'])
    }, 120_000)
  },
)
