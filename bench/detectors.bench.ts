// Benchmark: Warden's built-in detectors against OpenAI Guardrails' regex-engine checks
// (Secret Keys, Contains PII, URL Filter, Keyword Filter), side by side in one run on the
// labelled corpus in bench/fixtures/detectors/*.jsonl (positives, obfuscated positives and
// benign look-alikes per category). Per category it prints recall and precision of both
// (goal: Warden's at least theirs) and the time per check (goal: at most half of theirs),
// and every sample Warden gets wrong, by id, and the time of the slowest single input of the
// corpus (goal: at most 10 ms). A goal missed is printed as a MISS line. The checks are
// called directly, no LLM. Short run: DETECTORS_BENCH_ROUNDS=2.

import { readFileSync } from 'node:fs'
import {
  KeywordsConfig,
  keywordsCheck,
  PIIConfig,
  PIIEntity,
  pii,
  secretKeysCheck,
  UrlsConfig,
  urls,
} from '@openai/guardrails'
import { type BenchResult, fmt } from './lib.js'

interface Sample {
  id: string
  text: string
  expect: boolean
  variant: 'positive' | 'obfuscated' | 'benign'
  note: string
  source: string
  field?: string
  /** The working folder the sample is read in (paths). */
  cwd?: string
}

type Check = (sample: Sample) => boolean | Promise<boolean>

/** What a Guardrails check answers (the part this benchmark reads). */
interface Result {
  tripwireTriggered: boolean
}

interface Category {
  name: string
  detector: string
  options: unknown
  /** The Guardrails check this category is measured against, and how it is set up. */
  theirs: string
  guardrails: (text: string) => Result | Promise<Result>
  /** Whether Guardrails' answer counts as "found". */
  found: (result: Result) => boolean
}

const ALLOW = ['github.com', 'pypi.org', 'registry.npmjs.org', 'api.openai.com']
const keywords = (list: string[]) => {
  const config = KeywordsConfig.parse({ keywords: list })
  return async (text: string) => keywordsCheck({}, text, config)
}
const tripped = (r: { tripwireTriggered: boolean }) => r.tripwireTriggered

const CATEGORIES: Category[] = [
  {
    name: 'secrets',
    detector: 'secrets',
    options: {},
    theirs: 'Secret Keys (balanced)',
    guardrails: (text) => secretKeysCheck({}, text, { threshold: 'balanced' }),
    found: tripped,
  },
  {
    name: 'pii',
    detector: 'pii',
    options: {},
    theirs: 'Contains PII (email, phone, card, US SSN, UK NINO, IBAN)',
    guardrails: (() => {
      const config = PIIConfig.parse({
        entities: [
          PIIEntity.EMAIL_ADDRESS,
          PIIEntity.PHONE_NUMBER,
          PIIEntity.CREDIT_CARD,
          PIIEntity.US_SSN,
          PIIEntity.UK_NINO,
          PIIEntity.IBAN_CODE,
        ],
        block: true,
      })
      return (text: string) => pii({}, text, config)
    })(),
    found: tripped,
  },
  {
    name: 'egress',
    detector: 'egress',
    options: { allow: ALLOW.flatMap((h) => [h, `*.${h}`]) },
    theirs: 'URL Filter (same allow list, subdomains allowed)',
    guardrails: (() => {
      const config = UrlsConfig.parse({
        url_allow_list: ALLOW,
        allow_subdomains: true,
        allowed_schemes: ['http', 'https'],
      })
      return (text: string) => urls({}, text, config)
    })(),
    found: tripped,
  },
  {
    name: 'shell',
    detector: 'shell',
    options: {},
    theirs: 'Keyword Filter (16 destructive-command substrings)',
    guardrails: keywords([
      'rm -rf /',
      'rm -rf ~',
      'rm -rf *',
      'rm -fr /',
      '--no-preserve-root',
      'find / -delete',
      'mkfs',
      'dd if=/dev/zero',
      'of=/dev/sda',
      '> /dev/sda',
      '| sh',
      '| bash',
      'chmod -R 777',
      ':(){',
      'git push --force',
      'git push -f',
    ]),
    found: tripped,
  },
  {
    name: 'paths',
    detector: 'paths',
    options: {},
    theirs: 'Keyword Filter (13 protected-path substrings)',
    guardrails: keywords([
      '.env',
      '.ssh',
      'id_rsa',
      'id_ed25519',
      '.aws',
      'gcloud',
      '.azure',
      '.kube/config',
      '.netrc',
      '/etc/',
      '.pem',
      '/var/run/secrets',
      '/proc/self/environ',
    ]),
    found: tripped,
  },
  {
    name: 'injection',
    detector: 'injection',
    options: {},
    theirs: 'Keyword Filter (12 injection phrases)',
    guardrails: keywords([
      'ignore previous instructions',
      'ignore all previous instructions',
      'disregard previous instructions',
      'disregard the above',
      'system prompt',
      'you are now',
      'new instructions',
      'do not tell the user',
      'developer mode',
      'jailbreak',
      '<|im_start|>',
      '[INST]',
    ]),
    found: tripped,
  },
]

function load(name: string): Sample[] {
  const text = readFileSync(new URL(`./fixtures/detectors/${name}.jsonl`, import.meta.url), 'utf8')
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Sample)
}

interface Score {
  recall: number
  precision: number
  wrong: Sample[]
}

