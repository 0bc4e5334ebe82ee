// `warden serve` with a store, as real processes: decisions are recorded and listed by
// `warden decisions`, replayed by `warden replay` against changed hooks, metrics are on
// /metrics; two servers on one PostgreSQL see a stored hook within a second.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../../src/store/index.js'
import { cliArgs, ROOT, runCli } from '../helpers/cli.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-serve-audit-'))
const env = {
  ...process.env,
  WARDEN_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  WARDEN_DATABASE_URL: '',
}
const children: ChildProcess[] = []
let pgDb: TestDatabase | undefined

beforeAll(async () => {
  pgDb = await postgresForTests()
})
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  await pgDb?.release()
  rmSync(dir, { recursive: true, force: true })
})

function serve(args: string[]): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, cliArgs(['serve', '--port', '0', ...args]), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  let err = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}${err}`)), 30_000)
    child.stderr?.on('data', (d) => {
      err += d
    })
    child.stdout?.on('data', (d) => {
      out += d
      const match = /listening on (http:\/\/[^\s]+)\/aos/.exec(out)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve({ url: match[1], child, stderr: () => err })
      }
    })
    child.on('exit', () => reject(new Error(`serve exited: ${out}${err}`)))
  })
}

async function askRm(url: string, tenant = 'acme'): Promise<{ decision: string; message: string }> {
  const response = await fetch(`${url}/aos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-warden-tenant': tenant },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'req-1',
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: {
          executionId: 'e1',
          toolId: 'exec',
          inputs: [{ name: 'cmd', value: 'rm -rf /srv' }],
        },
        context: { agent: { id: 'a1', name: 'agent' }, session: { id: 's1' } },
      },
    }),
  })
  const body = (await response.json()) as { result: { decision: string; message: string } }
  return body.result
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

const DENY_RM = `hooks:
  - name: no-rm
    event: tool.pre
    if: "tool_input.cmd.contains('rm')"
    handler: { type: command, command: "sh -c 'echo no rm >&2; exit 2'" }
`

/** Each test starts several CLI processes from source: slow on a busy machine. */
describe('warden serve with a store', () => {
  it('records decisions, lists them, serves metrics, and replays them against changed hooks', async () => {
    const db = join(dir, 'serve.db')
    const config = join(dir, 'warden.yaml')
    writeFileSync(config, DENY_RM)
    const { url, child } = await serve(['--config', config, '--db', db])
    expect((await askRm(url)).decision).toBe('deny')
    const metrics = await (await fetch(`${url}/metrics`)).text()
    expect(metrics).toContain('warden_decisions_total{event="tool.pre",decision="deny"} 1')
    expect(await stop(child)).toBe(0)

    const listed = await runCli(
      ['decisions', '--db', db, '--tenant', 'acme', '--decision', 'deny', '--json'],
      { cwd: ROOT, env },
    )
    expect(listed.code, listed.stderr).toBe(0)
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ tenant: 'acme', event: 'tool.pre', decision: 'deny', requestId: 'req-1' })
    const other = await runCli(['decisions', '--db', db, '--tenant', 'globex', '--json'], { cwd: ROOT, env })
    expect(other.stdout).toBe('')

    const same = await runCli(['replay', rows[0].id, '--db', db, '--config', config], { cwd: ROOT, env })
    expect(same.code, same.stderr).toBe(0)
    expect(same.stdout).toContain('the decision is the same today')

    writeFileSync(config, 'hooks: []\n')
    const changed = await runCli(['replay', rows[0].id, '--db', db, '--config', config], { cwd: ROOT, env })
    expect(changed.code, changed.stderr).toBe(3)
    expect(changed.stdout).toMatch(/deny\s+allow/)
    expect(changed.stdout).toMatch(/no-rm\s+deny v1\s+-> \(absent\)/)
    const hidden = await runCli(['replay', rows[0].id, '--db', db, '--tenant', 'globex'], { cwd: ROOT, env })
    expect(hidden.code).toBe(1)
    expect(hidden.stderr).toContain(`no decision "${rows[0].id}" for tenant globex`)
  }, 90_000)

  it('logs refused audit records as a JSON warning on stderr and counts them in /metrics', async () => {
    const config = join(dir, 'tiny-queue.yaml')
    writeFileSync(config, `audit: { mode: async, batchSize: 1, maxQueue: 1, intervalMs: 1000 }\n${DENY_RM}`)
    const { url, child, stderr } = await serve(['--config', config, '--db', join(dir, 'tiny-queue.db')])
    const answers = await Promise.all(Array.from({ length: 40 }, () => askRm(url)))
    const refused = answers.filter((a) => /could not be recorded/.test(a.message))
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((a) => a.decision === 'deny')).toBe(true)
    await expect.poll(() => stderr(), { timeout: 5000 }).toMatch(/"level":40/)
    const line = stderr()
      .split('\n')
      .find((l) => l.includes('"level":40'))
    const logged = JSON.parse(line ?? '{}') as {
      service?: string
      audit?: { dropped?: number }
      msg?: string
    }
    expect(logged.service).toBe('warden')
    expect(logged.audit?.dropped).toBeGreaterThan(0)
    expect(logged.msg).toMatch(/maxQueue/)
    const metrics = await (await fetch(`${url}/metrics`)).text()
    expect(metrics).toMatch(/warden_audit_dropped_total\{[^}]*cause="queue-full"[^}]*\} [1-9]/)
    expect(await stop(child)).toBe(0)
  })

  it('two servers on one PostgreSQL see a stored hook within 1 s', async (ctx) => {
    if (!pgDb) ctx.skip()
    const config = join(dir, 'empty.yaml')
    writeFileSync(config, 'hooks: []\n')
    const [one, two] = await Promise.all([
      serve(['--config', config, '--db', pgDb!.url]),
      serve(['--config', config, '--db', pgDb!.url]),
    ])
    expect((await askRm(two.url)).decision).toBe('allow')
    const store = await openStore(pgDb!.url)
    const started = Date.now()
    await store.putHook({
      name: 'no-rm',
      tenant: 'acme',
      event: 'tool.pre',
      if: "tool_input.cmd.contains('rm')",
      handler: { type: 'command', command: "sh -c 'exit 2'" },
    })
    let seenAt = 0
    while (Date.now() - started < 10_000) {
      const [a, b] = await Promise.all([askRm(one.url), askRm(two.url)])
      if (a.decision === 'deny' && b.decision === 'deny') {
        seenAt = Date.now()
        break
      }
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(seenAt).toBeGreaterThan(0)
    expect(seenAt - started).toBeLessThan(1000)
    expect((await askRm(two.url, 'globex')).decision).toBe('allow')
    await store.close()
    expect(await stop(one.child)).toBe(0)
    expect(await stop(two.child)).toBe(0)
  }, 90_000)
})
