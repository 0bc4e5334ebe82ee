// Hook folders: loading *.md hook files, ordering, `when`, modify through the view, problems
// and warnings with positions, and the watch that reloads changed files and keeps the last
// good version of a broken one.

import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/core/index.js'
import { createScriptHandler } from '../../src/handlers/index.js'
import {
  attachHookDir,
  formatProblem,
  type HookDirChange,
  loadHookDir,
  parseHookFile,
  watchHookDir,
} from '../../src/sources/index.js'

const dirs: string[] = []
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-hooks-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const hookFile = (front: string, body = 'Documentation.\n') => `---\n${front.trim()}\n---\n\n${body}`
const blocker = (reason: string, extra = '') =>
  hookFile(
    `event: tool.pre\n${extra}\nscript: |\n  def handle(event, payload):\n      return block("${reason}")`,
  )

const exec = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }

describe('loadHookDir', () => {
  it('turns each .md file into a hook named after the file, in priority order', async () => {
    const dir = folder({
      'b-second.md': blocker('second', 'priority: 5'),
      'a-late.md': blocker('late', 'priority: 9'),
      'c-first.md': hookFile(`
event: PreToolUse
priority: -1
script: |
  def handle(event, payload):
      log("first ran")
      return allow()
`),
      'README.md': '# not a hook\n',
    })
    const report = await loadHookDir(dir)
    expect(report.problems).toEqual([])
    expect(report.hooks.map((h) => h.name)).toEqual(['a-late', 'b-second', 'c-first'])
    const engine = createEngine({ handlers: [createScriptHandler()], hooks: report.hooks })
    const decision = await engine.dispatch(exec)
    expect(decision.reason).toBe('second')
    expect(decision.trace.map((t) => [t.hook, t.outcome])).toEqual([
      ['c-first', 'allow'],
      ['b-second', 'deny'],
      ['a-late', 'skipped'],
    ])
    expect(decision.trace[0]?.logs).toEqual(['first ran'])
  })

  it('applies when, matcher and if from the front matter, and modify through the view', async () => {
    const dir = folder({
      'redact.md': hookFile(`
event: tool.pre
matcher: "^(write_file|Write)$"
if: "has(tool_input.content)"
when: '"AKIA" in payload["args"]["content"]'
script: |
  def handle(event, payload):
      args = dict(payload["args"])
      args["content"] = "[redacted]"
      return modify({"name": payload["name"], "args": args})
`),
    })
    const report = await loadHookDir(dir)
    const engine = createEngine({ handlers: [createScriptHandler()], hooks: report.hooks })
    const write = (content: string) =>
      engine.dispatch({
        event: 'tool.pre',
        payload: { tool: { name: 'write_file', input: { path: 'a', content } } },
      })
    expect((await write('AKIA123')).payload).toEqual({
      tool: { name: 'write_file', input: { path: 'a', content: '[redacted]' } },
    })
    expect((await write('plain')).decision).toBe('allow')
    const other = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'exec', input: { content: 'AKIA' } } },
    })
    expect(other.trace[0]?.skipped).toBe('matcher')
  })

  it('reports problems with file:line:col and warns about unknown keys', async () => {
    const dir = folder({
      'typo.md': hookFile(
        'event: tool.pree\ncolour: red\nscript: |\n  def handle(event, payload):\n      return allow()',
      ),
      'syntax.md': hookFile('event: tool.pre\nscript: |\n  def handle(event, payload):\n      return (1 +'),
      'no-front.md': '# just text\n',
      'unclosed.md': '---\nevent: tool.pre\n',
      'no-script.md': hookFile('event: tool.pre'),
      'ok.md': blocker('fine'),
    })
    const report = await loadHookDir(dir)
    expect(report.hooks.map((h) => h.name)).toEqual(['ok'])
    const lines = report.problems.map((p) => formatProblem(p).replace(`${dir}/`, ''))
    expect(lines).toEqual([
      'no-front.md:1:1: a hook file starts with YAML front matter between two "---" lines',
      'no-script.md:2:1: script is required: Starlark code that defines handle(event, payload)',
      expect.stringMatching(/^syntax\.md:\d+:\d+: Starlark syntax error/),
      expect.stringMatching(/^typo\.md:2:1: event "tool\.pree" is not known; did you mean "tool\.pre"/),
      'unclosed.md:1:1: the front matter is not closed: add a "---" line after it',
    ])
    expect(report.warnings.map((w) => formatProblem(w).replace(`${dir}/`, ''))).toEqual([
      expect.stringMatching(/^typo\.md:3:1: unknown key "colour" ignored/),
    ])
  })

  it('refuses a when that reads a name other than payload, event and the builtins', async () => {
    const dir = folder({
      'typo.md': blocker('typo', 'when: paylod["tool"] == "exec"'),
      'ok.md': blocker('ok', 'when: len(payload["name"]) > 0 and event == "tool.pre"'),
    })
    const report = await loadHookDir(dir)
    expect(report.hooks.map((h) => h.name)).toEqual(['ok'])
    expect(report.problems.map((p) => formatProblem(p).replace(`${dir}/`, ''))).toEqual([
      'typo.md:3:7: when: name paylod is not defined',
    ])
    const engine = createEngine({ handlers: [createScriptHandler()], hooks: report.hooks })
    expect((await engine.dispatch(exec)).decision).toBe('deny')
  })

  it('keeps Starlark positions in the .md file (line and column)', () => {
    const text =
      '---\nevent: tool.pre\nscript: |\n  def handle(event, payload):\n      return payload["x"]\n---\n'
    const parsed = parseHookFile(text, '/h/pos.md')
    expect(parsed.hook?.handler).toMatchObject({ line: 4, column: 2 })
  })

  it('reports a folder that does not exist', async () => {
    const report = await loadHookDir(join(tmpdir(), 'warden-no-such-folder-x'))
    expect(report.problems[0]?.message).toMatch(/cannot read the hook folder: ENOENT/)
  })
})

