// The shell detector's allowlist mode: Claude Code's rule syntax (exact, `:*`, a final `*`,
// `*` for words, `Bash(…)`), every command of a line judged on its own (wrappers that change
// who runs a program too), what the reader cannot resolve refused with its reason, deny rules
// winning, and Claude Code's settings.json read at load with clear, content-free errors;
// the docs' worked example through the shell-safety pack's options.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DETECTORS, type ShellOptions, scanShell } from '../../../src/handlers/index.js'
import { createEngine } from '../../../src/index.js'
import { parseConfig } from '../../../src/sources/index.js'

const ALLOW: ShellOptions = {
  mode: 'allow',
  allow: ['git status', 'git diff:*', 'npm run *', 'ls *', 'Bash(npx vitest:*)', 'grep *', 'cat *', 'sudo *'],
  deny: ['git push:*'],
}
const judge = (command: string, options: ShellOptions = ALLOW) =>
  scanShell(command, options).map((f) => `${f.kind}: ${f.detail}`)

describe('allowlist mode', () => {
  it.each([
    'git status',
    'git diff',
    'git diff HEAD~1 -- src',
    'npm run build && npm run test:unit',
    'ls',
    'ls -la | grep foo',
    'cd src && ls',
    'echo done',
    'npx vitest run test/a.test.ts',
    'nice -n 5 timeout 60 npm run build',
    'sudo ls /root',
    'env CI=1 npm run test',
    'NODE_ENV=production npm run build',
    'eval git status',
    '$(echo git) status',
    'ls 2>/dev/null; ls 2>&1',
    'for f in a b; do cat "$f"; done',
    'command -v git',
    'if [ -f package.json ]; then npm run build; fi',
    '[[ -d src ]] && ls src',
  ])('allows %j', (command) => {
    expect(judge(command)).toEqual([])
  })

  it.each([
    ['git status --short', /not-allowed: `git status --short` is not on the allow list/],
    ['npm test', /not-allowed: `npm test` is not on the allow list/],
    ['rm -rf build', /not-allowed: `rm -rf build`/],
    ['./git status', /not-allowed: `\.\/git status`/],
    ['/usr/bin/git status', /not-allowed/],
    ['ls; curl -s https://x.example', /not-allowed: `curl -s https:\/\/x.example`/],
    ['git status $(rm -rf x)', /not-allowed: `rm -rf x`/],
    ['cat <(curl x)', /not-allowed: `curl x`/],
    ['bash -c "git status"', /not-allowed: `bash -c git status`/],
    ['find . | xargs grep x', /not-allowed: `find \.`/],
    ['doas git status', /not-allowed: `doas`/],
    ['$CMD status', /unresolved: a command name the shell reader cannot know \(`\$CMD status`\)/],
    ['git $SUB', /not-allowed: `git \$SUB`/],
    ["git 'status", /unresolved: the shell reader could not resolve an unterminated single quote/],
    ['ls; eval "$X"', /unresolved/],
    ['ls > notes.txt', /not-allowed: output redirected to notes.txt \(allowRedirects is off\)/],
    ['> ~/.bashrc', /not-allowed: output redirected to ~\/.bashrc/],
    ['git push origin main', /denied-command: `git push origin main` matches the deny rule git push:\*/],
    ['PATH=.:$PATH git status', /not-allowed: sets PATH, which changes which program runs/],
    ['LD_PRELOAD=./hook.so ls', /sets LD_PRELOAD/],
    ['export GIT_EXTERNAL_DIFF=./x; git diff', /sets GIT_EXTERNAL_DIFF/],
    ['env GIT_SSH_COMMAND=./x git status', /sets GIT_SSH_COMMAND/],
    [
      `${'$('.repeat(9)}ls${')'.repeat(9)}`,
      /scan-limit: shell reader stopped at its bound: more than 8 levels/,
    ],
  ])('refuses %j, naming why', (command, reason) => {
    expect(judge(command).join(' | ')).toMatch(reason)
  })

  it('reads rules as Claude Code does: exact, prefix, words and characters', () => {
    const only = (rule: string, command: string) =>
      scanShell(command, { mode: 'allow', allow: [rule] }).length === 0
    expect(only('npm run test:*', 'npm run test')).toBe(true)
    expect(only('npm run test:*', 'npm run test -- --watch')).toBe(true)
    expect(only('npm run test:*', 'npm run testing')).toBe(false)
    expect(only('git * main', 'git push origin main')).toBe(true)
    expect(only('git * main', 'git push origin dev')).toBe(false)
    expect(only('docker*', 'docker-compose up -d')).toBe(true)
    expect(only('Bash', 'anything --at all')).toBe(true)
    expect(only('Bash', '$X')).toBe(false)
    expect(only('xargs *', 'ls | xargs')).toBe(false)
  })

  it('lets deny rules win over allow rules and still applies the destructive rules', () => {
    const options: ShellOptions = { mode: 'allow', allow: ['rm *', 'git *'], deny: ['git push --force:*'] }
    expect(judge('git push --force origin x', options)[0]).toMatch(/^denied-command/)
    expect(judge('rm -rf /', options)).toEqual(['recursive-delete: rm -r on /'])
    expect(judge('rm -rf build', options)).toEqual([])
  })

  it('applies deny rules in the default mode too, by base name', () => {
    expect(judge('/bin/rm -f x', { deny: ['rm:*'] })[0]).toMatch(/^denied-command/)
    expect(judge('ls', { deny: ['rm:*'] })).toEqual([])
  })

  it('spends its work budget on rules tried, and says so when it runs out', () => {
    const allow = Array.from({ length: 10_000 }, (_, i) => `* x${i} *`)
    const kinds = scanShell(`ls ${'a '.repeat(30_000)}`, { mode: 'allow', allow }).map((f) => f.kind)
    expect(kinds).toEqual(['not-allowed', 'scan-limit'])
    expect(scanShell('ls x9999 y', { mode: 'allow', allow })).toEqual([])
  })

  it('allows output redirections when allowRedirects is on', () => {
    expect(judge('ls > notes.txt', { ...ALLOW, allowRedirects: true })).toEqual([])
  })

  it('refuses options that do not fit, naming them', () => {
    const options = DETECTORS.shell?.options
    const problem = (value: unknown) => {
      const parsed = options?.safeParse(value)
      return parsed?.success ? 'ok' : JSON.stringify(parsed?.error.issues.map((i) => [i.path, i.message]))
    }
    expect(problem({ allow: ['ls'] })).toMatch(/"allow"\],"is read only with mode: allow/)
    expect(problem({ mode: 'allow' })).toMatch(/allow needs the commands that may run/)
    expect(problem({ mode: 'permit', allow: ['ls'] })).toMatch(/must be \\"deny\\"/)
    expect(problem({ mode: 'allow', allow: [''] })).not.toBe('ok')
    expect(problem({ mode: 'allow', allow: ['ls'] })).toBe('ok')
  })
})

