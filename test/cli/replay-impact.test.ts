// `warden replay --hook FILE --since 7d`: recorded history in a real SQLite store, a changed
// hook from a file, the decisions that would change counted old → new and listed, only the
// hook's tenant replayed, exit 3 when something would change; progress on a terminal.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/index.js'
import { openStore, type Store } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'
import { seedHistory } from '../helpers/history.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-replay-impact-'))
const db = join(dir, 'warden.db')
let store: Store
let curls: number

beforeAll(async () => {
  store = await openStore(db, { cwd: dir })
  curls = await seedHistory(store, { count: 300, tenant: 'acme', curlEvery: 10 })
  await seedHistory(store, { count: 40, tenant: 'globex', curlEvery: 2 })
  writeFileSync(
    join(dir, 'no-curl.yaml'),
    `name: no-curl-pipe
event: PreToolUse
matcher: "^Bash$"
if: "tool.input.command.matches('curl[^|]*[|] *sh')"
mode: shadow
scope: { tenant: acme }
handler: { type: deny, reason: "piping curl into a shell is not allowed" }
`,
  )
  writeFileSync(join(dir, 'warden.yaml'), 'hooks: []\n')
}, 60_000)

afterAll(async () => {
  await store?.close()
})

describe('warden replay --hook', () => {
  it('counts and lists the recorded decisions a hook would change, in its tenant only', async () => {
    const run = await runCli(['replay', '--db', db, '--hook', 'no-curl.yaml', '--since', '7d'], { cwd: dir })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(3)
    expect(curls).toBe(30)
    expect(run.stdout).toContain('replayed 300 recorded decisions')
    expect(run.stdout).toContain('30 would be decided differently')
    expect(run.stdout).toMatch(/allow → deny\s+30/)
    expect(run.stdout).toMatch(/\[acme\] {2}allow -> deny: piping curl into a shell is not allowed/)
    expect(run.stdout).not.toContain('[globex]')
  })

  it('answers JSON, honours --limit and a range with nothing in it (exit 0)', async () => {
    const limited = await runCli(
      ['replay', '--db', db, '--hook', 'no-curl.yaml', '--limit', '50', '--json'],
      {
        cwd: dir,
      },
    )
    const report = JSON.parse(limited.stdout)
    expect(report).toMatchObject({ replayed: 50, truncated: true, stoppedBy: 'limit' })
    expect(report.transitions['allow → deny']).toBe(report.changed)
    const none = await runCli(['replay', '--db', db, '--hook', 'no-curl.yaml', '--since', '1s'], { cwd: dir })
    expect(none.code).toBe(0)
    expect(none.stdout).toContain('0 would be decided differently')
  })

  it('refuses a bad hook file naming it, and shows progress on a terminal', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'name: x\nevent: tool.pre\nhandler: { type: nope }\n')
    const bad = await runCli(['replay', '--db', db, '--hook', 'bad.yaml'], { cwd: dir })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/warden replay: hook "x": handler.type "nope" is not available/)
    let stderr = ''
    let stdout = ''
    const code = await main(['replay', '--db', db, '--hook', 'no-curl.yaml'], {
      stdout: (t) => {
        stdout += t
      },
      stderr: (t) => {
        stderr += t
      },
      readStdin: async () => '',
      cwd: dir,
      env: {},
      isTTY: true,
    })
    expect(code).toBe(3)
    expect(stderr).toContain('\rreplayed 300 decisions')
    expect(stdout).toContain('30 would be decided differently')
  })
})
