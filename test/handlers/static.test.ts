// The static handlers deny, allow and ask: through the engine with their default and
// configured reasons, strict config validation, a whole rule as one warden.yaml entry, and
// hook files that use them instead of a script.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { allowHandler, askHandler, defaultHandlers, denyHandler } from '../../src/handlers/index.js'
import { createEngine, type HookDefinition, WardenError } from '../../src/index.js'
import { loadHookDir, parseConfig } from '../../src/sources/index.js'

const bash = (command: string) => ({
  event: 'PreToolUse',
  payload: { tool: { name: 'Bash', input: { command } } },
})

const staticHook = (type: string, extra: Record<string, unknown> = {}): HookDefinition => ({
  name: `${type}-it`,
  event: 'tool.pre',
  handler: { type, ...extra },
})

describe('static handlers through the engine', () => {
  it('are among the default handlers', () => {
    const types = defaultHandlers().map((h) => h.type)
    expect(types).toEqual(expect.arrayContaining(['deny', 'allow', 'ask']))
    expect([denyHandler.type, allowHandler.type, askHandler.type]).toEqual(['deny', 'allow', 'ask'])
  })

  it('deny: denies with its reason, or names the hook', async () => {
    const engine = createEngine({
      hooks: [staticHook('deny', { reason: 'no shell today' }), { ...staticHook('deny'), name: 'plain' }],
    })
    const decision = await engine.dispatch(bash('ls'))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toBe('no shell today')
    expect(decision.trace.map((t) => [t.hook, t.outcome])).toEqual([
      ['deny-it', 'deny'],
      ['plain', 'skipped'],
    ])
    engine.unregister('deny-it')
    expect((await engine.dispatch(bash('ls'))).reason).toBe('denied by hook "plain"')
  })

  it('allow: a plain allow without a reason, or with the configured one', async () => {
    const plain = createEngine({ hooks: [staticHook('allow')] })
    const decision = await plain.dispatch(bash('ls'))
    expect(decision.decision).toBe('allow')
    expect(decision.trace[0]).toMatchObject({ outcome: 'allow', handler: 'allow' })
    expect(decision.trace[0]?.reason).toBeUndefined()
    const reasoned = createEngine({ hooks: [staticHook('allow', { reason: 'read-only tool' })] })
    expect((await reasoned.dispatch(bash('ls'))).trace[0]?.reason).toBe('read-only tool')
  })

  it('ask: holds the action for the approver, with its reason or the default one', async () => {
    const asked: string[] = []
    const engine = createEngine({
      hooks: [staticHook('ask')],
      approver: (request) => {
        asked.push(...request.asks.map((a) => `${a.hook}: ${a.reason}`))
        return { outcome: 'approve', by: 'ops' }
      },
    })
    const decision = await engine.dispatch(bash('deploy'))
    expect(asked).toEqual(['ask-it: asked by hook "ask-it"'])
    expect(decision.decision).toBe('allow')
    expect(decision.approval).toMatchObject({ outcome: 'approved', by: 'ops' })
    const configured = createEngine({ hooks: [staticHook('ask', { reason: 'deploys need a human' })] })
    const denied = await configured.dispatch(bash('deploy'))
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toContain('hook "ask-it" asks: deploys need a human')
  })

  it.each(['deny', 'allow', 'ask'])(
    '%s: an unknown config field is an invalid-hook error naming it',
    (type) => {
      let error: unknown
      try {
        createEngine({ hooks: [staticHook(type, { reasn: 'typo', reason: 'fine' })] })
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(WardenError)
      expect((error as WardenError).code).toBe('invalid-hook')
      expect((error as WardenError).message).toBe(
        `hook "${type}-it": handler: unknown field "reasn": remove it or check the spelling`,
      )
    },
  )

  it('rejects a reason that is not a string, naming the field', () => {
    expect(() => createEngine({ hooks: [staticHook('deny', { reason: 42 })] })).toThrow(
      /hook "deny-it": handler: reason must be a string/,
    )
  })
})

describe('one warden.yaml entry is a whole rule', () => {
  it('denies Bash when `if` holds, and lets everything else through', async () => {
    const config = parseConfig(
      [
        'hooks:',
        '  - name: no-rm-rf',
        '    event: PreToolUse',
        '    matcher: Bash',
        '    if: tool_input.command.contains("rm -rf")',
        '    handler: { type: deny, reason: "rm -rf is not allowed here" }',
        '',
      ].join('\n'),
      '/tmp',
    )
    const engine = createEngine({ hooks: config.hooks })
    const denied = await engine.dispatch(bash('rm -rf /srv'))
    expect(denied).toMatchObject({ decision: 'deny', reason: 'rm -rf is not allowed here' })
    const fine = await engine.dispatch(bash('ls -la'))
    expect(fine.decision).toBe('allow')
    expect(fine.trace[0]?.skipped).toBe('if')
    const other = await engine.dispatch({
      event: 'PreToolUse',
      payload: { tool: { name: 'Write', input: { command: 'rm -rf /' } } },
    })
    expect(other.decision).toBe('allow')
    expect(other.trace[0]?.skipped).toBe('matcher')
  })
})

describe('hook files with a static handler', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  function folder(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'warden-static-'))
    dirs.push(dir)
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    return dir
  }
  const hookFile = (front: string) => `---\n${front.trim()}\n---\n\nDocumentation.\n`

  it('load as hooks and deny through the engine', async () => {
    const report = await loadHookDir(
      folder({
        'no-rm.md': hookFile(
          'event: tool.pre\nmatcher: Bash\nif: tool_input.command.startsWith("rm")\nhandler:\n  type: deny\n  reason: no rm',
        ),
      }),
    )
    expect(report.problems).toEqual([])
    expect(report.warnings).toEqual([])
    const engine = createEngine({ hooks: report.hooks, handlers: defaultHandlers() })
    expect(await engine.dispatch(bash('rm x'))).toMatchObject({ decision: 'deny', reason: 'no rm' })
    expect((await engine.dispatch(bash('ls'))).decision).toBe('allow')
  })

  it('report a bad handler with its line: another type, an unknown field, script or when alongside', async () => {
    const report = await loadHookDir(
      folder({
        'a-cmd.md': hookFile('event: tool.pre\nhandler: { type: command, command: ./x.sh }'),
        'b-field.md': hookFile('event: tool.pre\nhandler: { type: ask, reasn: typo }'),
        'c-both.md': hookFile(
          'event: tool.pre\nhandler: { type: allow }\nwhen: "True"\nscript: |\n  def handle(e, p):\n      return allow()',
        ),
      }),
    )
    expect(report.hooks).toEqual([])
    const messages = report.problems.map((p) => `${p.file.split('/').pop()}:${p.line}: ${p.message}`)
    expect(messages).toEqual([
      expect.stringMatching(/^a-cmd\.md:3: handler type must be one of deny, allow, ask in a hook file/),
      'b-field.md:3: handler: unknown field "reasn": remove it or check the spelling',
      expect.stringMatching(/^c-both\.md:5: script cannot be used with handler/),
      expect.stringMatching(/^c-both\.md:4: when is a Starlark expression for scripts/),
    ])
  })
})