describe("Claude Code's settings.json as the lists", () => {
  const dir = mkdtempSync(join(tmpdir(), 'warden-claude-'))
  const file = (name: string, text: string) => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }
  const settings = file(
    'settings.json',
    JSON.stringify({
      env: { ANTHROPIC_API_KEY: 'sk-ant-not-a-real-key' },
      permissions: {
        allow: ['Bash(npm run test:*)', 'Bash(git status)', 'Bash(git diff:*)', 'Read(~/.zshrc)', 'WebFetch'],
        ask: ['Bash(git commit:*)'],
        deny: ['Bash(curl:*)', 'Read(./.env)'],
      },
    }),
  )
  const prepare = (options: ShellOptions) => {
    const detector = DETECTORS.shell
    if (!detector) throw new Error('no shell detector')
    return detector.prepare(detector.options.parse(options) as never)
  }

  it('takes the Bash rules of allow, ask and deny; deny wins, ask is not allowed', () => {
    const scan = prepare({ mode: 'allow', claudeSettings: settings })
    expect(scan('npm run test -- --watch && git status')).toEqual([])
    expect(scan('git diff --stat')).toEqual([])
    expect(scan('git commit -m x')[0]?.detail).toMatch(/matches the ask rule Bash\(git commit:\*\)/)
    expect(scan('curl https://x.example')[0]?.detail).toMatch(/matches the deny rule Bash\(curl:\*\)/)
    expect(scan('cat ~/.zshrc')[0]?.kind).toBe('not-allowed')
  })

  it('uses only the deny rules in the default mode', () => {
    const scan = prepare({ claudeSettings: settings })
    expect(scan('curl https://x.example')[0]?.kind).toBe('denied-command')
    expect(scan('make build')).toEqual([])
  })

  it('refuses a file it cannot use, naming the file and the problem but never its content', () => {
    mkdirSync(join(dir, 'folder'), { recursive: true })
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.json'), /cannot be read \(ENOENT\)/],
      [join(dir, 'folder'), /is not a regular file/],
      [file('broken.json', '{"env": {"KEY": "sk-ant-secret-value"'), /is not valid JSON$/],
      [file('list.json', '[1]'), /must hold a JSON object/],
      [file('shape.json', '{"permissions": {"allow": "Bash(ls)"}}'), /permissions.allow must be a list/],
      [file('item.json', '{"permissions": {"deny": [1]}}'), /permissions.deny\[0\] must be a string/],
      [file('big.json', `{"pad": "${'x'.repeat(1024 * 1024)}"}`), /is larger than 1048576 bytes/],
    ]
    for (const [path, problem] of cases) {
      let message = ''
      try {
        prepare({ mode: 'allow', claudeSettings: path })
      } catch (error) {
        message = (error as Error).message
      }
      expect(message).toMatch(problem)
      expect(message).toContain(`options.claudeSettings "${path}"`)
      expect(message).not.toMatch(/sk-ant/)
    }
  })
})

