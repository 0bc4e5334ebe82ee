// Claude Code settings as a hook source: events by Claude Code name, matcher rules, timeout
// in seconds, commands through the shell in the project folder, and the problems reported.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/core/index.js'
import { commandHandler } from '../../src/handlers/index.js'
import { claudeProjectDir, loadClaudeSettings, parseClaudeSettings } from '../../src/sources/index.js'

const project = mkdtempSync(join(tmpdir(), 'warden-claude-'))
mkdirSync(join(project, '.claude', 'hooks'), { recursive: true })
afterAll(() => rmSync(project, { recursive: true, force: true }))

const settingsFile = join(project, '.claude', 'settings.json')
writeFileSync(
  join(project, '.claude', 'hooks', 'no-rm.sh'),
  '#!/bin/sh\ninput=$(cat)\ncase "$input" in *"rm -rf"*) echo "rm -rf is blocked in $(pwd)" >&2; exit 2;; esac\nexit 0\n',
  { mode: 0o755 },
)

const settings = {
  hooks: {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-rm.sh', timeout: 5 }],
      },
      { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'echo "no writes" >&2; exit 2' }] },
      { matcher: 'mcp__.*__delete', hooks: [{ type: 'command', command: 'echo "no deletes" >&2; exit 2' }] },
    ],
    PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'exit 0' }] }],
    UserPromptSubmit: [
      {
        hooks: [
          { type: 'command', command: 'grep -q password && { echo "no secrets" >&2; exit 2; } || exit 0' },
        ],
      },
    ],
  },
}
writeFileSync(settingsFile, JSON.stringify(settings))

