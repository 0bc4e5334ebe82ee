// Builds the tables of docs/fidelity.md from the fidelity row files kept beside the tests
// (test/fidelity/rows/<system>.json: one row per documented behaviour of a home system,
// `{system, behaviour, status: "same" | "differs", setting?, test}`), and the count of
// behaviours that are the same at the top. The prose of the page stays; only what lies
// between the markers is generated:
//   <!-- fidelity:summary --> ... <!-- /fidelity:summary -->
//   <!-- fidelity:rows SYSTEM --> ... <!-- /fidelity:rows -->
// Run `npx tsx scripts/fidelity-doc.ts` to rewrite the page, `--check` to fail when it is out
// of date with the rows (test/fidelity/fidelity-doc.test.ts runs the check).

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** One documented behaviour of a home system, as Warden runs it. */
export interface FidelityRow {
  system: string
  behaviour: string
  status: 'same' | 'differs'
  /** For a difference: what Warden does instead. */
  how?: string
  /** For a difference: the setting that gives the home system's behaviour. */
  setting?: string
  /** The test that shows it: `path/to/file.test.ts > words of the test's name`. */
  test: string
}

/** The systems in the order the page presents them. */
export const SYSTEMS: readonly { id: string; title: string }[] = [
  { id: 'claude', title: 'Claude Code' },
  { id: 'loom', title: 'loom' },
  { id: 'harness', title: 'AI Harness' },
  { id: 'goclaw', title: 'GoClaw' },
  { id: 'joch', title: 'AOS Guardians and Joch' },
  { id: 'a2a', title: 'A2A' },
]

const KEYS = new Set(['system', 'behaviour', 'status', 'how', 'setting', 'test'])

/** Checks one row; returns what is wrong with it, or undefined. */
function rowProblem(value: unknown, system: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object'
  const row = value as Record<string, unknown>
  const unknown = Object.keys(row).filter((key) => !KEYS.has(key))
  if (unknown.length > 0) return `unknown field ${unknown.map((k) => `"${k}"`).join(', ')}`
  if (row.system !== system) return `system must be "${system}" (the file's name)`
  if (typeof row.behaviour !== 'string' || row.behaviour.trim() === '') return 'behaviour must be text'
  if (row.status !== 'same' && row.status !== 'differs') return 'status must be "same" or "differs"'
  if (row.setting !== undefined && (typeof row.setting !== 'string' || row.setting.trim() === ''))
    return 'setting must be text'
  if (row.how !== undefined && (typeof row.how !== 'string' || row.how.trim() === ''))
    return 'how must be text'
  if (typeof row.test !== 'string' || !/^\S+\.test\.ts > .+/.test(row.test))
    return 'test must be "path/to/file.test.ts > words of the test name"'
  return undefined
}

/**
 * Reads every row file of a folder (`<system>.json`).
 * @throws Error naming the file and row of every problem.
 */
export function readRows(dir: string): FidelityRow[] {
  const rows: FidelityRow[] = []
  const problems: string[] = []
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const system = name.slice(0, -'.json'.length)
    let data: unknown
    try {
      data = JSON.parse(readFileSync(join(dir, name), 'utf8'))
    } catch (error) {
      problems.push(`${name}: not valid JSON: ${(error as Error).message}`)
      continue
    }
    if (!Array.isArray(data)) {
      problems.push(`${name}: must be a list of rows`)
      continue
    }
    data.forEach((row, i) => {
      const problem = rowProblem(row, system)
      if (problem) problems.push(`${name}[${i}]: ${problem}`)
      else rows.push(row as FidelityRow)
    })
  }
  if (problems.length > 0) throw new Error(problems.join('\n'))
  return rows
}

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|')
}

/** What the page says of a row under Warden. */
function verdict(row: FidelityRow): string {
  if (row.status === 'same') return 'same'
  const how = row.how ? `differs: ${row.how}` : 'differs'
  return row.setting ? `${how}; the home system's way: ${row.setting}` : how
}

