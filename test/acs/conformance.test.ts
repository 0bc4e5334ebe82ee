// The conformance client (`npm run conformance -- acs URL`) against Warden over real HTTP:
// every case passes, with and without the shared key, and the CLI form prints the table.

import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runConformance } from '../../scripts/conformance/run.js'
import { ROOT } from '../helpers/cli.js'
import { type AcsGuardian, KEY, startAcs } from './helper.js'

let g: AcsGuardian
beforeAll(async () => {
  g = await startAcs({
    settings: {
      requireSignatures: true,
      approvers: [
        {
          id: 'approver-1',
          type: 'agent',
          endpoint: 'https://approver.example/acs',
          material: Buffer.from('approver key', 'utf8'),
        },
      ],
    },
  })
})
afterAll(async () => {
  await g.close()
})

describe('conformance client against Warden', () => {
  it('passes every case with the shared key', async () => {
    const { table, failed } = await runConformance(`${g.url}/acs`, KEY)
    expect(table).not.toMatch(/FAIL/)
    expect(failed).toBe(0)
    expect(table).toMatch(/§10 \| the response is signed .* \| pass/)
    expect(table).toMatch(/§4 \/ ACS-Trace \| trace_emission .* \| pass/)
    expect(table).toMatch(/§8.4 \| a request outside Intent.parsed .* \| pass/)
    expect(table).toMatch(/§8.4 \| Intent.parsed is immutable.* \| pass/)
    expect(table).toMatch(/§6 \/ §9 \| an ASK carries reasoning .* \| pass/)
  })

  it('runs as `npm run conformance -- acs URL --key-env VAR` and prints the table', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/conformance/run.ts',
        'acs',
        `${g.url}/acs`,
        '--key-id',
        KEY.id,
        '--key-env',
        'ACS_CONF_KEY',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ACS_CONF_KEY: Buffer.from(KEY.material).toString('utf8') },
      },
    )
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(out).toMatch(/\| section \| check \| result \|/)
    expect(out).toMatch(/0 failed/)
    expect(code).toBe(0)
  })
})