async function score(samples: readonly Sample[], check: Check): Promise<Score> {
  let tp = 0
  let fp = 0
  let fn = 0
  const wrong: Sample[] = []
  for (const sample of samples) {
    const got = await check(sample)
    if (got && sample.expect) tp++
    else if (got) fp++
    else if (sample.expect) fn++
    if (got !== sample.expect) wrong.push(sample)
  }
  return { recall: tp / (tp + fn || 1), precision: tp + fp === 0 ? 1 : tp / (tp + fp), wrong }
}

/** Nanoseconds per check over the whole corpus, best of `rounds` (interleaved with the other side). */
function timePerCheck(samples: readonly Sample[], run: (s: Sample) => unknown, rounds: number): number {
  let best = Number.POSITIVE_INFINITY
  const passes = Math.max(1, Math.ceil(2000 / samples.length))
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint()
    for (let p = 0; p < passes; p++) for (const s of samples) run(s)
    best = Math.min(best, Number(process.hrtime.bigint() - start) / (passes * samples.length))
  }
  return best
}

/** Milliseconds of the slowest single input (each the best of `repeats` runs), and which. */
function worstInput(samples: readonly Sample[], run: (s: Sample) => unknown, repeats: number) {
  let worst = { ms: 0, id: '' }
  for (const s of samples) {
    let best = Number.POSITIVE_INFINITY
    for (let r = 0; r < repeats; r++) {
      const start = process.hrtime.bigint()
      run(s)
      best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6)
    }
    if (best > worst.ms) worst = { ms: best, id: s.id }
  }
  return worst
}

/** The slowest single input may take this many milliseconds. */
const WORST_INPUT_MS = 10

/** Runs the detector benchmark. */
export default async function run(): Promise<BenchResult[]> {
  // Warden runs compiled (dist/), as users run it; `npm run bench` builds it.
  const { DETECTORS } = await import('../dist/handlers/index.js')
  const rounds = Number(process.env.DETECTORS_BENCH_ROUNDS ?? 15)
  const results: BenchResult[] = []
  const misses: string[] = []
  for (const category of CATEGORIES) {
    const samples = load(category.name)
    const detector = DETECTORS[category.detector]
    if (!detector) throw new Error(`no detector ${category.detector}`)
    const scan = detector.prepare(detector.options.parse(category.options) as never) as (
      text: string,
      key?: string,
      context?: { cwd?: string },
    ) => unknown[]
    const context = (s: Sample) => (s.cwd ? { cwd: s.cwd } : undefined)
    const ours: Check = (s) => scan(s.text, s.field, context(s)).length > 0
    const theirs: Check = async (s) => category.found(await category.guardrails(s.text))
    const mine = await score(samples, ours)
    const base = await score(samples, theirs)
    for (const s of mine.wrong)
      misses.push(`MISS ${s.id} [${s.variant}] expected ${s.expect ? 'found' : 'clean'}: ${s.note}`)
    // Warm both, then time them interleaved so machine noise hits both alike.
    let oursNs = Number.POSITIVE_INFINITY
    let theirsNs = Number.POSITIVE_INFINITY
    for (let r = 0; r < rounds; r++) {
      theirsNs = Math.min(
        theirsNs,
        timePerCheck(samples, (s) => category.guardrails(s.text), 1),
      )
      oursNs = Math.min(
        oursNs,
        timePerCheck(samples, (s) => scan(s.text, s.field, context(s)), 1),
      )
    }
    const worst = worstInput(samples, (s) => scan(s.text, s.field, context(s)), Math.max(3, rounds))
    if (oursNs > theirsNs / 2)
      misses.push(
        `MISS ${category.name}: time per check ${fmt(oursNs / theirsNs)}x of Guardrails' (goal <= 0.5x)`,
      )
    if (worst.ms > WORST_INPUT_MS)
      misses.push(
        `MISS ${category.name}: worst input ${worst.id} took ${fmt(worst.ms)} ms (goal <= ${WORST_INPUT_MS} ms)`,
      )
    const extra = { samples: samples.length, vs: category.theirs }
    results.push(
      {
        name: `${category.name}: recall`,
        value: mine.recall,
        baseline: base.recall,
        unit: '',
        goal: 'ratio >= 1',
        pass: mine.recall >= base.recall,
        extra,
      },
      {
        name: `${category.name}: precision`,
        value: mine.precision,
        baseline: base.precision,
        unit: '',
        goal: 'ratio >= 1',
        pass: mine.precision >= base.precision,
      },
      {
        name: `${category.name}: time per check`,
        value: oursNs / 1000,
        baseline: theirsNs / 1000,
        unit: 'us',
        goal: 'ratio <= 0.5',
        pass: oursNs <= theirsNs / 2,
      },
      {
        name: `${category.name}: worst input (${worst.id})`,
        value: worst.ms,
        baseline: WORST_INPUT_MS,
        unit: 'ms',
        goal: `ms <= ${WORST_INPUT_MS}`,
        pass: worst.ms <= WORST_INPUT_MS,
      },
    )
  }
  process.stdout.write(
    misses.length === 0
      ? '\ndetectors: every corpus sample decided as labelled, every goal met\n'
      : `\ndetectors: ${misses.length} miss(es) (samples decided against their label, goals missed):\n${misses.map((m) => `  ${m}`).join('\n')}\n`,
  )
  process.stdout.write(`(time per check: best of ${rounds} rounds of ≥2000 checks; ${fmt(rounds)} rounds)\n`)
  return results
}
