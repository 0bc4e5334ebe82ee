// Mistakes in warden.yaml are reported with the file, line and column, as mistakes in hook
// files are: YAML syntax, a setting of the wrong type, and a hook the engine refuses.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildEngine, loadConfig, parseConfig } from '../../src/sources/index.js'
import { runCli } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-config-errors-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const HOOKS = `limits:
  chainBudgetMs: 1000
hooks:
  - name: fine
    event: tool.pre
    handler: { type: deny }
  - name: typo
    event: tool.pre
    priorty: 3
    handler: { type: deny }
`

function errorOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('no error was thrown')
}

describe('warden.yaml errors', () => {
  it('name the line and column of a YAML syntax error', () => {
    const message = errorOf(() => parseConfig('hooks:\n  - name: a\n   event: x\n', dir, 'w.yaml'))
    expect(message).toMatch(/^w\.yaml:3:\d+: not valid YAML: /)
  })

  it('name the line and column of a setting of the wrong type', () => {
    const message = errorOf(() => parseConfig('hooks: []\nserver:\n  port: "seventy"\n', dir, 'w.yaml'))
    expect(message).toMatch(/^w\.yaml:3:9: server\.port /)
  })

  it('name the line and column of the hook the engine refuses', () => {
    const config = parseConfig(HOOKS, dir, 'w.yaml')
    const message = errorOf(() => buildEngine(config, { env: {} }))
    expect(message).toBe('w.yaml:7:5: hook "typo": unknown field "priorty": remove it or check the spelling')
  })

  it('reach the user of warden check with the full path', async () => {
    const file = join(dir, 'warden.yaml')
    writeFileSync(file, HOOKS)
    expect((await loadConfig(file)).where?.(['hooks', 1, 'priorty'])).toBe(`${file}:9:14`)
    const run = await runCli(['check', '--config', file], {
      stdin: JSON.stringify({ event: 'tool.pre', payload: { tool: { name: 'x', input: {} } } }),
    })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`${file}:7:5: hook "typo": unknown field "priorty"`)
  })
})
