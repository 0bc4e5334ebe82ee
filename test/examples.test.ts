// The embedding example runs as documented and shows deny, modify and allow.

import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/cli.js'

describe('examples/embed/agent-loop.ts', () => {
  it('denies the prod write, modifies the deploy and allows the read', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'examples/embed/agent-loop.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(run.status).toBe(0)
    expect(run.stdout).toContain(
      '✗ write_file: hook no-prod-writes blocked the action: writes to /srv/prod are not allowed',
    )
    expect(run.stdout).toContain('✓ deploy {"service":"api","dryRun":true} (modified)')
    expect(run.stdout).toContain('✓ read_file {"path":"README.md"}')
  })
})
