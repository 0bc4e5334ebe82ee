// A decision an integration cannot apply is refused, never dropped. Under `warden a2a` (the
// real CLI, the example SDK agent upstream): a push-notification URL the SSRF policy refuses
// is a deny decision (audited, counted, answered with its id, event and reason code), and a
// hook's `ask` is held in the store until `warden approvals` resolves it, or denied with the
// cause when nobody could. In the AI SDK's `streamText`, a hook's redaction of the answer
// is applied to the streamed text, and never the original passed on.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { streamText, wrapLanguageModel } from 'ai'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { type AiSdkAdapterOptions, wardenMiddleware } from '../../src/adapters/ai-sdk/index.js'
import { createEngine, type HookCall, type HookDefinition } from '../../src/index.js'
import { type OpenAiServer, startOpenAiServer } from '../adapters/servers/openai.js'
import { freePort } from '../gateway/helpers.js'
import { cliArgs, ROOT, runCli } from '../helpers/cli.js'
import { SECRET_KEY, serve, storeAt, token, WsClient } from '../server/management-helper.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-fail-closed-'))
const children: ChildProcess[] = []

afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

function start(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): {
  child: ChildProcess
  output: () => string
  waitFor: (t: string) => Promise<void>
} {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
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

/** The example SDK agent and `warden a2a` in front of it, with `yaml` as config. */
async function gatewayWith(yaml: string, db: string, env: NodeJS.ProcessEnv = process.env) {
  const config = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(config, yaml)
  const agentPort = await freePort()
  const agent = start([`${ROOT}examples/a2a/agent.mjs`, String(agentPort)])
  await agent.waitFor('researcher agent on')
  const port = await freePort()
  const gateway = start(
    cliArgs([
      'a2a',
      '--config',
      config,
      '--upstream',
      `http://127.0.0.1:${agentPort}/`,
      '--port',
      String(port),
      '--db',
      db,
    ]),
    env,
  )
  await gateway.waitFor('Warden A2A gateway listening on')
  const call = async (method: string, params: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return (await response.json()) as {
      result?: Record<string, unknown>
      error?: { code: number; message: string; data?: { warden?: Record<string, unknown> } }
    }
  }
  const stop = async () => {
    gateway.child.kill('SIGTERM')
    await new Promise((resolve) => gateway.child.once('exit', resolve))
  }
  return { port, call, output: gateway.output, stop }
}

const message = (text: string) => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
})

