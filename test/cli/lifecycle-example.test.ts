// The worked example of docs/policy-lifecycle.md works as written: `warden init --yes` in an
// empty folder with two packs loads; the example's three cases pass with coverage
// against examples/lifecycle/warden.yaml (packs, starter hooks, no-sudo in shadow); and
// `warden replay --hook` previews the next version of no-sudo over recorded history.

import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { toAuditRows } from '../../src/audit/index.js'
import { createEngine } from '../../src/index.js'
import { parseConfig } from '../../src/sources/index.js'
import { openStore } from '../../src/store/index.js'
import { ROOT, runCli } from '../helpers/cli.js'

const EXAMPLE = join(ROOT, 'examples/lifecycle')

describe('the policy lifecycle example', () => {
  it('starts from warden init --yes with two packs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-lifecycle-init-'))
    const init = await runCli(['init', '--yes', '--packs', 'shell-safety,secrets'], { cwd: dir })
    expect(init.code, init.stderr).toBe(0)
    expect(readFileSync(join(dir, 'warden.yaml'), 'utf8')).toContain('packs: [shell-safety, secrets]\n')
    const hooks = parseConfig(readFileSync(join(dir, 'warden.yaml'), 'utf8'), dir).hooks.map((h) => h.name)
    expect(hooks).toEqual(expect.arrayContaining(['shell-safety:destructive-commands', 'secrets:tool-input']))
    const test = await runCli(['test', join(EXAMPLE, 'policy-tests')], { cwd: dir })
    expect(test.stdout).toContain('3 passed, 0 failed')
    expect(test.code).toBe(0)
  })

  it('passes its three cases with coverage', async () => {
    const run = await runCli(['test', '--coverage', 'policy-tests/'], { cwd: EXAMPLE })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toContain('3 passed, 0 failed')
    expect(run.stdout).toMatch(/✗ no-sudo\s+never fired/)
    expect(run.stdout).toMatch(/builtin:secrets {2}1\/10/)
  })

  it('previews the next version of no-sudo over recorded history', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-lifecycle-replay-'))
    const db = join(dir, 'warden.db')
    const store = await openStore(db, { cwd: dir })
    const records: Parameters<typeof toAuditRows>[0][] = []
    const engine = createEngine({ recorder: { record: (r) => void records.push(r) } })
    for (const command of ['sudo rm x', 'doas reboot', 'ls', 'doas -s', 'echo sudo']) {
      await engine.dispatch({ event: 'tool.pre', payload: { tool: { name: 'Bash', input: { command } } } })
    }
    await engine.close()
    const batch = { decisions: [] as never[], executions: [] as never[], approvals: [] as never[] }
    for (const r of records)
      batch.decisions.push(toAuditRows(r, { now: Date.now() - 3_600_000 }).decision as never)
    await store.writeAudit(batch)
    await store.close()
    const run = await runCli(
      ['replay', '--config', 'warden.yaml', '--db', db, '--hook', 'no-sudo.yaml', '--since', '7d'],
      { cwd: EXAMPLE },
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(3)
    // Recorded when nothing objected: sudo and both doas calls would now be denied.
    expect(run.stdout).toContain('replayed 5 recorded decisions')
    expect(run.stdout).toMatch(/allow → deny\s+3/)
  })
})