/** The test a row names, as a link to its file and the test's words. */
function testCell(row: FidelityRow): string {
  const [file = '', ...name] = row.test.split(' > ')
  const short = file.replace(/^test\//, '').replace(/\.test\.ts$/, '')
  return `[${short}](../${file}): ${name.join(' > ')}`
}

/** The generated count: how many behaviours are the same, per system and in all. */
export function renderSummary(rows: readonly FidelityRow[]): string {
  const same = rows.filter((r) => r.status === 'same').length
  const differs = rows.filter((r) => r.status === 'differs')
  const withSetting = differs.filter((r) => r.setting).length
  const lines = [
    `**${same} of ${rows.length} documented behaviours behave as in their home system**; ${differs.length} differ on purpose, ${withSetting} of them with a setting that gives the home system's behaviour.`,
    '',
    '| system | same | differs | behaviours |',
    '|---|---|---|---|',
  ]
  for (const { id, title } of SYSTEMS) {
    const own = rows.filter((r) => r.system === id)
    if (own.length === 0) continue
    const ownSame = own.filter((r) => r.status === 'same').length
    lines.push(`| ${title} | ${ownSame} | ${own.length - ownSame} | ${own.length} |`)
  }
  return lines.join('\n')
}

/** The table of one system's rows. */
export function renderTable(rows: readonly FidelityRow[], system: string): string {
  const own = rows.filter((r) => r.system === system)
  if (own.length === 0)
    return `No behaviours of this system are listed yet (test/fidelity/rows/${system}.json).`
  const lines = ['| behaviour at home | under Warden | test |', '|---|---|---|']
  for (const row of own)
    lines.push(`| ${cell(row.behaviour)} | ${cell(verdict(row))} | ${cell(testCell(row))} |`)
  return lines.join('\n')
}

/** Replaces what lies between an opening marker and the next closing one. */
function fill(doc: string, open: string, close: string, body: string): string {
  const start = doc.indexOf(open)
  if (start < 0) throw new Error(`docs/fidelity.md has no ${open} marker`)
  const end = doc.indexOf(close, start + open.length)
  if (end < 0) throw new Error(`docs/fidelity.md has no ${close} after ${open}`)
  return `${doc.slice(0, start + open.length)}\n${body}\n${doc.slice(end)}`
}

/**
 * The page with every generated part rebuilt from the rows.
 * @throws Error when a marker is missing.
 */
export function renderDoc(doc: string, rows: readonly FidelityRow[]): string {
  let out = fill(doc, '<!-- fidelity:summary -->', '<!-- /fidelity:summary -->', renderSummary(rows))
  for (const { id } of SYSTEMS) {
    if (!out.includes(`<!-- fidelity:rows ${id} -->`)) continue
    out = fill(out, `<!-- fidelity:rows ${id} -->`, '<!-- /fidelity:rows -->', renderTable(rows, id))
  }
  return out
}

/** The repository's root (this script lives in scripts/). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const DOC_PATH = join(ROOT, 'docs', 'fidelity.md')
export const ROWS_DIR = join(ROOT, 'test', 'fidelity', 'rows')

function main(args: string[]): number {
  const rows = readRows(ROWS_DIR)
  const doc = readFileSync(DOC_PATH, 'utf8')
  const next = renderDoc(doc, rows)
  if (args.includes('--check')) {
    if (next === doc) return 0
    process.stderr.write(
      'docs/fidelity.md is out of date with test/fidelity/rows: run npx tsx scripts/fidelity-doc.ts\n',
    )
    return 1
  }
  if (next !== doc) writeFileSync(DOC_PATH, next)
  process.stdout.write(`docs/fidelity.md: ${rows.length} behaviours\n`)
  return 0
}

if (existsSync(process.argv[1] ?? '') && resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2))
}
