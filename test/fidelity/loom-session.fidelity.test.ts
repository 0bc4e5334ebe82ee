// loom fidelity, the lifecycle: the context fields each event carries (model.post metering,
// session.end's reason, error's code and message) and the `Session` loop that fires them
// where loom's docs say, with a scripted model as the provider (a fake LLM); and the AI SDK
// adapter firing `error` on a failed model call, against a loopback model server.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, wrapLanguageModel } from 'ai'
import { afterAll, describe, expect, it } from 'vitest'
import { wardenMiddleware } from '../../src/adapters/ai-sdk/index.js'
import { CLAUDE_HOOK_EVENTS, toEvent } from '../../src/adapters/claude-agent-sdk/index.js'
import {
  createLoomRuntime,
  type HookContext,
  HookRegistry,
  HookRuntime,
  type ProviderResponse,
  ReminderInjector,
  Session,
} from '../../src/adapters/loom/index.js'
import { createEngine, type HookCall } from '../../src/index.js'

const closers: (() => Promise<void>)[] = []
afterAll(async () => {
  await Promise.all(closers.map((close) => close()))
})

/** A registry recording every hook's context, with the given fn hooks on top. */
function recorder() {
  const registry = new HookRegistry()
  closers.push(() => registry.engine.close())
  const seen: HookContext[] = []
  for (const event of [
    'session.start',
    'user.prompt.submit',
    'model.pre',
    'model.post',
    'tool.pre',
    'tool.post',
    'session.end',
    'error',
  ])
    registry.register(event, {
      type: 'fn',
      name: `record-${event}`,
      fn: (ctx) => {
        seen.push(ctx)
        return {}
      },
    })
  const reminders = new ReminderInjector()
  return { registry, seen, reminders, hooks: new HookRuntime({ registry, reminders }) }
}

const events = (seen: HookContext[]) => seen.map((c) => c.event)

