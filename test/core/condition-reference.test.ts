// The condition reference: derived from the engine's own condition variables for every
// catalog event, so each path it names is one an `if` expression can really read.

import { describe, expect, it } from 'vitest'
import { CANONICAL_EVENTS, compileCondition, conditionReference } from '../../src/core/index.js'

describe('conditionReference', () => {
  it('names the variables of every catalog event, with CEL types and examples', () => {
    for (const event of CANONICAL_EVENTS) {
      const vars = conditionReference(event)
      const paths = vars.map((v) => v.path)
      expect(paths, event).toEqual(expect.arrayContaining(['event', 'payload', 'context', 'tenant', 'depth']))
      for (const v of vars)
        expect(['string', 'int', 'double', 'bool', 'list', 'map', 'null']).toContain(v.type)
    }
    const tool = conditionReference('tool.pre')
    expect(tool.find((v) => v.path === 'tool.input.command')).toEqual({
      path: 'tool.input.command',
      type: 'string',
      example: '"ls -la"',
    })
    expect(conditionReference('user.message').find((v) => v.path === 'message.text')?.type).toBe('string')
  })

  it('names only paths an if expression compiles and reads', () => {
    for (const v of conditionReference('tool.pre').filter((x) => x.type === 'string')) {
      expect(() => compileCondition(`${v.path} != ""`)).not.toThrow()
    }
  })

  it('gives a custom event the generic variables', () => {
    const paths = conditionReference('custom.deploy').map((v) => v.path)
    expect(paths).toContain('payload')
    expect(paths).not.toContain('tool.input.command')
  })
})
