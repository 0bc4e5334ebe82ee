// docs/fidelity.md is generated from the fidelity rows kept beside the tests: this fails when
// the page and the rows disagree (run `npx tsx scripts/fidelity-doc.ts` to rebuild it), when
// a row names a test file that does not exist or words its test does not contain, and when a
// difference gives no setting for the home system's behaviour.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  DOC_PATH,
  type FidelityRow,
  ROOT,
  ROWS_DIR,
  readRows,
  renderDoc,
} from '../../scripts/fidelity-doc.js'

const rows: FidelityRow[] = readRows(ROWS_DIR)

/** What is wrong with the test a row names, or undefined. */
function testProblem(row: FidelityRow): string | undefined {
  const [file = '', ...words] = row.test.split(' > ')
  const path = join(ROOT, file)
  if (!existsSync(path)) return `${file} does not exist`
  const name = words.join(' > ')
  if (readFileSync(path, 'utf8').includes(name)) return undefined
  // A case-driven test names its cases by folder (test/fidelity/claude/cases/NAME).
  if (existsSync(join(dirname(path), 'cases', name))) return undefined
  return `${file} has no test named by "${name}"`
}

describe('docs/fidelity.md', () => {
  it('is up to date with test/fidelity/rows', () => {
    const doc = readFileSync(DOC_PATH, 'utf8')
    expect(renderDoc(doc, rows) === doc, 'run npx tsx scripts/fidelity-doc.ts').toBe(true)
  })

  it('names an existing test for every row', () => {
    const problems = rows.map((row) => [row.behaviour, testProblem(row)]).filter(([, p]) => p !== undefined)
    expect(problems).toEqual([])
  })

  it('gives a setting for every difference', () => {
    expect(rows.filter((r) => r.status === 'differs' && !r.setting).map((r) => r.behaviour)).toEqual([])
  })

  it('names the marker a page lacks', () => {
    expect(() => renderDoc('no markers here', rows)).toThrow(/no <!-- fidelity:summary --> marker/)
  })

  it('refuses a row with an unknown status, naming the file and row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-fidelity-rows-'))
    try {
      const bad = { system: 'x', behaviour: 'b', status: 'mostly', test: 'test/a.test.ts > a' }
      writeFileSync(join(dir, 'x.json'), JSON.stringify([bad]))
      expect(() => readRows(dir)).toThrow('x.json[0]: status must be "same" or "differs"')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
