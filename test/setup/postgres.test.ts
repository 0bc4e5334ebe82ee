// The test setup's search for PostgreSQL's server binaries on a machine laid out in other
// ways than this one: Debian's versioned folders (newest first), only a PATH entry (a
// symlink to the real folder), and nothing at all.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { binDir } from './postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-pg-bins-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function fakeBin(folder: string, names = ['initdb', 'pg_ctl']): string {
  mkdirSync(folder, { recursive: true })
  for (const name of names) writeFileSync(join(folder, name), '#!/bin/sh\n', { mode: 0o755 })
  return folder
}

describe('PostgreSQL binaries for the tests', () => {
  it("pick Debian's newest version that has both initdb and pg_ctl", () => {
    const root = join(dir, 'debian')
    fakeBin(join(root, '9.6', 'bin'))
    const fifteen = fakeBin(join(root, '15', 'bin'))
    fakeBin(join(root, '16', 'bin'), ['initdb'])
    expect(binDir({ root, path: '', pgConfig: false })).toBe(fifteen)
  })

  it('follow an initdb on the PATH to the folder it links to', () => {
    const real = fakeBin(join(dir, 'real', 'bin'))
    const onPath = join(dir, 'local-bin')
    mkdirSync(onPath, { recursive: true })
    symlinkSync(join(real, 'initdb'), join(onPath, 'initdb'))
    expect(
      binDir({ root: join(dir, 'absent'), path: `${join(dir, 'empty')}:${onPath}`, pgConfig: false }),
    ).toBe(real)
  })

  it('find nothing where there is nothing', () => {
    expect(binDir({ root: join(dir, 'absent'), path: join(dir, 'empty'), pgConfig: false })).toBeUndefined()
  })
})
