// Every labelled sample of the benchmark corpus (bench/fixtures/detectors/*.jsonl) is decided
// as labelled by its detector, with the default options the packs use (egress: the corpus's
// allow list; a sample with a `cwd` is read in that folder). Per detector, the test prints
// recall and precision and fails below the floors (0.95 for shell, secrets, paths and egress,
// 0.9 for injection and pii). The few samples known to be decided against their label are
// listed here with the reason, so a new miss — or a fixed one — fails this test.

import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { DETECTORS } from '../../../src/handlers/index.js'

interface Sample {
  id: string
  text: string
  expect: boolean
  variant: string
  note: string
  source: string
  field?: string
  cwd?: string
}

const ALLOW = ['github.com', 'pypi.org', 'registry.npmjs.org', 'api.openai.com']
const OPTIONS: Record<string, unknown> = { egress: { allow: ALLOW.flatMap((h) => [h, `*.${h}`]) } }
/** The least recall and precision each detector must reach on its corpus. */
const FLOOR: Record<string, number> = {
  shell: 0.95,
  secrets: 0.95,
  paths: 0.95,
  egress: 0.95,
  injection: 0.9,
  pii: 0.9,
}

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

const scores: string[] = []
afterAll(() => {
  process.stdout.write(`\ndetector corpus (recall / precision):\n${scores.join('\n')}\n`)
})

for (const name of ['secrets', 'pii', 'egress', 'shell', 'paths', 'injection'] as const) {
  describe(`${name} detector on the ${name} corpus`, () => {
    const detector = DETECTORS[name]
    if (!detector) throw new Error(`no detector ${name}`)
    const scan = detector.prepare(detector.options.parse(OPTIONS[name] ?? {}) as never)
    const samples = load(name)
    const found = (s: Sample) => scan(s.text, s.field, s.cwd ? { cwd: s.cwd } : undefined).length > 0

    it('has positives, obfuscated positives and benign look-alikes, each with its source', () => {
      for (const variant of ['positive', 'obfuscated', 'benign'])
        expect(samples.filter((s) => s.variant === variant).length).toBeGreaterThanOrEqual(5)
      for (const s of samples) expect(s.source.length).toBeGreaterThan(5)
      expect(new Set(samples.map((s) => s.id)).size).toBe(samples.length)
    })

    it(`reaches recall and precision of at least ${FLOOR[name]}`, () => {
      let tp = 0
      let fp = 0
      let fn = 0
      for (const s of samples) {
        const got = found(s)
        if (got && s.expect) tp++
        else if (got) fp++
        else if (s.expect) fn++
      }
      const recall = tp / (tp + fn || 1)
      const precision = tp + fp === 0 ? 1 : tp / (tp + fp)
      scores.push(
        `  ${name.padEnd(9)} ${recall.toFixed(3)} / ${precision.toFixed(3)} (${samples.length} samples)`,
      )
      expect(recall).toBeGreaterThanOrEqual(FLOOR[name] as number)
      expect(precision).toBeGreaterThanOrEqual(FLOOR[name] as number)
    })

    it.each(samples.map((s) => [s.id, s] as const))('%s is decided as labelled', (id, sample) => {
      expect(found(sample), `${id} (${sample.variant}: ${sample.note})`).toBe(
        KNOWN[id] ? !sample.expect : sample.expect,
      )
    })
  })
}

it('holds at least 400 labelled inputs across the six detectors', () => {
  const all = ['secrets', 'pii', 'egress', 'shell', 'paths', 'injection'].flatMap(load)
  expect(all.length).toBeGreaterThanOrEqual(400)
})
