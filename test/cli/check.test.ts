// `warden check` end to end: the examples, Claude Code input, exit codes and errors.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { toClaudeOutput } from '../../src/cli/check.js'
import type { Decision } from '../../src/index.js'
import { runCli } from '../helpers/cli.js'

const config = 'examples/warden.yaml'

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

  it('exits 1 naming the problem for bad files and bad events', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-check-'))
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{"event": "tool.pree", "payload": {"tool": {"name": "x", "input": {}}}}')
    const unknown = await runCli(['check', '--config', config, bad])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/unknown event "tool.pree"; did you mean "tool.pre"/)
    const notJson = join(dir, 'not.json')
    writeFileSync(notJson, 'rm -rf /')
    expect((await runCli(['check', notJson])).stderr).toMatch(/is not valid JSON/)
    const missing = await runCli(['check', join(dir, 'missing.json')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/cannot read the event .*ENOENT/)
    const badConfig = join(dir, 'warden.yaml')
    writeFileSync(
      badConfig,
      'hooks:\n  - name: x\n    event: tool.pre\n    timeoutMs: soon\n    handler: { type: command, command: "true" }\n',
    )
    const configRun = await runCli(['check', '--config', badConfig, 'examples/events/exec-ls.json'])
    expect(configRun.code).toBe(1)
    expect(configRun.stderr).toMatch(/hook "x": timeoutMs must be a number of milliseconds/)
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
    expect(toClaudeOutput(pre)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'rewritten',
        updatedInput: { command: 'ls' },
        additionalContext: 'a\nb',
      },
    })
    const prompt = { ...base, event: 'user.message', decision: 'deny', reason: 'no secrets' } as Decision
    expect(toClaudeOutput(prompt)).toEqual({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit' },
      decision: 'block',
      reason: 'no secrets',
    })
  })
})
