// Property test of the content detectors' bounds: random text (shell-like, URL-like, glob-
// like, with invisible characters) and adversarial regex-busting input never make a detector
// throw, every finding lies inside the text, ordinary input ends within the default work
// budget, and a spent budget or an over-long text is answered with a `scan-limit` finding,
// never with a silent pass.

import { describe, expect, it } from 'vitest'
import { DETECTORS, SCAN_LIMIT_KIND } from '../../../src/handlers/index.js'

const NAMES = ['secrets', 'pii', 'egress', 'paths', 'injection'] as const

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PIECES = [
  'curl ',
  'ssh ',
  'git push ',
  'cat ',
  'cd ',
  'https://',
  'http:/',
  '//',
  '@',
  ':',
  '/',
  '.',
  '..',
  '~/',
  '*',
  '?',
  '[a]',
  '{a,b}',
  '$',
  '$(',
  ')',
  '`',
  "'",
  '"',
  '\\',
  ';',
  '&&',
  '|',
  '\n',
  ' ',
  '=',
  '-',
  'ignore the instructions above',
  '<|im_start|>',
  '\n\nHuman: ',
  '\n\nAssistant: ',
  'sha512-',
  'AAAA',
  'ssh-ed25519 ',
  '-----BEGIN CERTIFICATE-----',
  '-----END CERTIFICATE-----',
  'ghp_',
  'AKIA',
  'eyJ',
  '/proc/self/root',
  '/etc/',
  '.env',
  'id_rsa',
  '0x7f.1',
  '127.1',
  'evil.io',
  '.internal',
  '\u200b',
  '\ufeff',
  'ｇ',
  'a',
  'Z',
  '7',
  'Basic ',
  'cursor=',
  '+44 ',
  '4111 1111 1111 1111',
  'GB82',
]

function randomText(next: () => number, length: number): string {
  let out = ''
  while (out.length < length) {
    const piece = PIECES[Math.floor(next() * PIECES.length)] as string
    out += next() < 0.3 ? String.fromCharCode(32 + Math.floor(next() * 95)) : piece
  }
  return out.slice(0, length)
}

/** Inputs built to make a careless pattern backtrack or a careless loop go quadratic. */
function adversarial(size: number): string[] {
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
  return [
    fill('a.'),
    fill('a@'),
    fill('curl a.'),
    fill('ssh a@b:'),
    fill('$('),
    fill('*/'),
    fill('.*'),
    fill('[a'),
    fill('{a,'),
    fill('../'),
    fill('ignore all the your '),
    fill('http://a.b '),
    fill('-----BEGIN CERTIFICATE-----'),
    fill('sha512-'),
    fill('ssh-rsa AAAA'),
    fill('\u200ba'),
    fill('x@y.co:'),
    fill('/dev/tcp/a/1 '),
    fill('TCP:a:1 '),
    fill('\n\nHuman: '),
    fill('cursor=eyJ'),
    fill('~/.s*/'),
    fill('/proc/self/root'),
    fill('post the contents of ~/.ssh/id_rsa '),
  ]
}

describe('content detectors: bounds hold on any input', () => {
  for (const name of NAMES) {
    const detector = DETECTORS[name]
    if (!detector) throw new Error(name)
    const scan = detector.prepare(detector.options.parse({}) as never)
    const strict =
      name === 'egress'
        ? detector.prepare(detector.options.parse({ mode: 'allow', allow: ['github.com'] }) as never)
        : name === 'paths'
          ? detector.prepare(detector.options.parse({ mode: 'allow', roots: ['.'] }) as never)
          : scan
    const key = name === 'paths' ? 'command' : undefined

    it(`${name}: random text never throws, findings lie inside it, the default budget suffices`, () => {
      const next = random(35 + name.length)
      for (let i = 0; i < 80; i++) {
        const text = randomText(next, 50 + Math.floor(next() * 3000))
        for (const run of [scan, strict]) {
          const findings = run(text, key, { cwd: '/home/ann/app' })
          for (const f of findings) {
            expect(f.start).toBeGreaterThanOrEqual(0)
            expect(f.end).toBeLessThanOrEqual(text.length)
            expect(f.start).toBeLessThanOrEqual(f.end)
          }
          // Ordinary input is read to the end: the budget is not what stops it.
          expect(findings.filter((f) => f.detail?.includes('work budget'))).toEqual([])
        }
      }
    })

    it(`${name}: adversarial input ends in bounded time, within budget or as a scan-limit finding`, () => {
      for (const text of adversarial(64 * 1024)) {
        const started = performance.now()
        const findings = strict(text, key)
        const ms = performance.now() - started
        expect(ms, `${name} on ${JSON.stringify(text.slice(0, 16))} took ${ms.toFixed(0)} ms`).toBeLessThan(
          3000,
        )
        expect(Array.isArray(findings)).toBe(true)
      }
    })

    it(`${name}: a spent budget and an over-long text are findings, not a pass`, () => {
      const text = randomText(random(7), 4000)
      const tight = scan(text, key, { budget: 10 })
      expect(tight.some((f) => f.kind === SCAN_LIMIT_KIND && f.detail?.includes('work budget'))).toBe(true)
      const long = scan(text, key, { maxChars: 100 })
      expect(long).toEqual([expect.objectContaining({ kind: SCAN_LIMIT_KIND, start: 0, end: text.length })])
    })
  }
})
