// `warden check` end to end: the examples, Claude Code input, exit codes and errors.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { toClaudeOutput } from '../../src/cli/check.js'
import type { Decision } from '../../src/index.js'
import { runCli, runCliInProcess } from '../helpers/cli.js'

const config = 'examples/warden.yaml'
const BROKEN_CONFIG =
  'hooks:\n  - name: x\n    event: tool.pre\n    timeoutMs: soon\n    handler: { type: command, command: "true" }\n'

describe('warden check', () => {
  it('denies the destructive example with exit 2 and the reason on stderr', async () => {
    const run = await runCli(['check', '--config', config, 'examples/events/exec-rm.json'])
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe('destructive shell command refused: use a safer, scoped command')
    expect(JSON.parse(run.stdout)).toMatchObject({ decision: 'deny', reasonCode: ['no-destructive-shell'] })
  })

  it('allows a harmless command with exit 0', async () => {
    const run = await runCli(['check', '--config', config, 'examples/events/exec-ls.json'])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).decision).toBe('allow')
  })

  it('modifies through the Node example hook (redaction) with exit 0', async () => {
    const run = await runCli(['check', '--config', config, 'examples/events/write-secret.json'])
    expect(run.code).toBe(0)
    const decision = JSON.parse(run.stdout)
    expect(decision.decision).toBe('modify')
    expect(decision.payload.tool.input.content).toBe('key [REDACTED AWS KEY]')
  })

  it('reads Claude Code hook input from stdin and answers in Claude Code shape', async () => {
    const input = JSON.stringify({
      session_id: 's',
      cwd: '/',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { path: '/etc/passwd', content: 'x' },
    })
    const run = await runCli(['check', '--config', config, '-'], { stdin: input })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('writes to /etc/passwd are not allowed')
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'writes to /etc/passwd are not allowed',
      },
    })
  })

  it('refuses with exit 2 and nothing on stdout when it cannot check a blocking event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-check-'))
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{"event": "tool.pree", "payload": {"tool": {"name": "x", "input": {}}}}')
    const unknown = await runCliInProcess(['check', '--config', config, bad])
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe('')
    expect(unknown.stderr).toMatch(/unknown event "tool.pree"; did you mean "tool.pre"/)
    const notJson = join(dir, 'not.json')
    writeFileSync(notJson, 'rm -rf /')
    const garbage = await runCliInProcess(['check', notJson])
    expect(garbage.code).toBe(2)
    expect(garbage.stderr).toMatch(/is not valid JSON/)
    const missing = await runCliInProcess(['check', join(dir, 'missing.json')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/cannot read the event .*ENOENT/)
    const badConfig = join(dir, 'warden.yaml')
    writeFileSync(badConfig, BROKEN_CONFIG)
    const configRun = await runCli(['check', '--config', badConfig, 'examples/events/exec-ls.json'])
    expect(configRun.code).toBe(2)
    expect(configRun.stdout).toBe('')
    expect(configRun.stderr).toMatch(/hook "x": timeoutMs must be a number of milliseconds/)
    expect(configRun.stderr).toContain('warden check: refused: the hooks could not be checked')
  })

  it('exits 1 (a non-blocking error) on events that cannot block, and on Stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-check-'))
    const badConfig = join(dir, 'warden.yaml')
    writeFileSync(badConfig, BROKEN_CONFIG)
    const codes: Record<string, number | null> = {}
    for (const input of [
      { hook_event_name: 'SessionStart', source: 'startup' },
      { hook_event_name: 'SessionEnd', reason: 'exit' },
      { hook_event_name: 'SubagentStop' },
      { hook_event_name: 'Stop', stop_hook_active: false },
      { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {}, tool_response: 'ok' },
      { hook_event_name: 'UserPromptSubmit', prompt: 'hi' },
    ]) {
      const run = await runCliInProcess(['check', '--config', badConfig], { stdin: JSON.stringify(input) })
      expect(run.stdout).toBe('')
      expect(run.stderr).toMatch(/timeoutMs must be a number/)
      codes[input.hook_event_name] = run.code
    }
    expect(codes).toEqual({
      SessionStart: 1,
      SessionEnd: 1,
      SubagentStop: 1,
      Stop: 1,
      PostToolUse: 2,
      UserPromptSubmit: 2,
    })
  })

  it('answers a silent PreToolUse chain with no permission decision', async () => {
    const input = JSON.stringify({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    })
    const run = await runCli(['check', '--config', config, '-'], { stdin: input })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse' } })
  })

  it('answers in Claude Code shape for each kind of decision', () => {
    const base = {
      id: 'd',
      reasonCode: [],
      additionalContext: [],
      policies: [],
      trace: [],
      durationMs: 1,
      blocking: true,
    }
    const post = {
      ...base,
      event: 'tool.post',
      decision: 'modify',
      reason: 'redacted',
      payload: { tool: { name: 'Read', input: {}, output: 'SECRET=[redacted]' } },
    } as Decision
    expect(toClaudeOutput(post)).toEqual({
      hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: 'SECRET=[redacted]' },
    })
    const pre = {
      ...base,
      event: 'tool.pre',
      decision: 'modify',
      reason: 'rewritten',
      additionalContext: ['a', 'b'],
      payload: { tool: { name: 'Bash', input: { command: 'ls' } } },
    } as Decision
    // A rewrite alone grants nothing: Claude Code still asks (or not) by its own rules.
    expect(toClaudeOutput(pre)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        updatedInput: { command: 'ls' },
        additionalContext: 'a\nb',
      },
    })
    const granted = {
      ...pre,
      trace: [
        {
          id: 'g',
          hook: 'g',
          handler: 'command',
          version: 1,
          outcome: 'modify',
          durationMs: 1,
          explicitAllow: true,
        },
        {
          id: 'f',
          hook: 'f',
          handler: 'command',
          version: 1,
          outcome: 'allow',
          durationMs: 1,
          explicitAllow: true,
          reason: 'failed; allowed by its failure policy',
          error: { kind: 'error', message: 'boom' },
        },
      ],
    } as Decision
    expect(toClaudeOutput(granted).hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      permissionDecisionReason: 'hook "g" allowed the call',
      updatedInput: { command: 'ls' },
    })
    const prompt = { ...base, event: 'user.message', decision: 'deny', reason: 'no secrets' } as Decision
    expect(toClaudeOutput(prompt)).toEqual({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit' },
      decision: 'block',
      reason: 'no secrets',
    })
  })
})
