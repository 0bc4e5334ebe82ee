// Attacks on the hook-file view AI Harness meta-policies read through `hooks.list()`: the
// front matter of another hook file is shown as written, but never its script (another
// hook's code, which may hold what its author did not mean to share), and a huge front
// matter is cut to its keys rather than copied into every script run.

import { describe, expect, it } from 'vitest'
import type { HookDefinition } from '../../src/core/index.js'
import { buildEngine, parseConfig, parseHookFile } from '../../src/sources/index.js'

function file(name: string, text: string): HookDefinition {
  const parsed = parseHookFile(text, `/hooks/${name}.md`)
  expect(parsed.problems).toEqual([])
  return parsed.hook as HookDefinition
}

const reader = file(
  'reader',
  '---\nevent: tool.pre\npriority: 1\nscript: |\n  def handle(event, payload):\n    return block(str([h["file"] for h in hooks.list() if h["name"] != "reader"]))\n---\n',
)

describe('hooks.list() file view', () => {
  it('shows another file’s front matter without its script', async () => {
    const secret = file(
      'secret-holder',
      '---\nevent: tool.post\nscript: |\n  TOKEN = "sk-live-do-not-share"\n  def handle(event, payload):\n    return allow()\n---\n',
    )
    const engine = buildEngine(parseConfig('hooks: []\n', '/tmp'), { env: {}, extraHooks: [reader, secret] })
    const decision = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'x', input: {} } },
      context: {},
    })
    await engine.close()
    expect(decision.reason).toContain('"event": "tool.post"')
    expect(decision.reason).not.toContain('sk-live-do-not-share')
    expect(decision.reason).not.toContain('script')
  })

  it('cuts a huge front matter to its keys', async () => {
    const huge = file(
      'huge',
      `---\nevent: tool.post\ndescription: ${'x'.repeat(900)}\nnotes: ${'y'.repeat(9000)}\nscript: |\n  def handle(event, payload):\n    return allow()\n---\n`,
    )
    const engine = buildEngine(parseConfig('hooks: []\n', '/tmp'), { env: {}, extraHooks: [reader, huge] })
    const decision = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'x', input: {} } },
      context: {},
    })
    await engine.close()
    expect(decision.reason).toContain('"notes": None')
    expect(decision.reason).not.toContain('yyyy')
  })
})