describe('loom', () => {
  // "model.post … carries stopReason, inputTokens/outputTokens/costUsd, toolCallCount. The metering moment"
  it('model.post carries stopReason, inputTokens, outputTokens, costUsd and toolCallCount on the context', async () => {
    const runtime = createLoomRuntime()
    const seen: HookContext[] = []
    runtime.register('model.post', { type: 'fn', name: 'meter', fn: (ctx) => void seen.push(ctx) })
    await runtime.run('model.post', {
      model: 'claude-x',
      stopReason: 'end_turn',
      inputTokens: 120,
      outputTokens: 30,
      costUsd: 0.0021,
      toolCallCount: 2,
    })
    expect(seen[0]).toMatchObject({
      event: 'model.post',
      model: 'claude-x',
      stopReason: 'end_turn',
      inputTokens: 120,
      outputTokens: 30,
      costUsd: 0.0021,
      toolCallCount: 2,
    })
    await runtime.engine.close()
  })

  // "session.end — on every loop exit … with the terminal reason"; "error — … code, message"
  it('session.end has ctx.reason and error has ctx.code, ctx.message (and ctx.error)', async () => {
    const { hooks, seen } = recorder()
    await hooks.run({ event: 'error', turnIndex: 3, code: 'rate_limited', message: 'slow down' })
    await hooks.run({ event: 'session.end', turnIndex: 3, sessionId: 's1', reason: 'error' })
    expect(seen).toMatchObject([
      {
        event: 'error',
        code: 'rate_limited',
        message: 'slow down',
        error: { code: 'rate_limited', message: 'slow down' },
      },
      { event: 'session.end', sessionId: 's1', reason: 'error' },
    ])
  })

  // "A tool.pre hook returning { continue: false, reason } blocks the tool with a synthesized
  //  denied result"; "model.pre … a hook's additionalContext lands on THIS request"
  // "user.prompt.submit — RESERVED: declared … but not fired by Session/loop yet"
  it('a Session fires session.start, model.pre, model.post, tool.pre, tool.post and session.end in loom order (user.prompt.submit is reserved, never fired)', async () => {
    const { registry, hooks, seen, reminders } = recorder()
    registry.register('model.pre', {
      type: 'fn',
      name: 'date',
      fn: () => ({ additionalContext: 'today is Tuesday' }),
    })
    registry.register('tool.pre', {
      type: 'fn',
      name: 'no-rm',
      fn: (ctx) => (ctx.toolName === 'rm' ? { continue: false, reason: 'rm is off-limits' } : {}),
    })
    registry.register('tool.post', {
      type: 'fn',
      name: 'late',
      fn: () => ({ continue: false, reason: 'too late' }),
    })
    const ran: string[] = []
    const requests: { reminders: readonly string[]; messages: readonly unknown[] }[] = []
    const script: ProviderResponse[] = [
      {
        stopReason: 'tool_use',
        toolCalls: [
          { id: 'c1', name: 'rm', input: { path: '/' } },
          { id: 'c2', name: 'ls', input: {} },
        ],
        inputTokens: 50,
        outputTokens: 9,
      },
      { text: 'done', stopReason: 'end_turn', inputTokens: 80, outputTokens: 2, costUsd: 0.001 },
    ]
    const session = new Session({
      hooks,
      reminders,
      model: 'fake-model',
      tools: [
        { name: 'rm', execute: () => void ran.push('rm') },
        {
          name: 'ls',
          execute: () => {
            ran.push('ls')
            return 'a.txt'
          },
        },
      ],
      provider: async (request) => {
        requests.push({ reminders: request.reminders, messages: request.messages })
        return script[requests.length - 1] ?? { text: 'x', stopReason: 'end_turn' }
      },
    })
    const result = await session.submitMessage('clean up')
    expect(result).toMatchObject({ stopReason: 'end_turn', text: 'done', turnCount: 1 })
    expect(events(seen)).toEqual([
      'session.start',
      'model.pre',
      'model.post',
      'tool.pre',
      'tool.pre',
      'tool.post',
      'model.pre',
      'model.post',
      'session.end',
    ])
    expect(ran).toEqual(['ls'])
    expect(requests[0]?.reminders.join('')).toContain('today is Tuesday')
    const toolReplies = requests[1]?.messages.filter((m) => (m as { role: string }).role === 'tool')
    expect(toolReplies).toMatchObject([
      { name: 'rm', isError: true, content: 'Hook "no-rm" blocked the action: rm is off-limits' },
      { name: 'ls', isError: false, content: 'a.txt' },
    ])
    expect(requests[1]?.reminders.join('')).toContain('Hook "no-rm" blocked the action: rm is off-limits')
    expect(seen.find((c) => c.event === 'model.post')).toMatchObject({
      stopReason: 'tool_use',
      toolCallCount: 2,
    })
    expect(seen.at(-1)).toMatchObject({
      event: 'session.end',
      reason: 'end_turn',
      sessionId: session.sessionId,
    })
  })

  // "error — on unrecoverable failure, just before session.end"
  it('a Session whose model fails fires error (code, message) and then session.end with reason error', async () => {
    const { hooks, seen } = recorder()
    const failure = Object.assign(new Error('upstream overloaded'), { code: 'overloaded' })
    const session = new Session({ hooks, provider: async () => Promise.reject(failure) })
    expect(await session.submitMessage('hi')).toMatchObject({
      stopReason: 'error',
      error: 'upstream overloaded',
    })
    expect(seen.slice(-2)).toMatchObject([
      { event: 'error', code: 'overloaded', message: 'upstream overloaded' },
      { event: 'session.end', reason: 'error' },
    ])
  })

  // "session.end fires even on abort by design: an audit trail that skips aborted runs is not an audit trail."
  it('an aborted Session still fires session.end, with reason aborted', async () => {
    const { hooks, seen } = recorder()
    let session: Session | undefined
    session = new Session({
      hooks,
      provider: (request) =>
        new Promise((_resolve, reject) => {
          request.signal.addEventListener('abort', () => reject(new Error('aborted')))
          setImmediate(() => session?.abort())
        }),
    })
    expect((await session.submitMessage('hi')).stopReason).toBe('aborted')
    expect(seen.at(-1)).toMatchObject({ event: 'session.end', reason: 'aborted' })
  })

  it('the AI SDK adapter fires error when the model call fails', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: 'model is unavailable', type: 'invalid_request_error' } }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise((resolve) => server.close(() => resolve())))
    const errors: unknown[] = []
    const engine = createEngine({
      hooks: [
        {
          name: 'pager',
          event: 'error',
          handler: { type: 'fn', fn: (call: HookCall) => void errors.push(call.event.payload) },
        },
      ],
    })
    closers.push(() => engine.close())
    const { port } = server.address() as AddressInfo
    const model = wrapLanguageModel({
      model: createOpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test' }).chat('gpt-test'),
      middleware: wardenMiddleware(engine),
    })
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toThrow(/model is unavailable/)
    await engine.drain()
    expect(errors).toMatchObject([{ error: { message: 'model is unavailable' } }])
  })

  it('the Claude Agent SDK adapter hooks StopFailure and fires error with its code and message', () => {
    expect(CLAUDE_HOOK_EVENTS).toContain('StopFailure')
    const input = {
      hook_event_name: 'StopFailure',
      session_id: 's9',
      transcript_path: '/tmp/t.jsonl',
      cwd: '/tmp',
      error: 'rate_limit',
      error_details: '429 Too Many Requests',
    }
    expect(toEvent(input as never, undefined)).toEqual({
      event: 'error',
      payload: { error: { code: 'rate_limit', message: '429 Too Many Requests' } },
      context: { session: { id: 's9' }, cwd: '/tmp' },
    })
  })
})
