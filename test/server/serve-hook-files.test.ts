// `warden serve --hooks DIR`: Markdown hook files load at start and the folder is watched —
// an edited file is reloaded, a broken one is reported and its previous version kept.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cliArgs, ROOT } from '../helpers/cli.js'
import { postAos } from './aos-helper.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-serve-md-'))
const hooks = join(dir, 'hooks')
let child: ChildProcess | undefined

function hookFile(word: string, body = ''): string {
  return `---\nevent: tool.pre\nscript: |\n  def handle(event, payload):\n      if "${word}" in payload["args"].get("cmd", ""):\n          return block("no ${word} here")\n      return allow()${body}\n---\n\n# Blocks ${word}\n`
}

function request(cmd: string) {
  return {
    jsonrpc: '2.0',
    id: cmd,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: { executionId: `x-${cmd}`, toolId: 'exec', inputs: [{ name: 'cmd', value: cmd }] },
      context: { agent: { id: 'a', name: 'a' }, session: { id: 's' } },
    },
  }
}

async function decisionFor(url: string, cmd: string): Promise<string> {
  const posted = await postAos(url, request(cmd))
  return (posted.body as { result: { decision: string } }).result.decision
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error('condition not reached in time')
}

afterAll(() => child?.kill('SIGKILL'))

describe('warden serve --hooks', () => {
  it('serves hook files and reloads them when they change, keeping the last good version', async () => {
    const { mkdirSync } = await import('node:fs')
    mkdirSync(hooks)
    writeFileSync(join(hooks, 'no-reboot.md'), hookFile('reboot'))
    child = spawn(
      process.execPath,
      cliArgs(['serve', '--port', '0', '--db', join(dir, 'w.db'), '--hooks', hooks]),
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, WARDEN_SECRET_KEY_FILE: join(dir, 'secret.key') },
      },
    )
    let stderr = ''
    child.stderr?.on('data', (d) => {
      stderr += d
    })
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 45_000)
      child?.stdout?.on('data', (d) => {
        out += d
        const match = /listening on (http:\/\/[^\s]+)\/aos/.exec(out)
        if (match?.[1]) {
          clearTimeout(timer)
          resolve(match[1])
        }
      })
    })
    expect(await decisionFor(url, 'sudo reboot')).toBe('deny')
    expect(await decisionFor(url, 'shutdown now')).toBe('allow')

    writeFileSync(join(hooks, 'no-reboot.md'), hookFile('shutdown'))
    await eventually(async () => (await decisionFor(url, 'shutdown now')) === 'deny')
    expect(await decisionFor(url, 'sudo reboot')).toBe('allow')

    writeFileSync(
      join(hooks, 'no-reboot.md'),
      `${hookFile('shutdown').replace('def handle', 'def handle(:')}`,
    )
    await eventually(async () => stderr.includes('no-reboot.md'))
    expect(await decisionFor(url, 'shutdown now')).toBe('deny')
  })
})
