// `warden llm` when things go wrong or a human must decide: a hook's ask held for the
// approver (approved: the tool call goes through; rejected: it is replaced by the reason),
// an upstream that is down, slow to answer, or falls silent mid-stream, and a client that
// leaves mid-stream (the upstream stream is closed at once) — each answered in the API's
// own error shape naming the cause, nothing left hanging.

import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ApprovalRequest,
  ask,
  type Engine,
  type HookCall,
  type JsonObject,
} from '../../src/core/index.js'
import { type LlmGateway, startLlmGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { type ModelServer, startModelServer } from './llm-upstream.js'

describe('warden llm: approvals and failures', () => {
  let upstream: ModelServer
  let gateway: LlmGateway
  let engine: Engine
  let anthropic: Anthropic
  let answer: 'approve' | 'reject' = 'approve'
  const held: ApprovalRequest[] = []

  beforeAll(async () => {
    upstream = await startModelServer()
    engine = buildEngine(undefined, {
      extraHooks: [
        {
          name: 'deploys-need-a-human',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: ({ event }: HookCall) =>
              JSON.stringify((event.payload.tool as JsonObject).input).includes('deploy')
                ? ask('deploys need a human')
                : undefined,
          },
        },
      ],
      approver: (request) => {
        held.push(request)
        return answer === 'approve'
          ? { outcome: 'approve', by: 'alice' }
          : { outcome: 'reject', by: 'bob', reason: 'not today' }
      },
    })
    gateway = await startLlmGateway({
      engine,
      upstream: new URL(upstream.url),
      limits: { upstreamTimeoutMs: 400 },
    })
    anthropic = new Anthropic({
      baseURL: gateway.url.href.replace(/\/$/, ''),
      apiKey: 'sk-ant-x',
      maxRetries: 0,
    })
  })

  afterAll(async () => {
    await gateway?.close()
    await upstream?.close()
    await engine?.close()
  })

  const deploy = () =>
    anthropic.messages
      .stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'ship it' }] })
      .finalMessage()

  it('holds an ask for the approver: approved, the call goes through; rejected, the reason replaces it', async () => {
    upstream.script([{ tools: [{ name: 'Bash', input: { command: 'deploy prod' } }] }])
    answer = 'approve'
    const approved = await deploy()
    expect(approved.content[0]).toMatchObject({ type: 'tool_use', input: { command: 'deploy prod' } })
    expect(held.at(-1)?.asks[0]?.reason).toBe('deploys need a human')
    expect(typeof held.at(-1)?.onCallerGone).toBe('function')
    answer = 'reject'
    const rejected = await deploy()
    expect(rejected.content).toHaveLength(1)
    expect(rejected.content[0]).toMatchObject({ type: 'text' })
    expect(JSON.stringify(rejected.content)).toContain('Warden blocked the tool call Bash')
    expect(rejected.stop_reason).toBe('end_turn')
  })

  it('answers 504 in the API shape when the upstream is slow to answer', async () => {
    upstream.script([{ text: ['late'], delayMs: 1500 }])
    const error = await anthropic.messages
      .create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(504)
    expect((error as Error).message).toContain('did not answer within 400 ms')
  })

  it('ends a stream that falls silent with an error event naming the limit', async () => {
    upstream.script([{ text: ['first ', 'second'], stall: true }])
    const error = await deploy().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect((error as Error).message).toContain('sent nothing for 400 ms (llm.upstreamTimeoutMs)')
  })

  it('closes the upstream stream at once when the client leaves', async () => {
    upstream.script([{ text: ['first ', 'second'], stall: true }])
    const cutBefore = upstream.cut()
    const controller = new AbortController()
    const stream = await anthropic.messages.create(
      { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      { signal: controller.signal },
    )
    for await (const event of stream) if (event.type === 'content_block_delta') break
    controller.abort()
    await expect.poll(() => upstream.cut(), { timeout: 5000 }).toBe(cutBefore + 1)
    await expect.poll(() => gateway.openStreams(), { timeout: 5000 }).toBe(0)
  })

  it('answers 502 in each API’s shape when the upstream is down', async () => {
    // Port 9 (discard), where nothing listens: a port freed by closing a server of this test
    // could be taken by another file's server while the suite runs, whose answer (a 503) the
    // gateway would rightly pass on.
    const lost = await startLlmGateway({ engine, upstream: new URL('http://127.0.0.1:9/') })
    try {
      const viaAnthropic = new Anthropic({
        baseURL: lost.url.href.replace(/\/$/, ''),
        apiKey: 'sk-ant-secret-1',
        maxRetries: 0,
      })
      const error = await viaAnthropic.messages
        .create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e)
      expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502)
      expect((error as Error).message).toContain('could not reach the model API')
      expect((error as Error).message).not.toContain('sk-ant-secret-1')
      const viaOpenAi = new OpenAI({
        baseURL: new URL('/v1', lost.url).href,
        apiKey: 'sk-secret-2',
        maxRetries: 0,
      })
      const failure = await viaOpenAi.chat.completions
        .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e)
      expect(failure).toBeInstanceOf(OpenAI.APIError)
      expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('warden_upstream_unreachable')
    } finally {
      await lost.close()
    }
  })
})
