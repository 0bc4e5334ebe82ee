// Several processes opening one new SQLite file at the same moment (several `warden serve`
// started together) all migrate it without tripping over each other.

import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

function openInChild(file: string, startAt: number): Promise<{ code: number | null; out: string }> {
  const script = `import { openStore } from ${JSON.stringify(`${ROOT}src/store/index.ts`)}
await new Promise((r) => setTimeout(r, ${startAt} - Date.now()))
const store = await openStore(${JSON.stringify(file)})
await store.close()
process.stdout.write('opened')`
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
    })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      out += d
    })
    child.on('close', (code) => resolve({ code, out }))
  })
}

describe('SQLite migrations across processes', () => {
  it('lets four processes open and migrate the same new file at once, or while another migrates it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-race-')), 'warden.db')
    const startAt = Date.now() + 4000
    // Two start together; the others arrive while the first ones are switching the new
    // file to WAL or migrating it, when it is locked.
    const runs = await Promise.all([0, 0, 30, 90].map((delay) => openInChild(file, startAt + delay)))
    for (const run of runs) {
      expect(run.out).toContain('opened')
      expect(run.code).toBe(0)
    }
  }, 60_000)
})
