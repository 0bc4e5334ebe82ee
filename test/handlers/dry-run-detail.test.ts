// What handlers report through `call.detail` in a dry run, against real processes and real
// servers on loopback: a command's exit code and output (capped, also when it fails or
// times out), a webhook's status and attempts, what the LLM judge said, a script's logs and
// each remote Guardian's answer. Outside dry runs, handlers get no `detail` at all.

import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createHttpHandler,
  createPromptHandler,
  createScriptHandler,
  DETAIL_CAP_BYTES,
  defaultHandlers,
  guardiansHandler,
} from '../../src/handlers/index.js'
import { createEngine, type HookDefinition, type JsonObject } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { createAosGuardianCodec } from '../../src/protocols/index.js'
import { type Listener, listen } from '../net/helpers.js'
import { decideAnswer, type FakeLlm, reply, startFakeLlm } from './prompt-fake-llm.js'

const node = process.execPath
const client = createOutboundClient({ allow: ['127.0.0.0/8'] })
let webhook: Listener
let llm: FakeLlm
let guardian: Server
let guardianUrl = ''
const hits = new Map<string, number>()

beforeAll(async () => {
  webhook = await listen('127.0.0.1', (req, res) => {
    const n = (hits.get(req.url ?? '') ?? 0) + 1
    hits.set(req.url ?? '', n)
    if (req.url === '/deny') res.writeHead(403).end('{"reason":"not for you"}')
    else if (req.url === '/flaky' && n === 1) res.writeHead(503).end()
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"decision":"allow"}')
  })
  llm = await startFakeLlm()
  guardian = createServer((req, res) => {
    let text = ''
    req.on('data', (d) => {
      text += d
    })
    req.on('end', () => {
      const request = JSON.parse(text) as JsonObject
      const result =
        req.url === '/no' ? { decision: 'deny', message: 'remote says no' } : { decision: 'allow' }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result }))
    })
  })
  await new Promise<void>((resolve) => guardian.listen(0, '127.0.0.1', resolve))
  const address = guardian.address()
  guardianUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})

afterAll(async () => {
  await client.close()
  await webhook.close()
  await llm.close()
  guardian.closeAllConnections()
  guardian.close()
})

const toolEvent = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }

const commandHook = (script: string, extra: Partial<HookDefinition> = {}): HookDefinition => ({
  name: 'cmd',
  event: 'tool.pre',
  handler: { type: 'command', command: node, args: ['-e', script] },
  ...extra,
})

describe('command detail', () => {
  it('reports the exit code, signal, stdout and stderr', async () => {
    const engine = createEngine({})
    const result = await engine.dryRun(
      commandHook(
        'process.stderr.write("checking\\n"); process.stdout.write(JSON.stringify({decision: "block", reason: "nope"}))',
      ),
      toolEvent,
    )
    expect(result.decision).toBe('deny')
    expect(result.detail).toEqual({
      exitCode: 0,
      signal: null,
      stdout: '{"decision":"block","reason":"nope"}',
      stderr: 'checking\n',
    })
    const blocked = await engine.dryRun(
      commandHook('process.stderr.write("rm is not allowed"); process.exit(2)'),
      toolEvent,
    )
    expect(blocked).toMatchObject({
      decision: 'deny',
      reason: 'rm is not allowed',
      detail: { exitCode: 2, stdout: '', stderr: 'rm is not allowed' },
    })
    await engine.close()
  })

  it('reports a failing process, and caps each stream at 64 KiB', async () => {
    const engine = createEngine({})
    const result = await engine.dryRun(
      commandHook(
        'process.stdout.write("x".repeat(200000)); process.stderr.write("broken"); process.exit(3)',
        {
          onError: 'allow',
        },
      ),
      toolEvent,
    )
    expect(result.decision).toBe('allow')
    expect(result.error?.message).toContain('exited with code 3')
    expect(result.detail).toMatchObject({ exitCode: 3, stderr: 'broken', stdoutTruncated: true })
    expect((result.detail.stdout as string).length).toBe(DETAIL_CAP_BYTES)
    expect(result.detail.stderrTruncated).toBeUndefined()
    await engine.close()
  })

  it('reports what a process wrote before it timed out', async () => {
    const engine = createEngine({})
    const result = await engine.dryRun(
      commandHook('process.stdout.write("started"); setTimeout(() => {}, 60000)', { timeoutMs: 3000 }),
      toolEvent,
    )
    expect(result).toMatchObject({ decision: 'deny', error: { kind: 'timeout' } })
    expect(result.detail).toMatchObject({ stdout: 'started', stderr: '' })
    await engine.close()
  })

  it('gives handlers no detail outside a dry run', async () => {
    let seen: unknown = 'unset'
    const engine = createEngine({
      hooks: [
        {
          name: 'fn',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: (call: { detail?: unknown }) => {
              seen = call.detail
            },
          },
        },
      ],
    })
    await engine.dispatch(toolEvent)
    expect(seen).toBeUndefined()
  })
})