describe('watchHookDir', () => {
  function nextChange(changes: HookDirChange[], count: number): Promise<HookDirChange> {
    return new Promise((resolve, reject) => {
      const started = Date.now()
      const check = () => {
        if (changes.length >= count) return resolve(changes[count - 1] as HookDirChange)
        if (Date.now() - started > 20_000) return reject(new Error('no change seen'))
        setTimeout(check, 25)
      }
      check()
    })
  }

  it('reloads a changed file, keeps the previous version of a broken one, drops a deleted one', async () => {
    const dir = folder({ 'guard.md': blocker('v1'), 'other.md': blocker('other', 'priority: 50') })
    const changes: HookDirChange[] = []
    const watcher = await watchHookDir(dir, (c) => changes.push(c), { debounceMs: 20, pollMs: 200 })
    try {
      expect(watcher.current().hooks.map((h) => h.name)).toEqual(['guard', 'other'])
      writeFileSync(join(dir, 'guard.md'), blocker('v2'))
      const updated = await nextChange(changes, 1)
      expect(updated.updated).toEqual(['guard'])
      expect(updated.hooks.find((h) => h.name === 'guard')?.handler.source).toContain('v2')

      writeFileSync(join(dir, 'guard.md'), hookFile('event: tool.pre\nscript: |\n  def handle(:'))
      const broken = await nextChange(changes, 2)
      expect(broken.broken).toEqual([join(dir, 'guard.md')])
      expect(broken.problems[0]?.message).toMatch(/Starlark syntax error/)
      expect(broken.hooks.find((h) => h.name === 'guard')?.handler.source).toContain('v2')

      unlinkSync(join(dir, 'other.md'))
      const removed = await nextChange(changes, 3)
      expect(removed.removed).toEqual(['other'])
      expect(removed.hooks.map((h) => h.name)).toEqual(['guard'])
    } finally {
      watcher.close()
    }
  })

  it('attachHookDir keeps an engine in step with the folder', async () => {
    const dir = folder({ 'guard.md': blocker('v1') })
    const engine = createEngine({ handlers: [createScriptHandler()] })
    const reports: unknown[] = []
    const { watcher, initial } = await attachHookDir(engine, dir, {
      debounceMs: 20,
      pollMs: 200,
      onReport: (r) => reports.push(r),
    })
    try {
      expect(initial.problems).toEqual([])
      expect((await engine.dispatch(exec)).reason).toBe('v1')
      writeFileSync(join(dir, 'guard.md'), blocker('v2'))
      writeFileSync(join(dir, 'added.md'), blocker('added', 'priority: -5'))
      await waitFor(async () => (await engine.dispatch(exec)).reason === 'added')
      unlinkSync(join(dir, 'added.md'))
      await waitFor(async () => (await engine.dispatch(exec)).reason === 'v2')
      writeFileSync(join(dir, 'guard.md'), '---\nevent: nope.event\n---\n')
      await waitFor(async () => reports.length >= 3)
      expect((await engine.dispatch(exec)).reason).toBe('v2')
    } finally {
      watcher.close()
    }
  })
})

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const started = Date.now()
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
