// `mode: shadow` in a Markdown hook file: the hook loads in shadow mode and its would-be
// denial is recorded, not applied; a bad mode is a problem naming the field.

import { describe, expect, it } from 'vitest'
import { buildEngine, parseHookFile } from '../../src/sources/index.js'

const file = (mode: string) => `---
event: tool.pre
mode: ${mode}
script: |
  def handle(event, payload):
      return block("no")
---
# A hook in ${mode} mode
`

describe('mode in hook files', () => {
  it('loads a shadow hook whose deny is recorded, not applied', async () => {
    const parsed = parseHookFile(file('shadow'), '/hooks/no-all.md')
    expect(parsed.problems).toEqual([])
    const engine = buildEngine(undefined, { extraHooks: parsed.hook ? [parsed.hook] : [], env: {} })
    const decision = await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'exec', input: {} } },
    })
    await engine.close()
    expect(decision.decision).toBe('allow')
    expect(decision.trace[0]).toMatchObject({ hook: 'no-all', outcome: 'deny', shadow: true })
  })

  it('refuses an unknown mode when the hook is registered', () => {
    const parsed = parseHookFile(file('dry-run'), '/hooks/no-all.md')
    expect(() => buildEngine(undefined, { extraHooks: parsed.hook ? [parsed.hook] : [], env: {} })).toThrow(
      /mode must be "enforce"/,
    )
  })
})
