// AI Harness's hook rules, from its documentation, with real Starlark hook files:
// - "delegation.post_verify runs after delegation.post and may block": two events, so a
//   delegation.post hook that blocks (Harness: it cannot) never keeps the verify hook from
//   running, whatever their priorities.
// - "hooks.list() returns the hook files" a meta-policy reads: a file without `priority:`
//   shows no priority, so "every hook declares a priority" can be enforced.
// - "hooks live in .harness/hooks/": found in the working folder without --hooks.
// - Warden's own refusals (depth cap, payload cap) come before any hook: the decision says
//   so in its trace, as Warden's and not a hook's.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine, type DispatchInput, type HookDefinition } from '../../src/core/index.js'
import { createScriptHandler } from '../../src/handlers/index.js'
import { buildEngine, parseConfig, parseHookFile } from '../../src/sources/index.js'
import { runCliInProcess } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-harness-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A Harness hook file (front matter and a script), parsed as Warden loads it. */
function hookFile(name: string, frontMatter: string, body: string): HookDefinition {
  const script = body
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')
  const parsed = parseHookFile(`---\n${frontMatter}\nscript: |\n${script}\n---\nDocs.\n`, `/h/${name}.md`)
  expect(parsed.problems).toEqual([])
  return parsed.hook as HookDefinition
}

const delegationEnd: DispatchInput = {
  event: 'delegation.post',
  payload: { subagent: { name: 'reviewer', result: 'patch ready' } },
  context: {},
}

describe('AI Harness: delegation.post_verify is its own event', () => {
  it('a blocking delegation.post hook at a lower priority does not keep verify from running', async () => {
    const engine = createEngine({
      handlers: [createScriptHandler()],
      hooks: [
        hookFile(
          'post',
          'event: delegation.post\npriority: 0',
          'def handle(event, payload):\n  return block("noted")',
        ),
        hookFile(
          'verify',
          'event: delegation.post_verify\npriority: 10',
          'def handle(event, payload):\n  return block("the review found a bug in " + payload["subagent"]["name"])',
        ),
      ],
    })
    const decision = await engine.dispatch(delegationEnd)
    await engine.close()
    expect(decision.event).toBe('subagent.verify')
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toBe('the review found a bug in reviewer')
  })

  it('verify that allows lets the delegation end', async () => {
    const engine = createEngine({
      handlers: [createScriptHandler()],
      hooks: [
        hookFile('verify', 'event: delegation.post_verify', 'def handle(event, payload):\n  return allow()'),
      ],
    })
    expect((await engine.dispatch(delegationEnd)).decision).toBe('allow')
    await engine.close()
  })
})

describe('AI Harness: hooks.list() gives the hook files', () => {
  it('a meta-policy finds the file that declares no priority', async () => {
    const meta = hookFile(
      'every-hook-has-a-priority',
      'event: tool.pre\npriority: 1',
      [
        'def handle(event, payload):',
        '  missing = [h["name"] for h in hooks.list() if h["file"] != None and "priority" not in h["file"]]',
        '  if missing:',
        '    return block("no priority: " + ", ".join(missing))',
        '  return allow()',
      ].join('\n'),
    )
    const declared = hookFile(
      'declared',
      'event: tool.post\npriority: 0',
      'def handle(event, payload):\n  return allow()',
    )
    const undeclared = hookFile(
      'undeclared',
      'event: tool.post',
      'def handle(event, payload):\n  return allow()',
    )
    const engine = buildEngine(parseConfig('hooks: []\n', dir), {
      env: {},
      extraHooks: [meta, declared, undeclared],
    })
    const decision = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'x', input: {} } },
      context: {},
    })
    await engine.close()
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toBe('no priority: undeclared')
  })
})

describe('AI Harness: .harness/hooks is where hooks are found', () => {
  it('warden check loads the working folder’s .harness/hooks without --hooks', async () => {
    const project = join(dir, 'project')
    mkdirSync(join(project, '.harness', 'hooks'), { recursive: true })
    writeFileSync(
      join(project, '.harness', 'hooks', 'no-rm.md'),
      '---\nevent: tool.pre\nscript: |\n  def handle(event, payload):\n    return block("no rm here")\n---\n',
    )
    const event = JSON.stringify({
      event: 'tool.pre',
      payload: { tool: { name: 'rm', input: {} } },
      context: {},
    })
    const run = await runCliInProcess(['check', '-'], { stdin: event, cwd: project, env: {} })
    expect(run.code, run.stderr).toBe(2)
    expect(run.stdout).toContain('no rm here')
  })
})

describe('Warden’s own refusals come before the chain', () => {
  const allowAll = hookFile('open', 'event: tool.pre', 'def handle(event, payload):\n  return allow()')
  const rows: [string, DispatchInput, string][] = [
    [
      'the sub-agent depth cap',
      { event: 'tool.pre', payload: { tool: { name: 'x', input: {} } }, context: { depth: 9 } },
      'depth-cap',
    ],
    [
      'the payload cap',
      {
        event: 'tool.pre',
        payload: { tool: { name: 'x', input: { blob: 'x'.repeat(2_000_000) } } },
        context: {},
      },
      'payload-too-large',
    ],
  ]
  for (const [label, input, code] of rows) {
    it(`${label}: a deny the trace marks as Warden's own`, async () => {
      const engine = createEngine({ handlers: [createScriptHandler()], hooks: [allowAll] })
      const decision = await engine.dispatch(input)
      await engine.close()
      expect(decision.decision).toBe('deny')
      expect(decision.reasonCode).toEqual([code])
      expect(decision.trace).toEqual([
        expect.objectContaining({ hook: 'warden', handler: 'warden', outcome: 'deny', warden: true }),
      ])
    })
  }
})
