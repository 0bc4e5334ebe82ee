// Hook definitions are validated at the boundary with messages naming the field and fix.

import { describe, expect, it } from 'vitest'
import { createEngine, parseHookDefinition } from '../../src/index.js'

const fn = () => undefined
const base = { name: 'h', event: 'tool.pre', handler: { type: 'fn', fn } }

describe('hook validation', () => {
  it('applies defaults', () => {
    const spec = parseHookDefinition({
      name: 'x',
      event: 'PreToolUse',
      handler: { type: 'command', command: 'true' },
    })
    expect(spec).toMatchObject({
      id: 'x',
      event: 'tool.pre',
      priority: 0,
      timeoutMs: 5000,
      onTimeout: 'deny',
      onError: 'deny',
      enabled: true,
      version: 1,
    })
  })

  it('keys tenant-scoped hooks by tenant and name', () => {
    expect(parseHookDefinition({ ...base, scope: { tenant: 'acme' } }).id).toBe('acme/h')
  })

  const invalid: [string, unknown, RegExp][] = [
    ['missing name', { event: 'tool.pre', handler: { type: 'fn', fn } }, /name is required/],
    ['bad name characters', { ...base, name: 'no spaces allowed' }, /name may hold letters/],
    ['missing event', { name: 'x', handler: { type: 'fn', fn } }, /event is required/],
    [
      'unknown event with suggestion',
      { ...base, event: 'tool.pree' },
      /event "tool.pree" is not known; did you mean "tool.pre"/,
    ],
    ['negative timeout', { ...base, timeoutMs: -5 }, /timeoutMs must be greater than 0/],
    ['string timeout', { ...base, timeoutMs: 'fast' }, /timeoutMs must be a number of milliseconds/],
    ['bad onError', { ...base, onError: 'ignore' }, /onError must be "deny" or "allow"/],
    ['bad scope', { ...base, scope: { tenant: 'a', team: 'b' } }, /unknown field "team" in scope/],
    ['unknown top-level field', { ...base, priorty: 3 }, /unknown field "priorty"/],
    ['missing handler', { name: 'x', event: 'tool.pre' }, /handler is required/],
    ['non-integer priority', { ...base, priority: 1.5 }, /priority must be an integer/],
    ['empty tenant', { ...base, scope: { tenant: '' } }, /scope.tenant must not be empty; omit it/],
    [
      'empty agent id',
      { ...base, scope: { agents: ['a', ''] } },
      /scope.agents.1 must not be an empty agent id/,
    ],
    ['bad version', { ...base, version: 'v2' }, /version must be a positive integer/],
    ['policy without id', { ...base, policy: { version: '1' } }, /policy.id is required: the policy id/],
    ['policy as a string', { ...base, policy: 'no-prod' }, /policy must be an object like \{ id: no-prod/],
  ]
  it.each(invalid)('rejects %s', (_label, definition, message) => {
    expect(() => parseHookDefinition(definition)).toThrowError(message)
  })

  it('rejects unknown handler types, invalid regexes and invalid CEL when registering', () => {
    expect(() => createEngine({ hooks: [{ ...base, handler: { type: 'telepathy' } }] })).toThrowError(
      /handler.type "telepathy" is not available; use one of fn, command/,
    )
    expect(() => createEngine({ hooks: [{ ...base, matcher: '(?<=a)b' }] })).toThrowError(
      /not a valid RE2 regular expression/,
    )
    expect(() => createEngine({ hooks: [{ ...base, if: 'tool_name ==' }] })).toThrowError(/is not valid CEL/)
    expect(() =>
      createEngine({ hooks: [{ ...base, handler: { type: 'command', command: 'a | b' } }] }),
    ).toThrowError(/shell operator "\|"; set shell: true/)
  })

  it('rejects duplicate names in one scope and allows them across tenants', () => {
    expect(() => createEngine({ hooks: [base, base] })).toThrowError(/defined twice/)
    const engine = createEngine({ hooks: [base, { ...base, scope: { tenant: 'acme' } }] })
    expect(
      engine
        .hooks()
        .map((h) => h.id)
        .sort(),
    ).toEqual(['acme/h', 'h'])
  })
})
