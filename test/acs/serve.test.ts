// `warden serve` answers ACS on `POST /acs` with the `acs:` section of warden.yaml (keys from
// the environment) and keeps the session's hash chain in its own store, so that after the
// server stopped `warden audit verify --session` proves the record intact. A key whose
// variable is missing stops the server at start-up, naming the key. Real processes.
// The server's /metrics also counts the hooks it holds, per event.

import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { acsRequest, clientHello } from '../../src/protocols/acs/index.js'
import { cliArgs, ROOT, runCli } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-acs-serve-'))
const SECRET = 'the deployment key of this test'
const env = { ...process.env, WARDEN_DATABASE_URL: '', ACS_KEY_K1: SECRET }
const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

const CONFIG = `acs:
  keys:
    - id: k1
      secret: env:ACS_KEY_K1
hooks:
  - name: no-shell
    event: tool.pre
    matcher: shell
    handler: { type: command, command: "sh -c 'echo no shell here >&2; exit 2'" }
`

function serve(args: string[], processEnv = env): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, cliArgs(['serve', '--port', '0', ...args]), {
    cwd: ROOT,
    env: processEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000)
    child.stderr?.on('data', (d) => {
      out += d
    })
    child.stdout?.on('data', (d) => {
      out += d
      const match = /listening on (http:\/\/[^\s]+)\/aos/.exec(out)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve({ url: match[1], child })
      }
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

async function post(url: string, body: JsonObject): Promise<JsonObject> {
  const response = await fetch(`${url}/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return (await response.json()) as JsonObject
}

describe('warden serve on POST /acs', () => {
  it('signs with the configured key, denies by the hooks, and its chain verifies after the server stopped', async () => {
    const config = join(dir, 'warden.yaml')
    const db = join(dir, 'acs.db')
    writeFileSync(config, CONFIG)
    const { url, child } = await serve(['--config', config, '--db', db])
    const key = { id: 'k1', material: Buffer.from(SECRET, 'utf8') }
    const sessionId = randomUUID()
    const hello = await post(url, clientHello(sessionId, {}, { key }))
    expect(hello.result, JSON.stringify(hello)).toBeDefined()

    const shell = await post(
      url,
      acsRequest(
        'steps/toolCallRequest',
        { tool: { id: 'shell' }, arguments: { cmd: 'ls' } },
        { sessionId, key },
      ),
    )
    const result = shell.result as { decision: string; reasoning?: string; chain_hash: string }
    expect(result.decision).toBe('deny')
    expect(JSON.stringify(result)).toContain('no shell here')
    expect(result.chain_hash).toMatch(/^[0-9a-f]{64}$/)

    const wrongKey = { id: 'k1', material: Buffer.from('not the key', 'utf8') }
    const forged = await post(url, acsRequest('steps/turnStart', {}, { sessionId, key: wrongKey }))
    expect(forged.error, JSON.stringify(forged)).toBeDefined()
    // warden serve reports the hooks it holds, per event, on /metrics.
    const metrics = await (await fetch(`${url}/metrics`)).text()
    expect(metrics).toMatch(/warden_hooks_registered\{event="tool\.pre"\} 1\b/)
    expect(await stop(child)).toBe(0)

    const verified = await runCli(['audit', 'verify', '--session', sessionId, '--db', db], { cwd: ROOT, env })
    expect(verified.code, verified.stderr).toBe(0)
    expect(verified.stdout).toContain('OK')
  }, 90_000)

  it('refuses to start when a key names an environment variable that is not set', async () => {
    const config = join(dir, 'missing-key.yaml')
    writeFileSync(config, CONFIG)
    const { ACS_KEY_K1: _unset, ...withoutKey } = env
    const started = await runCli(['serve', '--port', '0', '--config', config, '--db', join(dir, 'm.db')], {
      cwd: ROOT,
      env: withoutKey,
    })
    expect(started.code).toBe(1)
    expect(started.stderr).toContain('acs.keys k1: the environment variable ACS_KEY_K1 is not set')
  }, 60_000)
})
