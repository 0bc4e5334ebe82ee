// Runs the real Claude Code CLI (the native binary the Claude Agent SDK ships) headless,
// with a settings.json whose PreToolUse hook is `warden check` started from source.

import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../../helpers/cli.js'

const require = createRequire(import.meta.url)

/** Whether this platform has the bundled Claude Code binary. */
export const HAS_CLAUDE_CLI = process.platform === 'linux' && process.arch === 'x64'

/** The Claude Code binary. */
export const CLAUDE = HAS_CLAUDE_CLI
  ? join(dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude')
  : 'claude'

/** What a Claude Code run produced. */
export interface ClaudeCliRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the Claude Code CLI with ARGS in CWD; killed after 90 s. */
export function runClaudeCli(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<ClaudeCliRun> {
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

/**
 * Writes `DIR/settings.json` whose PreToolUse hook on Bash is `warden check ARGS`, with
 * absolute paths throughout (Claude Code runs the hook from the session's folder).
 * @returns the settings file's path.
 */
export function wardenHookSettings(dir: string, checkArgs: string[]): string {
  const tsx = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href
  const command = [process.execPath, '--import', tsx, join(ROOT, 'src/cli/run.ts'), 'check', ...checkArgs]
    .map((a) => `'${a}'`)
    .join(' ')
  const settings = join(dir, 'settings.json')
  writeFileSync(
    settings,
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, timeout: 60 }] }] },
    }),
  )
  return settings
}

/** The headless flags every run uses: prompt, settings, JSON output, the scripted model. */
export function headlessArgs(prompt: string, settings: string, extra: string[] = []): string[] {
  return [
    '-p',
    prompt,
    '--settings',
    settings,
    '--output-format',
    'json',
    '--model',
    'claude-sonnet-4-5',
    ...extra,
  ]
}

/** The `--output-format json` result of a run. */
export interface ClaudeCliResult {
  result: string
  permission_denials: { tool_name: string; tool_input?: Record<string, unknown> }[]
}
