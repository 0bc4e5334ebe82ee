// The example of docs/a2a-gateway.md, run as a user would: the SDK agent in
// examples/a2a/agent.mjs, `warden a2a` (the real CLI) with examples/a2a/warden.yaml, and
// the SDK client in examples/a2a/client.mjs. Also checks /metrics, the help text, and
// access tokens with `server.auth: token` (a token's tenant pins the caller's).

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cliArgs, ROOT, runCli } from '../helpers/cli.js'

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

function start(
  args: string[],
  cwd = ROOT,
): { child: ChildProcess; output: () => string; waitFor: (text: string) => Promise<void> } {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += d
  })
  child.stderr?.on('data', (d) => {
    output += d
  })
  const waitFor = async (text: string) => {
    const deadline = Date.now() + 30_000
    while (!output.includes(text)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`never saw "${text}" in:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return { child, output: () => output, waitFor }
}

describe('warden a2a (CLI, the documented example)', () => {
  const children: ChildProcess[] = []
  const dir = mkdtempSync(join(tmpdir(), 'warden-a2a-'))

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('shows the example warden.yaml and commands in docs/a2a-gateway.md as they are', () => {
    const doc = readFileSync(`${ROOT}docs/a2a-gateway.md`, 'utf8')
    const yaml = readFileSync(`${ROOT}examples/a2a/warden.yaml`, 'utf8')
    expect(doc).toContain(`\`\`\`yaml\n${yaml}\`\`\``)
    expect(doc).toContain('node examples/a2a/agent.mjs 4000')
    expect(doc).toContain('node examples/a2a/client.mjs http://127.0.0.1:4100/')
  })

  it('prints its help', async () => {
    const run = await runCli(['a2a', '--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('usage: warden a2a --upstream <url>')
    const bad = await runCli(['a2a'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('give the upstream agent with --upstream <url>')
  })

  it('runs the two SDK agents of the example through the gateway', async () => {
    const agentPort = await freePort()
    const gatewayPort = await freePort()
    const agent = start([`${ROOT}examples/a2a/agent.mjs`, String(agentPort)])
    children.push(agent.child)
    await agent.waitFor('researcher agent on')
    const gateway = start(
      cliArgs([
        'a2a',
        '--config',
        `${ROOT}examples/a2a/warden.yaml`,
        '--upstream',
        `http://127.0.0.1:${agentPort}/`,
        '--port',
        String(gatewayPort),
        '--db',
        join(dir, 'audit.db'),
      ]),
    )
    children.push(gateway.child)
    await gateway.waitFor('Warden A2A gateway listening on')
    const client = start([`${ROOT}examples/a2a/client.mjs`, `http://127.0.0.1:${gatewayPort}/`])
    children.push(client.child)
    await new Promise((resolve) => client.child.once('exit', resolve))
    const lines = client.output()
    expect(lines).toContain(
      'what is the capital of France? -> About "what is the capital of France?": Paris, since 508.',
    )
    expect(lines).toContain('which key does staging use? -> refused:')
    expect(lines).toContain('an API key in the answer')
    expect(lines).not.toContain('sk-live')
    expect(lines).toContain(
      'what is my password? -> refused: Denied by Warden: no talk of passwords between agents',
    )
    const metrics = await (await fetch(`http://127.0.0.1:${gatewayPort}/metrics`)).text()
    expect(metrics).toMatch(/warden_decisions_total\{event="a2a.response",decision="deny"\} 1/)
    expect(metrics).toMatch(/warden_decisions_total\{event="a2a.stream",decision="deny"\} 1/)
    gateway.child.kill('SIGTERM')
    await new Promise((resolve) => gateway.child.once('exit', resolve))
    expect(gateway.child.exitCode).toBe(0)
  }, 60_000)

  it('answers clients sending a 5 MB body with the 413 and its message, never a broken pipe', async () => {
    const gatewayPort = await freePort()
    const gateway = start(
      cliArgs([
        'a2a',
        '--upstream',
        'http://127.0.0.1:9/',
        '--port',
        String(gatewayPort),
        '--db',
        ':memory:',
      ]),
    )
    children.push(gateway.child)
    await gateway.waitFor('Warden A2A gateway listening on')
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { pad: 'x'.repeat(5 * 1024 * 1024) },
    })
    const post = () =>
      fetch(`http://127.0.0.1:${gatewayPort}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }).then(
        async (response) =>
          `${response.status} ${((await response.json()) as { error: { message: string } }).error.message}`,
        (error: Error) => `failed: ${String(error.cause ?? error)}`,
      )
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, post))
      expect(answers).toEqual(
        Array(8).fill('413 the body is over the limit of 4194304 bytes (a2a.maxBodyBytes)'),
      )
    }
    gateway.child.kill('SIGTERM')
    await new Promise((resolve) => gateway.child.once('exit', resolve))
  }, 60_000)

  it("with server.auth: token, refuses callers without a valid token and pins the token's tenant", async () => {
    const db = join(dir, 'auth.db')
    const config = join(dir, 'auth.yaml')
    writeFileSync(config, 'server: { auth: token }\nhooks: []\n')
    const created = await runCli([
      'tokens',
      'create',
      '--name',
      'peer',
      '--role',
      'agent',
      '--tenant',
      'acme',
      '--json',
      '--db',
      db,
    ])
    expect(created.code, created.stderr).toBe(0)
    const { token } = JSON.parse(created.stdout) as { token: string }
    const agentPort = await freePort()
    const gatewayPort = await freePort()
    const agent = start([`${ROOT}examples/a2a/agent.mjs`, String(agentPort)])
    children.push(agent.child)
    await agent.waitFor('researcher agent on')
    const gateway = start(
      cliArgs([
        'a2a',
        '--config',
        config,
        '--upstream',
        `http://127.0.0.1:${agentPort}/`,
        '--port',
        String(gatewayPort),
        '--db',
        db,
      ]),
    )
    children.push(gateway.child)
    await gateway.waitFor('Warden A2A gateway listening on')
    const send = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${gatewayPort}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] } },
        }),
      })
    const anonymous = await send({})
    expect(anonymous.status).toBe(401)
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toContain(
      'an access token is required',
    )
    const forged = await send({
      authorization: 'Bearer wdn_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    })
    expect(forged.status).toBe(401)
    const otherTenant = await send({ authorization: `Bearer ${token}`, 'x-warden-tenant': 'globex' })
    expect(otherTenant.status).toBe(403)
    const refusal = (await otherTenant.json()) as { error: { message: string } }
    expect(refusal.error.message).toContain('this token belongs to tenant "acme"')
    const allowed = await send({ authorization: `Bearer ${token}` })
    expect(allowed.status, await allowed.clone().text()).toBe(200)
    gateway.child.kill('SIGTERM')
    await new Promise((resolve) => gateway.child.once('exit', resolve))
    const listed = await runCli(['decisions', '--db', db, '--tenant', 'acme', '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain('"event":"a2a.send"')
  }, 60_000)
})