describe('http detail', () => {
  const engineWith = () =>
    createEngine({ handlers: [...defaultHandlers(), createHttpHandler({ client, retryDelayMs: 10 })] })
  const httpHook = (path: string): HookDefinition => ({
    name: 'hook',
    event: 'tool.pre',
    handler: { type: 'http', url: `http://127.0.0.1:${webhook.port}${path}` },
  })

  it('reports the final status and the attempts', async () => {
    const engine = engineWith()
    expect((await engine.dryRun(httpHook('/ok'), toolEvent)).detail).toEqual({ status: 200, attempts: 1 })
    const denied = await engine.dryRun(httpHook('/deny'), toolEvent)
    expect(denied).toMatchObject({ decision: 'deny', detail: { status: 403, attempts: 1 } })
    const retried = await engine.dryRun(httpHook('/flaky'), toolEvent)
    expect(retried).toMatchObject({ decision: 'allow', detail: { status: 200, attempts: 2 } })
    await engine.close()
  })
})

describe('prompt detail', () => {
  it('reports what the judge said, the model and whether it came from the cache', async () => {
    llm.script = (_r, res) =>
      reply(res, decideAnswer({ decision: 'deny', reason: 'deletes files', injection_detected: false }, 40))
    const engine = createEngine({
      handlers: [createPromptHandler({ client, judge: { baseUrl: llm.baseUrl, model: 'judge-model' } })],
    })
    const hook: HookDefinition = {
      name: 'judge',
      event: 'tool.pre',
      matcher: 'exec',
      handler: { type: 'prompt', prompt: 'Deny deletes.' },
    }
    const first = await engine.dryRun(hook, toolEvent)
    expect(first).toMatchObject({ decision: 'deny', reason: 'deletes files' })
    expect(first.detail).toMatchObject({
      judgeDecision: 'deny',
      judgeReason: 'deletes files',
      model: 'judge-model',
      cached: false,
      tokens: 40,
    })
    const second = await engine.dryRun(hook, toolEvent)
    expect(second.detail).toMatchObject({ judgeReason: 'deletes files', model: 'judge-model', cached: true })
    await engine.close()
  })
})

describe('script detail', () => {
  it('reports the logs, which also reach the trace', async () => {
    const engine = createEngine({ handlers: [createScriptHandler()] })
    const result = await engine.dryRun(
      {
        name: 'guard',
        event: 'tool.pre',
        handler: {
          type: 'script',
          source:
            'def handle(event, payload):\n    log("looking at " + payload["name"])\n    return allow()\n',
        },
      },
      toolEvent,
    )
    expect(result.detail).toEqual({ logs: ['looking at exec'] })
    expect(result.trace.logs).toEqual(['looking at exec'])
    await engine.close()
  })
})

describe('guardian detail', () => {
  it("reports each Guardian's answer", async () => {
    const engine = createEngine({
      handlers: [guardiansHandler({ client, codec: createAosGuardianCodec() })],
    })
    const result = await engine.dryRun(
      {
        name: 'remotes',
        event: 'tool.pre',
        handler: {
          type: 'guardians',
          guardians: [
            { name: 'yes', url: `${guardianUrl}/yes` },
            { name: 'no', url: `${guardianUrl}/no` },
          ],
        },
      },
      toolEvent,
    )
    expect(result.decision).toBe('deny')
    expect(result.detail).toEqual({
      guardians: [
        { name: 'yes', answer: 'allow' },
        { name: 'no', answer: 'deny', reason: 'remote says no' },
      ],
    })
    await engine.close()
  })
})
