// Runs the Starlark conformance suite (test/starlark/conformance/*.star) through the
// `warden starlark` test runner and requires every assertion to pass.

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runStarlarkTests } from '../../src/starlark/index.js'

const folder = join(import.meta.dirname, 'conformance')
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.star'))
  .sort()
  .map((name) => ({ path: name, source: readFileSync(join(folder, name), 'utf8') }))

describe('Starlark conformance suite', () => {
  it('has one file per area', () => {
    expect(files.length).toBeGreaterThanOrEqual(12)
  })

  it('passes every assertion (at least 300)', () => {
    const report = runStarlarkTests(files)
    for (const f of report.failures) console.error(`${f.file}:${f.line}:${f.col}: ${f.message}`)
    expect(report.failures).toEqual([])
    expect(report.failed).toBe(0)
    expect(report.passed).toBeGreaterThanOrEqual(300)
  })

  for (const file of files) {
    it(`${file.path} passes on its own`, () => {
      const report = runStarlarkTests([file])
      expect(report.failures).toEqual([])
      expect(report.passed).toBeGreaterThan(0)
    })
  }
})
