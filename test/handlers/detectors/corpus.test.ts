// Every labelled sample of the benchmark corpus (bench/fixtures/detectors/*.jsonl) is decided
// as labelled by its detector, with the default options the packs use (egress: the corpus's
// allow list). The few samples known to be decided against their label are listed here with
// the reason, so a new miss — or a fixed one — fails this test.

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DETECTORS } from '../../../src/handlers/index.js'

interface Sample {
  id: string
  text: string
  expect: boolean
  variant: string
  note: string
  source: string
  field?: string
}

const ALLOW = ['github.com', 'pypi.org', 'registry.npmjs.org', 'api.openai.com']
const OPTIONS: Record<string, unknown> = { egress: { allow: ALLOW.flatMap((h) => [h, `*.${h}`]) } }

/** Samples decided against their label, on purpose, and why. */
const KNOWN: Record<string, string> = {
  'egress-037':
    '0.0.0.0 reaches the local host on Linux, so an IP literal is flagged even in a listen address',
}

function load(name: string): Sample[] {
  const text = readFileSync(
    new URL(`../../../bench/fixtures/detectors/${name}.jsonl`, import.meta.url),
    'utf8',
  )
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Sample)
}

for (const [category, detectorName] of [
  ['secrets', 'secrets'],
  ['pii', 'pii'],
  ['egress', 'egress'],
  ['shell', 'shell'],
  ['paths', 'paths'],
  ['injection', 'injection'],
] as const) {
  describe(`${detectorName} detector on the ${category} corpus`, () => {
    const detector = DETECTORS[detectorName]
    if (!detector) throw new Error(`no detector ${detectorName}`)
    const scan = detector.prepare(detector.options.parse(OPTIONS[detectorName] ?? {}) as never)
    const samples = load(category)

    it('has positives, obfuscated positives and benign look-alikes, each with its source', () => {
      for (const variant of ['positive', 'obfuscated', 'benign'])
        expect(samples.filter((s) => s.variant === variant).length).toBeGreaterThanOrEqual(5)
      for (const s of samples) expect(s.source.length).toBeGreaterThan(5)
    })

    it.each(samples.map((s) => [s.id, s] as const))('%s is decided as labelled', (id, sample) => {
      const found = scan(sample.text, sample.field).length > 0
      expect(found, `${id} (${sample.variant}: ${sample.note})`).toBe(
        KNOWN[id] ? !sample.expect : sample.expect,
      )
    })
  })
}
