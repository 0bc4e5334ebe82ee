// `warden test` as a real child process: cases against warden.yaml, a hook folder and a
// Claude Code settings file together; the diff of a failing case; JUnit XML; coverage per
// source file; bad test files named by file and line; exit codes.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT, runCli } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-test-cmd-'))

const CONFIG = `hooks:
  - name: no-rm
    event: tool.pre
    matcher: "^Bash$"
    if: "tool.input.command.contains('rm -rf')"
    handler: { type: deny, reason: "rm -rf is not allowed" }
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
  - name: never-fires
    event: user.message
    matcher: "^nothing$"
    handler: { type: deny, reason: "unused" }
`

const PASSING = `cases:
  - name: rm -rf is denied
    event: tool.pre
    payload: { tool: { name: Bash, input: { command: "rm -rf /" } } }
    expect: { decision: deny, reason: "rm -rf" }
  - name: ls from Claude Code input is allowed, with the reminder
    input: { hook_event_name: PreToolUse, tool_name: Bash, tool_input: { command: ls } }
    expect: { decision: allow, context: "mind the cwd" }
  - name: an AWS key is redacted
    event: tool.pre
    payload: { tool: { name: Write, input: { content: "key AKIAABCDEFGHIJKLMNOP here" } } }
    expect:
      decision: modify
      payload: { tool: { name: Write, input: { content: "key [REDACTED AWS KEY] here" } } }
  - name: deploys ask
    event: tool.pre
    payload: { tool: { name: deploy, input: {} } }
    expect: { decision: ask }
`

function write(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const sources = () => [
  '--hooks',
  join(ROOT, 'examples/hooks-md'),
  '--claude-settings',
  join(dir, 'settings.json'),
]

beforeAll(() => {
  write('warden.yaml', CONFIG)
  write(
    'settings.json',
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"mind the cwd"}}'`,
              },
            ],
          },
        ],
      },
    }),
  )
})

describe('warden test', () => {
  it('passes every case against the config, a hook folder and Claude Code settings, exit 0', async () => {
    write('pass.test.yaml', PASSING)
    const run = await runCli(['test', ...sources(), '--junit', 'out.xml', 'pass.test.yaml'], { cwd: dir })
    expect(run.stderr).toBe('')
    expect(run.stdout).toContain('4 passed, 0 failed')
    expect(run.code).toBe(0)
    const junit = readFileSync(join(dir, 'out.xml'), 'utf8')
    expect(junit).toContain('<testsuite name="pass.test.yaml" tests="4" failures="0" errors="0"')
    expect(junit).toContain('name="rm -rf is denied" file="pass.test.yaml" line="2"')
  })

  it('shows what came out vs what was expected, exit 1, and coverage per source file', async () => {
    write(
      'fail.test.yaml',
      `cases:
  - name: wrong rewrite
    event: tool.pre
    payload: { tool: { name: Write, input: { content: "AKIAABCDEFGHIJKLMNOP" } } }
    expect:
      decision: modify
      reason: "^removed"
      payload: { tool: { name: Write, input: { content: "[gone]" } } }
`,
    )
    const run = await runCli(['test', ...sources(), '--coverage', '--junit', 'fail.xml', 'fail.test.yaml'], {
      cwd: dir,
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('FAIL  wrong rewrite  (fail.test.yaml:2)')
    expect(run.stdout).toMatch(
      /reason: expected to match \/\^removed\/, got "modified by hook "redact-aws-keys""/,
    )
    expect(run.stdout).toContain(
      '    -       "content": "[gone]"\n    +       "content": "[REDACTED AWS KEY]"',
    )
    expect(run.stdout).toContain('0 passed, 1 failed')
    expect(run.stdout).toMatch(/warden\.yaml {2}0\/3/)
    expect(run.stdout).toMatch(/✗ never-fires\s+never fired/)
    expect(run.stdout).toMatch(/✓ redact-aws-keys\s+fired 1, denied 0, modified 1/)
    expect(readFileSync(join(dir, 'fail.xml'), 'utf8')).toContain(
      '<failure message="reason: expected to match /^removed/',
    )
  })

  it('names the file and line of every problem in a bad test file', async () => {
    write(
      'bad.test.yaml',
      `cases:
  - name: typo
    event: tool.pre
    payload: {}
    expect: { decison: deny }
  - event: tool.pre
    payload: {}
    expect:
      decision: nope
  - name: bad pattern
    event: tool.pre
    payload: {}
    expect: { reason: "(" }
`,
    )
    write('broken.test.yaml', 'cases: [ { name: x\n')
    const run = await runCli(['test', 'bad.test.yaml', 'broken.test.yaml'], { cwd: dir })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('bad.test.yaml:5: case 1: unknown field "decison"')
    expect(run.stdout).toContain('bad.test.yaml:6: case 2: name is required')
    expect(run.stdout).toContain(
      'bad.test.yaml:9: case 2: expect.decision must be allow, deny, modify or ask',
    )
    expect(run.stdout).toContain('bad.test.yaml:13: case 3: expect.reason is not a valid regular expression')
    expect(run.stdout).toMatch(/broken\.test\.yaml:\d+: not valid YAML/)
  })

  it('runs every *.test.yaml of a folder, and refuses a folder without any', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'warden-test-empty-'))
    const none = await runCli(['test', empty], { cwd: dir })
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no test files (*.test.yaml) found')
    const nested = mkdtempSync(join(tmpdir(), 'warden-test-suite-'))
    writeFileSync(join(nested, 'a.test.yaml'), PASSING)
    const all = await runCli(['test', ...sources(), '--config', join(dir, 'warden.yaml'), nested], {
      cwd: empty,
    })
    expect(all.code).toBe(0)
    expect(all.stdout).toContain('4 passed, 0 failed')
  })
})
