// A seeded property test of the shell reader and detector: random shell text built from the
// pieces attackers combine (quotes, substitutions, groups, wrappers, here-documents, brace
// lists), deep nesting and doubling assignments. Every run ends within its work budget (it
// may overshoot by at most one charge), says so with a scan-limit finding when it spent it,
// and never throws.

import { describe, expect, it } from 'vitest'
import { newReading, parseShell, runCommands, SHELL_LIMITS, scanShell } from '../../../src/handlers/index.js'

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PIECES = [
  'rm',
  '-rf',
  '/',
  '~',
  'ls',
  'echo',
  'sudo',
  'env',
  'nice',
  'xargs',
  'eval',
  'sh',
  '-c',
  'bash',
  'su',
  'flock',
  'chroot',
  'cd',
  'find',
  '-exec',
  ';',
  '&&',
  '||',
  '|',
  '&',
  '\n',
  '(',
  ')',
  '{',
  '}',
  '$(',
  '`',
  "'",
  '"',
  '\\',
  '$',
  '${',
  '$((',
  '<(',
  '>',
  '>>',
  '<',
  '<<',
  'EOF',
  '2>&1',
  '*',
  '?',
  '[e]',
  '{a,b}',
  'a=',
  '$a',
  '$IFS',
  'function',
  'f()',
  'for',
  'in',
  'do',
  'done',
  'case',
  'esac',
  'if',
  'then',
  'fi',
  '/dev/sda',
  '/dev/tcp/h/80',
  'curl',
  'base64',
  '-d',
  '#',
  ' ',
  ' ',
  ' ',
]

function randomText(next: () => number): string {
  const length = 1 + Math.floor(next() * 60)
  let text = ''
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(next() * PIECES.length)] as string
  return text
}

function nested(next: () => number): string {
  const depth = 1 + Math.floor(next() * 120)
  const [open, close] = (
    [
      ['$(', ')'],
      ['( ', ' )'],
      ['`', '`'],
      ["sh -c '", "'"],
      ['eval ', ''],
      ['{ ', '; }'],
      ['<(', ')'],
    ] as const
  )[Math.floor(next() * 7)] as readonly [string, string]
  return `${open.repeat(depth)}rm -rf /${close.repeat(depth)}`
}

function doubling(next: () => number): string {
  const count = 2 + Math.floor(next() * 40)
  const parts = ['a0=xxxxxxxx']
  for (let i = 1; i < count; i++) parts.push(`a${i}=$a${i - 1}$a${i - 1}`)
  return `${parts.join(next() < 0.5 ? ';' : ' && ')}; echo $a${count - 1}`
}

describe('shell reader under random input', () => {
  it('ends within its work budget, reports a spent budget, and never throws (300 seeded cases)', () => {
    const next = random(0x5eed)
    const makers = [randomText, nested, doubling]
    for (let i = 0; i < 300; i++) {
      const text = (makers[i % makers.length] as (n: () => number) => string)(next)
      const reading = newReading(Math.min(text.length, SHELL_LIMITS.maxChars))
      const budget = reading.budget
      let spent = 0
      expect(
        () => {
          runCommands(parseShell(text, { reading }))
          spent = budget - reading.budget
        },
        `case ${i}: ${JSON.stringify(text.slice(0, 80))}`,
      ).not.toThrow()
      // One charge may take the budget below zero; none after it is made.
      expect(spent, `case ${i}`).toBeLessThanOrEqual(2 * budget)
      let findings: { kind: string }[] = []
      expect(() => {
        findings = scanShell(text)
      }).not.toThrow()
      if (reading.bounds.has('work'))
        expect(
          findings.map((f) => f.kind),
          `case ${i}`,
        ).toContain('scan-limit')
    }
  })

  it('stops a doubling of 27 assignments early: the budget, not the memory, runs out', () => {
    const text = Array.from({ length: 27 }, (_, i) =>
      i === 0 ? 'a0=xxxxxxxx' : `a${i}=$a${i - 1}$a${i - 1}`,
    )
    const reading = newReading(text.join(';').length)
    const script = parseShell(text.join(';'), { reading })
    expect(reading.bounds.has('work')).toBe(true)
    // The longest word read stays within the budget, far from the 2^29 characters of a26.
    const longest = Math.max(0, ...script.commands.flatMap((c) => c.argv.map((w) => w.length)))
    expect(longest).toBeLessThan(SHELL_LIMITS.minWork + SHELL_LIMITS.workPerChar * 1024)
  })
})
