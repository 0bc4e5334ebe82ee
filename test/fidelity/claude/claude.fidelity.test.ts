// Claude Code fidelity: every corpus case (settings files, a plugin, their hook scripts;
// sources and licences in SOURCES.md) is run two ways — by the reference runner, which
// follows Claude Code's documented hook contract, and through `warden check` with the
// same Claude Code hook input — and the decisions and added context must agree.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { run } from '../../../src/cli/check.js'
import type { CliIo } from '../../../src/cli/io.js'
import { runCli } from '../../helpers/cli.js'
import { type ReferenceOutcome, runReference } from './reference-runner.js'

const CASES = resolve(import.meta.dirname, 'cases')

interface Case {
  name: string
  dir: string
  settings: string
  plugin: boolean
  projectDir: string
  events: Record<string, unknown>[]
}

function loadCases(): Case[] {
  return readdirSync(CASES).map((name) => {
    const dir = join(CASES, name)
    const plugin = existsSync(join(dir, 'hooks', 'hooks.json'))
    const settings = plugin ? join(dir, 'hooks', 'hooks.json') : join(dir, '.claude', 'settings.json')
    const projectDir = plugin ? process.cwd() : dir
    const text = readFileSync(join(dir, 'events.json'), 'utf8').replaceAll('{PROJECT}', projectDir)
    return { name, dir, settings, plugin, projectDir, events: JSON.parse(text) }
  })
}

/** Runs `warden check` in process on one Claude Code hook input. */
async function runWarden(c: Case, input: Record<string, unknown>) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    readStdin: async () => JSON.stringify(input),
    cwd: c.projectDir,
    env: process.env,
  }
  const args = c.plugin ? ['--claude-plugin', c.dir, '-'] : ['--claude-settings', c.settings, '-']
  const code = await run(args, io)
  return { code, stdout, stderr }
}

/** Warden's Claude Code output read back as what Claude Code would do. */
function asOutcome(code: number, stdout: string, stderr: string): ReferenceOutcome & { reason: string } {
  expect(code === 0 || code === 2, `warden check failed: ${stderr}`).toBe(true)
  const output = JSON.parse(stdout) as {
    decision?: string
    reason?: string
    hookSpecificOutput: {
      permissionDecision?: string
      permissionDecisionReason?: string
      additionalContext?: string
    }
  }
  const specific = output.hookSpecificOutput
  const context = specific.additionalContext ? [specific.additionalContext] : []
  if (code === 2 || specific.permissionDecision === 'deny' || output.decision === 'block')
    return { decision: 'deny', reasons: [], context, reason: stderr.trim() }
  if (specific.permissionDecision === 'ask')
    return { decision: 'ask', reasons: [], context, reason: specific.permissionDecisionReason ?? '' }
  return { decision: 'allow', reasons: [], context, reason: '' }
}

describe('Claude Code hooks: Warden agrees with the documented contract', () => {
  for (const c of loadCases()) {
    describe(c.name, () => {
      c.events.forEach((input, i) => {
        const label = `${input.hook_event_name} #${i + 1} ${JSON.stringify(input.tool_input ?? input.source ?? input.prompt ?? input.stop_hook_active)}`
        it(label, async () => {
          const reference = await runReference(c.settings, input, {
            projectDir: c.projectDir,
            ...(c.plugin ? { pluginRoot: c.dir } : {}),
          })
          const warden = await runWarden(c, input)
          const got = asOutcome(warden.code, warden.stdout, warden.stderr)
          expect(got.decision).toBe(reference.decision)
          for (const reason of reference.reasons) expect(got.reason).toContain(reason)
          expect(got.context.join('\n')).toBe(reference.context.join('\n'))
        })
      })
    })
  }

  it('the cases cover deny, ask, allow and added context', async () => {
    const seen = new Set<string>()
    for (const c of loadCases()) {
      for (const input of c.events) {
        const r = await runReference(c.settings, input, {
          projectDir: c.projectDir,
          ...(c.plugin ? { pluginRoot: c.dir } : {}),
        })
        seen.add(r.decision)
        if (r.context.length > 0) seen.add('context')
      }
    }
    expect([...seen].sort()).toEqual(['allow', 'ask', 'context', 'deny'])
  })

  it('the real CLI answers a plugin hook with Claude Code output', async () => {
    const dir = join(CASES, 'dangerous-commands')
    const input = {
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git reset --hard' },
    }
    const result = await runCli(['check', '--claude-plugin', dir, '-'], { stdin: JSON.stringify(input) })
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: '[reset-hard] git reset --hard loses work',
    })
  })
})
