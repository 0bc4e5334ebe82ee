// `warden starlark`: runs test files with the assert module, prints failures with their
// position, exits 0 only when every assertion passed.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-star-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const passing = join(dir, 'pass.star')
writeFileSync(
  passing,
  `assert.eq(1 + 1, 2)
assert.ne("a", "b")
assert.true([1])
assert.lt(1, 2)
assert.contains({"k": 1}, "k")
assert.fails(lambda: {}["x"], "not in dict|key")
`,
)
const failing = join(dir, 'fail.star')
writeFileSync(failing, 'assert.eq(1, 1)\nassert.eq([1, 2], [2, 1])\nassert.fails(lambda: 1, "boom")\n')

describe('warden starlark', () => {
  it('exits 0 when every assertion passes', async () => {
    const run = await runCli(['starlark', passing])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/1 file: 6 passed, 0 failed/)
  })

  it('prints each failure with its position and exits 1', async () => {
    const run = await runCli(['starlark', passing, failing])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`FAIL ${failing}:2:`)
    expect(run.stdout).toContain('[1, 2] != [2, 1]')
    expect(run.stdout).toMatch(/fail\.star:3:\d+: .*succeeded unexpectedly/)
    expect(run.stderr).toMatch(/2 files: 7 passed, 2 failed/)
  })

  it('runs every .star file of a folder, and reports a file that does not parse', async () => {
    writeFileSync(join(dir, 'broken.star'), 'def f(:\n')
    const run = await runCli(['starlark', dir])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/FAIL \/.*broken\.star:1:\d+/)
    expect(run.stderr).toMatch(/3 files:/)
  })

  it('exits 1 for a missing file', async () => {
    const run = await runCli(['starlark', join(dir, 'nope.star')])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/ENOENT/)
  })
})
