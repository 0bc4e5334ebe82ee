// The values hooks said they matched are masked in the audit copy whatever their number: a
// detector that found hundreds of secrets in a large text has every one masked, in about
// one read of the text (not one read per value, which held the event loop for a second).

import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createRedactor } from '../../src/audit/index.js'
import type { DecisionRecord } from '../../src/core/index.js'

const secret = (n: number) => `S${n}-${randomBytes(12).toString('hex')}`

function recordWith(text: string, values: string[]): DecisionRecord {
  return {
    decision: {
      decision: 'deny',
      reason: `found ${values[0]}`,
      additionalContext: [],
      trace: [{ hook: 'h', decision: 'deny', redact: values }],
    },
    event: { event: 'tool.pre', payload: { tool: { input: { text } } }, context: {} },
  } as unknown as DecisionRecord
}

describe('audit masking of matched values', () => {
  it.each([5, 600])('masks all of %i values in a large text, none left in clear', (count) => {
    const values = Array.from({ length: count }, (_, n) => secret(n))
    const filler = 'x'.repeat(1000)
    const text = values.map((v) => `${filler}${v}`).join(' ')
    const redactor = createRedactor(undefined)
    if (!redactor) throw new Error('no redactor')
    const started = performance.now()
    const out = redactor.redact(recordWith(text, values))
    const ms = performance.now() - started
    const masked = JSON.stringify(out)
    for (const v of values) expect(masked).not.toContain(v)
    const payloadText = (out.event.payload as { tool: { input: { text: string } } }).tool.input.text
    expect(payloadText.split('[redacted:matched]').length - 1).toBe(count)
    expect(out.decision.reason).toBe('found [redacted:matched]')
    // One value per pass over 600 kB took hundreds of milliseconds; one pass takes a few.
    if (count > 100) expect(ms).toBeLessThan(150)
  })
})
