// The closed-world registry: known types are checked or inert, refused types stay refused
// whatever the setting says, unknown types are refused naming the type and the setting, and
// an operator's let-through is reported each time it is used.

import { describe, expect, it } from 'vitest'
import type { DecisionRecord } from '../../../src/core/index.js'
import {
  classifyItem,
  firstRefusal,
  type ItemTable,
  LET_THROUGH_CODE,
  letThroughRecorder,
  listedKeys,
  tableEntries,
  unknownTypePolicy,
} from '../../../src/gateway/kit/index.js'

const TABLE: ItemTable = {
  protocol: 'openai.responses',
  place: 'output item',
  key: 'output',
  rules: {
    message: { kind: 'checked', event: 'agent.response', note: 'output_text parts' },
    reasoning: { kind: 'inert', note: 'encrypted reasoning, never shown' },
    computer_call: { kind: 'refused', note: 'computer actions cannot be checked' },
  },
}

describe('the closed-world item registry', () => {
  it('maps known types to their event or passes inert ones', () => {
    expect(classifyItem(TABLE, 'message')).toEqual({ kind: 'checked', event: 'agent.response' })
    expect(classifyItem(TABLE, 'reasoning')).toEqual({ kind: 'inert' })
  })

  it('refuses an unknown type naming it and the setting that lets it through', () => {
    const verdict = classifyItem(TABLE, 'web_search_call')
    expect(verdict.kind).toBe('refused')
    if (verdict.kind !== 'refused') return
    expect(verdict.key).toBe('openai.responses/output/web_search_call')
    expect(verdict.reason).toContain('"web_search_call"')
    expect(verdict.reason).toContain('allowUnknownTypes')
  })

  it('refuses items without a readable type, and names of Object properties are not rules', () => {
    for (const type of [undefined, null, '', 3, ['message'], { a: 1 }])
      expect(classifyItem(TABLE, type).kind).toBe('refused')
    expect(classifyItem(TABLE, 'constructor').kind).toBe('refused')
    expect(classifyItem(TABLE, '__proto__').kind).toBe('refused')
  })

  it('lets a named unknown type through only when the operator listed it, and reports each use', () => {
    const seen: string[] = []
    const policy = unknownTypePolicy(
      'llm.allowUnknownTypes',
      ['openai.responses/output/web_search_call'],
      [TABLE],
      (key) => seen.push(key),
    )
    expect(classifyItem(TABLE, 'web_search_call', policy)).toEqual({
      kind: 'let-through',
      key: 'openai.responses/output/web_search_call',
    })
    expect(classifyItem(TABLE, 'file_search_call', policy).kind).toBe('refused')
    expect(seen).toEqual(['openai.responses/output/web_search_call'])
  })

  it('never lets a refused type through and rejects entries that name no place', () => {
    expect(() =>
      unknownTypePolicy('llm.allowUnknownTypes', ['openai.responses/output/computer_call'], [TABLE]),
    ).toThrow(/cannot be let through: computer actions/)
    expect(() => unknownTypePolicy('llm.allowUnknownTypes', ['web_search_call'], [TABLE])).toThrow(
      /not protocol\/place\/type \(places: openai.responses\/output\)/,
    )
  })

  it('finds the first refusal in a list and lists every entry for docs', () => {
    expect(firstRefusal(TABLE, ['message', 'reasoning'])).toBeUndefined()
    expect(firstRefusal(TABLE, ['message', 'x', 'y'])?.key).toBe('openai.responses/output/x')
    expect(tableEntries(TABLE).map((e) => e.key)).toContain('openai.responses/output/reasoning')
  })
})

describe('the let-through recorder', () => {
  it('adds the reason codes to records whose payload lists keys, and leaves the rest alone', () => {
    const seen: DecisionRecord[] = []
    const recorder = letThroughRecorder({ record: (r) => void seen.push(r) }, (r) =>
      listedKeys(r, 'model', 'unknownTypesLetThrough'),
    )
    const base = { decision: { decision: 'allow', reasonCode: ['x'] } } as unknown as DecisionRecord
    recorder.record({
      ...base,
      event: { payload: { model: { unknownTypesLetThrough: ['openai.chat/part/a', 3] } } },
    } as unknown as DecisionRecord)
    recorder.record({ ...base, event: { payload: { model: {} } } } as unknown as DecisionRecord)
    expect(seen[0]?.decision.reasonCode).toEqual([
      'x',
      LET_THROUGH_CODE,
      `${LET_THROUGH_CODE}:openai.chat/part/a`,
    ])
    expect(seen[1]?.decision.reasonCode).toEqual(['x'])
  })
})