describe('Claude Code settings', () => {
  it('loads each command hook with its event, matcher and timeout in seconds', async () => {
    const report = await loadClaudeSettings(settingsFile)
    expect(report.problems).toEqual([])
    expect(report.hooks.map((h) => [h.name, h.event, h.matcher, h.timeoutMs])).toEqual([
      ['claude:PreToolUse:01.01', 'PreToolUse', 'Bash', 5000],
      ['claude:PreToolUse:02.01', 'PreToolUse', 'Write|Edit', 60_000],
      ['claude:PreToolUse:03.01', 'PreToolUse', 'mcp__.*__delete', 60_000],
      ['claude:PostToolUse:01.01', 'PostToolUse', undefined, 60_000],
      ['claude:UserPromptSubmit:01.01', 'UserPromptSubmit', undefined, 60_000],
    ])
    expect(report.hooks[0]?.handler).toMatchObject({ type: 'command', shell: true, cwd: project })
    expect(report.hooks[0]?.handler.command).toBe(
      `export CLAUDE_PROJECT_DIR='${project}'\n'${project}'/.claude/hooks/no-rm.sh`,
    )
  })

  it('runs the commands as Claude Code would: exact names, A|B lists, regexes, all', async () => {
    const report = await loadClaudeSettings(settingsFile)
    const engine = createEngine({ handlers: [commandHandler], hooks: report.hooks })
    const tool = (name: string, input: Record<string, string> = {}) =>
      engine.dispatch({ event: 'tool.pre', payload: { tool: { name, input } } })
    const rm = await tool('Bash', { command: 'rm -rf /' })
    expect(rm.decision).toBe('deny')
    expect(rm.reason).toBe(`rm -rf is blocked in ${project}`)
    expect((await tool('Bash', { command: 'ls' })).decision).toBe('allow')
    expect((await tool('BashOutput', { command: 'rm -rf /' })).decision).toBe('allow')
    expect((await tool('Edit')).reason).toBe('no writes')
    expect((await tool('mcp__files__delete')).reason).toBe('no deletes')
    expect((await tool('Read')).decision).toBe('allow')
    const prompt = await engine.dispatch({
      event: 'UserPromptSubmit',
      payload: { message: { role: 'user', text: 'my password is x' } },
    })
    expect(prompt.reason).toBe('no secrets')
    await engine.close()
  })

  it('finds the project folder from .claude/settings.json', () => {
    expect(claudeProjectDir(settingsFile)).toBe(project)
    expect(claudeProjectDir('/etc/warden/settings.json')).toBe('/etc/warden')
  })

  it('reports what it cannot load and warns about what Warden does not dispatch', () => {
    const report = parseClaudeSettings(
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'is this safe?' }] },
            { matcher: 'Bash', hooks: [{ type: 'command', command: 'x', timeout: -1 }] },
            { matcher: 7, hooks: [] },
          ],
          Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
          PreToolUze: [],
          SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'true' }] }],
          Stop: [{ matcher: 'x', hooks: [{ type: 'command', command: 'true' }] }],
        },
      }),
      '/p/.claude/settings.json',
    )
    expect(report.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/hooks\.PreToolUse\[0\]\.hooks\[0\]: hook type "prompt" is not supported/),
      expect.stringMatching(/hooks\.PreToolUse\[1\]\.hooks\[0\]\.timeout must be a number of seconds/),
      expect.stringMatching(/hooks\.PreToolUse\[2\]\.matcher must be a string/),
    ])
    expect(report.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/"Notification" has no Warden equivalent; its hooks were skipped/),
      expect.stringMatching(
        /"PreToolUze" is not a Claude Code event Warden knows; did you mean "PreToolUse"/,
      ),
      expect.stringMatching(/matcher "x" has no meaning on Stop in Warden/),
    ])
    expect(report.hooks.map((h) => h.name)).toEqual(['claude:SessionStart:01.01', 'claude:Stop:01.01'])
    // A SessionStart matcher selects on the session's source, as in Claude Code.
    expect(report.hooks[0]?.if).toBe(
      'has(payload.session.source) && payload.session.source.matches("^(?:startup)$")',
    )
  })

  it('says so for bad JSON, a missing hooks section and disableAllHooks', () => {
    expect(parseClaudeSettings('{', 'f.json').problems[0]?.message).toMatch(/not valid JSON/)
    expect(parseClaudeSettings('{}', 'f.json').warnings[0]?.message).toMatch(/no "hooks" section/)
    const off = parseClaudeSettings(JSON.stringify({ ...settings, disableAllHooks: true }), 'f.json')
    expect(off.hooks).toEqual([])
    expect(off.warnings[0]?.message).toMatch(/disableAllHooks/)
  })

  it('loads http hooks with environment variables filled in as secret headers', () => {
    const report = parseClaudeSettings(
      JSON.stringify({
        hooks: {
          PostToolUse: [
            {
              hooks: [
                {
                  type: 'http',
                  url: 'https://hooks.example.com/post',
                  headers: { Authorization: 'Bearer $MY_TOKEN', 'X-Other': 'id=$OTHER', 'X-Team': 'core' },
                  allowedEnvVars: ['MY_TOKEN'],
                  timeout: 10,
                },
              ],
            },
          ],
        },
      }),
      '/p/.claude/settings.json',
      { env: { MY_TOKEN: 'abc123', OTHER: 'leak' } },
    )
    expect(report.problems).toEqual([])
    expect(report.warnings).toEqual([])
    expect(report.hooks[0]).toMatchObject({
      event: 'PostToolUse',
      timeoutMs: 10_000,
      handler: {
        type: 'http',
        url: 'https://hooks.example.com/post',
        headers: { 'X-Team': 'core' },
        secretHeaders: { Authorization: 'Bearer abc123', 'X-Other': 'id=' },
      },
    })
  })

  it('warns about fields it does not know, naming the hook, and still loads it', () => {
    const report = parseClaudeSettings(
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true', retries: 2, async: true }] }] },
      }),
      '/p/.claude/settings.json',
    )
    expect(report.warnings.map((w) => w.message)).toEqual([
      'hook "claude:Stop:01.01" (hooks.Stop[0].hooks[0]): field "retries" is not one Warden knows; it was ignored',
      expect.stringMatching(/^hook "claude:Stop:01.01" .*"async" hooks run in the background/),
    ])
    expect(report.hooks[0]).toMatchObject({ onError: 'allow', onTimeout: 'allow' })
  })
})