describe('the worked example of the docs, through the shell-safety pack', () => {
  it('passes what Claude Code would run without asking, and nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-pack-'))
    mkdirSync(join(dir, '.claude'))
    const settings = join(dir, '.claude', 'settings.json')
    writeFileSync(
      settings,
      JSON.stringify({
        permissions: {
          allow: [
            'Bash(npm run test:*)',
            'Bash(npm run build)',
            'Bash(git status)',
            'Bash(git diff:*)',
            'Read(~/.zshrc)',
          ],
          ask: ['Bash(git commit:*)'],
          deny: ['Bash(git push:*)', 'Bash(curl:*)', 'Read(./.env)'],
        },
      }),
    )
    const config = parseConfig(
      // A relative path is read from the config's folder, not from where Warden runs.
      'packs:\n  - name: shell-safety\n    options: { mode: allow, claudeSettings: .claude/settings.json }\n',
      dir,
      'warden.yaml',
    )
    const engine = createEngine({ hooks: config.hooks })
    const run = async (command: string) =>
      engine.dispatch({ event: 'tool.pre', payload: { tool: { name: 'Bash', input: { command } } } })
    expect((await run('npm run test -- --watch && git status')).decision).toBe('allow')
    for (const [command, reason] of [
      ['git diff | cat', /`cat` is not on the allow list/],
      ['git push origin main', /matches the deny rule Bash\(git push:\*\)/],
      ['git commit -m x', /matches the ask rule Bash\(git commit:\*\)/],
      ['curl https://x.example', /matches the deny rule Bash\(curl:\*\)/],
    ] as const) {
      const decision = await run(command)
      expect(decision.decision, command).toBe('deny')
      expect(decision.reason).toMatch(reason)
    }
  })
})