describe('warden a2a: a push URL the SSRF policy refuses', () => {
  it('is a deny decision: audited, counted, and answered with its id, event and reason code', async () => {
    const db = join(dir, 'push.db')
    const gateway = await gatewayWith('hooks: []\n', db)
    // A message asking for pushes to loopback (a config for an existing task would first be
    // refused as a task this tenant never created through the gateway).
    const answer = await gateway.call('SendMessage', {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: { pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
    })
    expect(answer.error?.code).toBe(-32090)
    expect(answer.error?.message).toMatch(/push-notification URL refused: .*loopback/)
    const warden = answer.error?.data?.warden ?? {}
    expect(warden.event).toBe('a2a.send')
    expect(warden.reasonCode).toEqual(['push-url-refused'])
    expect(typeof warden.decisionId).toBe('string')
    const metrics = await (await fetch(`http://127.0.0.1:${gateway.port}/metrics`)).text()
    expect(metrics).toMatch(/warden_decisions_total\{event="a2a.send",decision="deny"\} 1/)
    expect(metrics).not.toMatch(/warden_decisions_total\{event="a2a.send",decision="allow"\}/)
    await gateway.stop()
    const listed = await runCli(['decisions', '--db', db, '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const row = rows.find((r) => r.id === warden.decisionId)
    expect(row?.decision).toBe('deny')
    expect(String(row?.reason)).toContain('push-notification URL refused')
    expect(rows.some((r) => r.event === 'a2a.send' && r.decision === 'allow')).toBe(false)
  }, 60_000)
})

const ASK = `hooks:
  - name: confirm-sends
    event: a2a.send
    handler: { type: ask, reason: "a human confirms each message" }
`

describe("warden a2a: a hook's ask", () => {
  it('is held in the store until warden approvals approves it, then forwarded; a rejection denies', async () => {
    const db = join(dir, 'ask.db')
    const gateway = await gatewayWith(ASK, db)
    expect(gateway.output()).toContain('asks are held for approval in the store')
    const pending = async (): Promise<string> => {
      const deadline = Date.now() + 30_000
      while (Date.now() < deadline) {
        const listed = await runCli(['approvals', 'list', '--db', db, '--status', 'pending', '--json'])
        const line = listed.stdout.trim().split('\n').filter(Boolean)[0]
        if (line) return (JSON.parse(line) as { id: string }).id
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      throw new Error('no pending approval appeared')
    }
    const approved = gateway.call('SendMessage', message('what is the capital of France?'))
    const first = await pending()
    const done = await runCli(['approvals', 'approve', first, '--db', db, '--by', 'alice'])
    expect(done.code, done.stderr).toBe(0)
    const answer = await approved
    expect(answer.error).toBeUndefined()
    expect(JSON.stringify(answer.result)).toContain('Paris')

    const rejected = gateway.call('SendMessage', message('and of Spain?'))
    const second = await pending()
    expect(second).not.toBe(first)
    const no = await runCli(['approvals', 'reject', second, '--db', db, '--comment', 'not now'])
    expect(no.code, no.stderr).toBe(0)
    const refusal = await rejected
    expect(refusal.error?.code).toBe(-32090)
    expect(refusal.error?.message).toContain('rejected')
    expect(refusal.error?.message).toContain('not now')
    await gateway.stop()
  }, 90_000)

  it('can be resolved over /ws by a warden serve on the same database', async () => {
    const db = join(dir, 'shared.db')
    const served = await serve({ dir, name: 'shared', yaml: 'hooks: []\n', db })
    const store = await storeAt(db)
    const approver = await WsClient.connect(served.url, (await token(store, 'approver')).token)
    try {
      const gateway = await gatewayWith(ASK, db, { ...process.env, WARDEN_SECRET_KEY: SECRET_KEY })
      const held = gateway.call('SendMessage', message('what is the capital of France?'))
      let id: string | undefined
      const deadline = Date.now() + 30_000
      while (!id && Date.now() < deadline) {
        const listed = await approver.ok('approvals.list', { status: 'pending' })
        id = (listed.approvals as { id: string; event: string }[]).find((a) => a.event === 'a2a.send')?.id
        if (!id) await new Promise((resolve) => setTimeout(resolve, 200))
      }
      expect(id).toBeDefined()
      const resolved = await approver.ok('approvals.resolve', { id, action: 'approve', comment: 'fine' })
      expect(resolved).toMatchObject({ status: 'approved' })
      const answer = await held
      expect(answer.error).toBeUndefined()
      expect(JSON.stringify(answer.result)).toContain('Paris')
      await gateway.stop()
    } finally {
      approver.close()
      await store.close()
      await served.stop()
    }
  }, 120_000)

  it('says at start-up that nobody can resolve asks with an in-memory store, and denies with that cause', async () => {
    const gateway = await gatewayWith(ASK, ':memory:')
    expect(gateway.output()).toContain('no approver can resolve asks here: the store is in memory')
    const answer = await gateway.call('SendMessage', message('hello'))
    expect(answer.error?.code).toBe(-32090)
    expect(answer.error?.message).toContain('no approver can resolve asks here: the store is in memory')
    await gateway.stop()
  }, 60_000)
})

describe("AI SDK streamText: a hook's rewrite of the answer", () => {
  let server: OpenAiServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  const redacting = (pattern: RegExp): HookDefinition => ({
    name: 'redact',
    event: 'agent.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const text = String((event.payload.message as { text: string }).text)
        if (!pattern.test(text)) return undefined
        return {
          type: 'modify',
          reason: 'redacted a secret',
          payload: { message: { role: 'agent', text: text.replace(pattern, '[REDACTED]') } },
        }
      },
    },
  })

  async function stream(answer: string, hook: HookDefinition, options: AiSdkAdapterOptions = {}) {
    server = await startOpenAiServer([{ text: answer }])
    const model = createOpenAI({ baseURL: server.url, apiKey: 'sk-test' }).chat('gpt-test')
    const engine = createEngine({ hooks: [hook] })
    const errors: unknown[] = []
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: wardenMiddleware(engine, options) }),
      prompt: 'key?',
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    let text = ''
    for await (const delta of result.textStream) text += delta
    return { text, errors }
  }

  it('is what the consumer of the stream reads, never the original', async () => {
    const { text, errors } = await stream(
      'Sure, the key is sk-live-123456 and more text follows here.',
      redacting(/sk-live-\d+/g),
      { checkEveryChars: 8 },
    )
    expect(errors).toEqual([])
    expect(text).toBe('Sure, the key is [REDACTED] and more text follows here.')
  })

  it('ends the stream with the cause when the rewrite touches text already released', async () => {
    const answer = 'Here it is: my pass word is written down.'
    const cut = await stream(answer, redacting(/pass word/g), { checkEveryChars: 1, holdBackChars: 0 })
    expect(cut.text).not.toContain('pass word')
    expect(String(cut.errors[0])).toContain('already streamed')
    const held = await stream(answer, redacting(/pass word/g), { checkEveryChars: 1 })
    expect(held.errors).toEqual([])
    expect(held.text).toBe('Here it is: my [REDACTED] is written down.')
  })
})
