// Claude Code permission rules in a settings hook's `if`, translated to CEL: each row is a
// rule, a tool call, and whether Claude Code's rule matches it.

import { describe, expect, it } from 'vitest'
import { compileCondition } from '../../../src/core/index.js'
import { permissionRuleToCel } from '../../../src/sources/index.js'

const folders = { projectDir: '/repo', home: '/home/me' }

const rows: [string, string, Record<string, unknown>, boolean][] = [
  ['Bash', 'Bash', { command: 'anything' }, true],
  ['Bash', 'Read', { file_path: '/x' }, false],
  ['Bash(git commit *)', 'Bash', { command: 'git commit -m x' }, true],
  ['Bash(git commit *)', 'Bash', { command: 'git status' }, false],
  ['Bash(npm run test:*)', 'Bash', { command: 'npm run test --watch' }, true],
  ['Bash(npm run test:*)', 'Bash', { command: 'npm run test' }, true],
  ['Bash(npm run test:*)', 'Bash', { command: 'npm run testing' }, false],
  ['Edit(*.lock)', 'Edit', { file_path: '/repo/deep/yarn.lock' }, true],
  ['Edit(*.lock)', 'Edit', { file_path: '/repo/src/a.ts' }, false],
  ['Edit(/src/**/*.ts)', 'Edit', { file_path: '/repo/src/a/b.ts' }, true],
  ['Edit(/src/**/*.ts)', 'Edit', { file_path: '/repo/src/b.ts' }, true],
  ['Edit(/src/**/*.ts)', 'Edit', { file_path: '/other/src/b.ts' }, false],
  ['Read(~/.ssh/*)', 'Read', { file_path: '/home/me/.ssh/id_rsa' }, true],
  ['Read(//etc/**)', 'Read', { file_path: '/etc/passwd' }, true],
  ['Read(//etc/**)', 'Read', { file_path: '/repo/etc/passwd' }, false],
  ['WebFetch(domain:example.com)', 'WebFetch', { url: 'https://example.com/a' }, true],
  ['WebFetch(domain:example.com)', 'WebFetch', { url: 'https://example.com.evil.io/a' }, false],
  ['mcp__github__*', 'mcp__github__create_issue', {}, true],
  ['mcp__github__*', 'mcp__gitlab__create_issue', {}, false],
  ['Bash(git *)', 'Bash', {}, false],
]

describe('permission rules as CEL', () => {
  for (const [rule, tool, input, expected] of rows) {
    it(`${rule} ${expected ? 'matches' : 'does not match'} ${tool} ${JSON.stringify(input)}`, () => {
      const translated = permissionRuleToCel(rule, folders)
      if ('error' in translated) throw new Error(translated.error)
      const condition = compileCondition(translated.cel)
      const vars = { tool_name: tool, tool_input: input } as unknown as Parameters<typeof condition>[0]
      expect(condition(vars)).toBe(expected)
    })
  }

  it('refuses a specifier it cannot place', () => {
    expect(permissionRuleToCel('NotebookRead(x)', folders)).toEqual({
      error: expect.stringMatching(/does not know which input of NotebookRead/),
    })
  })
})
