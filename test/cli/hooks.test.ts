// `warden hooks validate` and `warden check --hooks / --claude-settings / --profile` as real
// child processes: messages with positions, exit codes, and the kill switch warning.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

const root = mkdtempSync(join(tmpdir(), 'warden-cli-hooks-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function folder(name: string, files: Record<string, string>): string {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
  return dir
}

const good = '---\nevent: tool.pre\nscript: |\n  def handle(event, payload):\n      return allow()\n---\n'
const rmEvent = join(root, 'rm.json')
writeFileSync(
  rmEvent,
  JSON.stringify({ event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /srv' } } } }),
)

describe('warden hooks validate', () => {
  it('passes the examples with exit 0', async () => {
    const run = await runCli(['hooks', 'validate', 'examples/hooks-md'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/3 hook files checked: 0 problems, 0 warnings/)
  })

  it('prints each problem as file:line:col and exits 1', async () => {
    const dir = folder('bad', {
      'typo.md':
        '---\nevent: tool.pree\nscript: |\n  def handle(event, payload):\n      return allow()\n---\n',
      'syntax.md': '---\nevent: tool.pre\nscript: |\n  def handle(event, payload):\n      return (1 +\n---\n',
      'arity.md': '---\nevent: tool.pre\nscript: |\n  def handle(payload):\n      return allow()\n---\n',
      'missing.md': '---\nevent: tool.pre\nscript: |\n  X = 1\n---\n',
      'noevent.md': '---\npriority: 1\nscript: |\n  def handle(e, p):\n      return allow()\n---\n',
      'yaml.md': '---\nevent: [tool.pre\n---\n',
      'whenname.md':
        '---\nevent: tool.pre\nwhen: paylod["name"] == "exec"\nscript: |\n  def handle(e, p):\n      return allow()\n---\n',
      'regex.md':
        '---\nevent: tool.pre\nmatcher: "[("\nscript: |\n  def handle(e, p):\n      return allow()\n---\n',
      'cel.md':
        '---\nevent: tool.pre\nif: "tool_name ==="\nscript: |\n  def handle(e, p):\n      return allow()\n---\n',
      'extra.md':
        '---\nevent: tool.pre\nowner: me\nscript: |\n  def handle(e, p):\n      return allow()\n---\n',
    })
    const run = await runCli(['hooks', 'validate', dir])
    expect(run.code).toBe(1)
    const out = run.stdout.replaceAll(`${dir}/`, '')
    expect(out).toContain('typo.md:2:1: event "tool.pree" is not known; did you mean "tool.pre"')
    expect(out).toMatch(/syntax\.md:[56]:\d+: Starlark syntax error/)
    expect(out).toContain('arity.md:4:3: handle must take two parameters, handle(event, payload); it takes 1')
    expect(out).toContain('missing.md:4: the script must define handle(event, payload)')
    expect(out).toContain('noevent.md:2:1: event is required')
    expect(out).toMatch(/yaml\.md:\d+:\d+: not valid YAML/)
    expect(out).toContain('extra.md:3:1: unknown key "owner" ignored')
    expect(out).toContain('whenname.md:3:7: when: name paylod is not defined')
    expect(out).toContain('regex.md:3:1: matcher "[(" is not a valid RE2 regular expression')
    expect(out).toContain('cel.md:3:1: if "tool_name ===" is not valid CEL')
    expect(run.stderr).toMatch(/10 hook files checked: 9 problems, 1 warning/)
  })

  it('finds duplicate names across folders and against --config', async () => {
    const a = folder('dup-a', { 'guard.md': good, 'no-destructive-shell.md': good })
    const b = folder('dup-b', { 'guard.md': good })
    const run = await runCli(['hooks', 'validate', '--config', 'examples/warden.yaml', a, b])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('hook "guard" is defined twice')
    expect(run.stdout).toContain('hook "no-destructive-shell" is defined twice')
  })

  it('needs an action and a folder', async () => {
    expect((await runCli(['hooks'])).code).toBe(1)
    expect((await runCli(['hooks', 'validate'])).stderr).toMatch(/name at least one folder/)
  })
})

describe('warden check with hook files, Claude Code settings and profiles', () => {
  it('--hooks runs the Starlark hooks of a folder', async () => {
    const run = await runCli(['check', '--hooks', 'examples/hooks-md', rmEvent])
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe('destructive shell command refused (rm -rf): use a safer, scoped command')
  })

  it('refuses a blocking event (exit 2) naming the file when a hook file is broken', async () => {
    const dir = folder('broken', { 'bad.md': '---\nevent: tool.pre\nscript: |\n  def handle(:\n---\n' })
    const run = await runCli(['check', '--hooks', dir, rmEvent])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/bad\.md:4:\d+: Starlark syntax error/)
  })

  it('--claude-settings and --profile load their hooks', async () => {
    const settings = join(root, 'settings.json')
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'exec', hooks: [{ type: 'command', command: 'echo "claude says no" >&2; exit 2' }] },
          ],
        },
      }),
    )
    const fromClaude = await runCli(['check', '--claude-settings', settings, rmEvent])
    expect(fromClaude.code).toBe(2)
    expect(fromClaude.stderr.trim()).toBe('claude says no')
    const profile = join(root, 'agent.json')
    writeFileSync(
      profile,
      JSON.stringify({ name: 'bot', hooks: { onToolCall: [{ action: 'approve', tools: ['ex*'] }] } }),
    )
    const fromProfile = await runCli(['check', '--profile', profile, rmEvent])
    expect(fromProfile.code).toBe(2)
    expect(fromProfile.stderr).toContain('profile bot requires approval for tool "exec"')
    writeFileSync(
      profile,
      JSON.stringify({ hooks: { onToolCall: [{ action: 'command', command: 'true' }] } }),
    )
    const refused = await runCli(['check', '--profile', profile, rmEvent], {
      env: { ...process.env, WARDEN_ALLOW_COMMAND_HOOKS: '' },
    })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/WARDEN_ALLOW_COMMAND_HOOKS=1/)
  })

  it('WARDEN_DISABLE_HOOKS=1 allows everything and says so on stderr', async () => {
    const run = await runCli(['check', '--hooks', 'examples/hooks-md', rmEvent], {
      env: { ...process.env, WARDEN_DISABLE_HOOKS: '1' },
    })
    expect(run.code).toBe(0)
    expect(run.stderr).toMatch(/WARDEN_DISABLE_HOOKS is set: EVERY HOOK IS OFF/)
  })
})
