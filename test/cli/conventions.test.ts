// What people expect of a command line, held for every subcommand: --help with a worked
// example, unknown flags and commands that name the closest known one, colour on a
// terminal only (NO_COLOR honoured), and decisions as an aligned table.

import { describe, expect, it } from 'vitest'
import { decisionsTable } from '../../src/cli/decisions.js'
import { type CliIo, main, usage } from '../../src/cli/index.js'
import { colourWanted, formatTable, progress, styleFor } from '../../src/cli/style.js'
import type { DecisionRow } from '../../src/store/index.js'
import { ROOT } from '../helpers/cli.js'

function captured(env: NodeJS.ProcessEnv = {}): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => {
      io.out += t
    },
    stderr: (t: string) => {
      io.err += t
    },
    readStdin: async () => '',
    cwd: ROOT,
    env,
  }
  return io
}

const SUBCOMMANDS = [...usage().matchAll(/^ {2}([a-z0-9]+) {2,}/gm)].map((m) => m[1] ?? '')

describe('the CLI', () => {
  it('lists its subcommands', () => {
    expect(SUBCOMMANDS).toEqual(expect.arrayContaining(['check', 'serve', 'mcp', 'decisions', 'tokens']))
  })

  it.each(SUBCOMMANDS)('warden %s --help exits 0 with usage and a worked example', async (name) => {
    const io = captured()
    expect(await main([name, '--help'], io)).toBe(0)
    expect(io.out).toMatch(/^usage: warden /)
    expect(io.out).toMatch(/\nexamples?:\n {2}warden /)
    const viaHelp = captured()
    expect(await main(['help', name], viaHelp)).toBe(0)
    expect(viaHelp.out).toBe(io.out)
  })

  it.each([
    ['decisions', '--tenat', '--tenant'],
    ['replay', '--confg', '--config'],
    ['tokens', '--rol', '--role'],
    ['approvals', '--coment', '--comment'],
  ])('warden %s %s names the closest flag', async (name, typo, meant) => {
    const io = captured()
    expect(await main([name, typo, 'x'], io)).toBe(1)
    expect(io.err).toContain(`unknown option ${typo}; did you mean ${meant}?`)
  })

  it('says when a flag has nothing close, and when a value is missing', async () => {
    const far = captured()
    expect(await main(['decisions', '--zzzzzzzz'], far)).toBe(1)
    expect(far.err).toContain('unknown option --zzzzzzzz; see --help')
    const missing = captured()
    expect(await main(['decisions', '--limit'], missing)).toBe(1)
    expect(missing.err).toContain('--limit needs a value')
  })

  it('names the closest command for a mistyped one', async () => {
    const io = captured()
    expect(await main(['decisons'], io)).toBe(1)
    expect(io.err).toContain('unknown command "decisons". Did you mean "warden decisions"?')
  })
})

const rows: DecisionRow[] = [
  {
    id: 'd-1',
    createdAt: Date.UTC(2026, 10, 25, 9, 30),
    tenant: 'acme',
    event: 'tool.pre',
    decision: 'deny',
    durationMs: 2.25,
    reason: 'destructive shell command refused',
  } as DecisionRow,
  {
    id: 'd-22',
    createdAt: Date.UTC(2026, 10, 25, 9, 31),
    tenant: '',
    event: 'session.start',
    decision: 'allow',
    durationMs: 0,
    reason: 'no hook applied to this event',
  } as DecisionRow,
]

describe('colour and tables', () => {
  it('colours on a terminal only, and never with NO_COLOR or TERM=dumb', () => {
    expect(colourWanted({ env: {}, isTTY: true })).toBe(true)
    expect(colourWanted({ env: {}, isTTY: false })).toBe(false)
    expect(colourWanted({ env: {} })).toBe(false)
    expect(colourWanted({ env: { NO_COLOR: '1' }, isTTY: true })).toBe(false)
    expect(colourWanted({ env: { TERM: 'dumb' }, isTTY: true })).toBe(false)
    expect(styleFor({ env: {}, isTTY: true }).red('x')).toBe('\u001b[31mx\u001b[39m')
    expect(styleFor({ env: { NO_COLOR: '1' }, isTTY: true }).red('x')).toBe('x')
  })

  it('shows decisions as aligned columns, plain when piped', () => {
    const text = decisionsTable(rows, { env: {}, isTTY: false })
    expect(text).not.toContain('\u001b[')
    const lines = text.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^time \(UTC\)\s+id\s+tenant\s+event\s+decision\s+took\s+reason$/)
    const column = (line: string, word: string) => line.indexOf(word)
    expect(column(lines[1] ?? '', 'deny')).toBe(column(lines[2] ?? '', 'allow'))
    expect(column(lines[0] ?? '', 'decision')).toBe(column(lines[1] ?? '', 'deny'))
    expect(lines[1]).toContain('2026-11-25 09:30:00')
    expect(lines[2]).toContain(' - ')
  })

  it('colours decision kinds on a terminal and cuts the reason to the width', () => {
    const text = decisionsTable(rows, { env: {}, isTTY: true, columns: 90 })
    expect(text).toContain('\u001b[31mdeny\u001b[39m')
    expect(text).toContain('\u001b[32mallow\u001b[39m')
    for (const line of text
      .replace(/\u001b\[[0-9;]*m/g, '')
      .trimEnd()
      .split('\n'))
      expect(line.length).toBeLessThanOrEqual(90)
    expect(text).toContain('…')
  })

  it('aligns cells that carry colour by their visible width', () => {
    const style = styleFor({ env: {}, isTTY: true })
    const text = formatTable(
      ['a', 'b'],
      [
        [style.red('xx'), '1'],
        ['yyyy', '2'],
      ],
    ).replace(/\u001b\[[0-9;]*m/g, '')
    expect(text).toBe('a     b\nxx    1\nyyyy  2\n')
  })

  it('draws progress on a terminal only', () => {
    const seen: string[] = []
    const io = { env: {}, isTTY: true, stderr: (t: string) => seen.push(t) }
    const bar = progress(io, 3, 'checking')
    bar.tick('a.md')
    expect(seen.join('')).toContain('checking 1/3 a.md')
    bar.done()
    const quiet: string[] = []
    const piped = progress({ env: {}, isTTY: false, stderr: (t: string) => quiet.push(t) }, 3, 'x')
    piped.tick('a')
    piped.done()
    expect(quiet).toEqual([])
  })

  it('hooks validate shows which file it is checking on a terminal, and nothing extra when piped', async () => {
    const terminal = captured()
    terminal.isTTY = true
    expect(await main(['hooks', 'validate', 'examples/hooks-md'], terminal)).toBe(0)
    expect(terminal.err).toMatch(/checking examples\/hooks-md 1\/\d+ \S+\.md/)
    const piped = captured()
    expect(await main(['hooks', 'validate', 'examples/hooks-md'], piped)).toBe(0)
    expect(piped.err).toBe('')
    expect(piped.out).toMatch(/hook files? checked: 0 problems/)
  })
})
