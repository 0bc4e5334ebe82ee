// `warden llm` in front of a local OpenAI-compatible server, called by the official `openai`
// client: Chat Completions and Responses, streamed and not — allowed, denied user message,
// redaction split across streamed chunks, a denied and a rewritten tool call, a denied
// answer mid-stream, the upstream's own errors passed through.

import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../src/core/index.js'
import { type LlmGateway, startLlmGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { LLM_HOOKS } from './llm-hooks.js'
import { type ModelServer, startModelServer } from './llm-upstream.js'

const bash: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'Bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
}
const bashTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'Bash',
  parameters: { type: 'object', properties: { command: { type: 'string' } } },
  strict: false,
}
const KEY_CHUNKS = ['Here is the key: s', 'k-abc', 'defgh', '12345', ' and that is all, nothing else to say.']
const REDACTED = 'Here is the key: [REDACTED] and that is all, nothing else to say.'

describe('warden llm: OpenAI Chat Completions and Responses through the official client', () => {
  let upstream: ModelServer
  let gateway: LlmGateway
  let engine: Engine
  let client: OpenAI

  beforeAll(async () => {
    upstream = await startModelServer()
    engine = buildEngine(undefined, { extraHooks: LLM_HOOKS })
    gateway = await startLlmGateway({
      engine,
      upstream: new URL(upstream.url),
      limits: { checkEveryChars: 4, holdBackChars: 16 },
    })
    client = new OpenAI({ baseURL: new URL('/v1', gateway.url).href, apiKey: 'sk-agent-key', maxRetries: 0 })
  })

  afterAll(async () => {
    await gateway?.close()
    await upstream?.close()
    await engine?.close()
  })

  const chat = (content: string) =>
    client.chat.completions.create({
      model: 'gpt-test',
      tools: [bash],
      messages: [{ role: 'user', content }],
    })

  it('chat: passes an allowed call with its headers; refuses a denied user message with 403', async () => {
    upstream.script([{ text: ['Hello'], headers: { 'x-ratelimit-remaining-requests': '9' } }])
    const { data, response } = await chat('hi').withResponse()
    expect(data.choices[0]?.message.content).toBe('Hello')
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('9')
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer sk-agent-key')
    const before = upstream.requests.length
    const error = await chat('the forbidden thing').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError)
    expect((error as Error).message).toContain('that topic is off limits')
    expect(upstream.requests.length).toBe(before)
  })

  it('chat: a denied tool call is removed with its reason, a rewritten one carries the new arguments', async () => {
    upstream.script([
      { tools: [{ name: 'Bash', input: { command: 'rm -rf /' } }] },
      { tools: [{ name: 'Bash', input: { command: 'touch original.txt' } }] },
    ])
    const denied = await chat('clean')
    expect(denied.choices[0]?.message.tool_calls).toBeUndefined()
    expect(denied.choices[0]?.message.content).toBe(
      'Warden blocked the tool call Bash: rm -rf is never allowed',
    )
    expect(denied.choices[0]?.finish_reason).toBe('stop')
    const rewritten = await chat('touch')
    const call = rewritten.choices[0]?.message
      .tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall
    expect(JSON.parse(call.function.arguments)).toEqual({ command: 'touch rewritten.txt' })
  })

  it('chat: redacts a tool result the agent sends back', async () => {
    upstream.script([{ text: ['ok'] }])
    await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'read it' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'password=hunter2' },
      ],
    })
    expect(JSON.stringify(upstream.requests.at(-1)?.body)).not.toContain('hunter2')
  })

  it('chat stream: redacts a key split across chunks, never sending a byte of it', async () => {
    upstream.script([{ text: KEY_CHUNKS }])
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      messages: [{ role: 'user', content: 'key?' }],
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe(REDACTED)
  })

  it('chat stream: tool calls are released whole once checked; a deny mid-stream is an error', async () => {
    upstream.script([
      {
        tools: [
          { name: 'Bash', input: { command: 'rm -rf /x' } },
          { name: 'Bash', input: { command: 'mv original.txt b' } },
        ],
      },
      { text: ['fine so far ', 'and then TOP ', 'SECRET stuff'] },
    ])
    const runner = client.chat.completions.stream({
      model: 'gpt-test',
      tools: [bash],
      messages: [{ role: 'user', content: 'go' }],
    })
    const final = await runner.finalChatCompletion()
    const message = final.choices[0]?.message
    expect(message?.content).toBe('Warden blocked the tool call Bash: rm -rf is never allowed')
    const calls = (message?.tool_calls ?? []) as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[]
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ command: 'mv rewritten.txt b' }])
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    })
    let text = ''
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as Error).message).toContain('the answer discloses a secret')
    expect(text).not.toContain('SECRET')
  })

  it('chat: the upstream’s own errors pass through with status and headers', async () => {
    upstream.script([{ error: { status: 429, message: 'quota', headers: { 'retry-after': '3' } } }])
    const error = await chat('hi').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('3')
  })

  it('responses: allowed, denied input, denied and rewritten function calls', async () => {
    upstream.script([
      { text: ['Hi there'] },
      { tools: [{ name: 'Bash', input: { command: 'rm -rf /' } }] },
      { tools: [{ name: 'Bash', input: { command: 'cat original.txt' } }] },
    ])
    const plain = await client.responses.create({ model: 'gpt-test', input: 'hello' })
    expect(plain.output_text).toBe('Hi there')
    await expect(client.responses.create({ model: 'gpt-test', input: 'forbidden' })).rejects.toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    )
    const denied = await client.responses.create({ model: 'gpt-test', input: 'clean', tools: [bashTool] })
    expect(denied.output.map((i) => i.type)).toEqual(['message'])
    expect(denied.output_text).toBe('Warden blocked the tool call Bash: rm -rf is never allowed')
    const rewritten = await client.responses.create({ model: 'gpt-test', input: 'cat', tools: [bashTool] })
    const call = rewritten.output[0] as OpenAI.Responses.ResponseFunctionToolCall
    expect(JSON.parse(call.arguments)).toEqual({ command: 'cat rewritten.txt' })
  })

  it('responses stream: redaction across chunks, and a blocked call in the final response', async () => {
    upstream.script([{ text: KEY_CHUNKS }, { tools: [{ name: 'Bash', input: { command: 'rm -rf ~' } }] }])
    const stream = client.responses.stream({ model: 'gpt-test', input: 'key?' })
    let text = ''
    stream.on('response.output_text.delta', (event) => {
      text += event.delta
    })
    const final = await stream.finalResponse()
    expect(text).toBe(REDACTED)
    expect(final.output_text).toBe(REDACTED)
    const blocked = await client.responses
      .stream({ model: 'gpt-test', input: 'go', tools: [bashTool] })
      .finalResponse()
    expect(blocked.output.map((i) => i.type)).toEqual(['message'])
    expect(blocked.output_text).toContain('rm -rf is never allowed')
  })

  it('responses stream: a denied answer ends the stream with an error event the client raises', async () => {
    upstream.script([{ text: ['all good ', 'until TOP ', 'SECRET here'] }])
    const stream = client.responses.stream({ model: 'gpt-test', input: 'x' })
    let text = ''
    stream.on('response.output_text.delta', (event) => {
      text += event.delta
    })
    const error = await stream.finalResponse().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect(String((error as Error).message)).toContain('the answer discloses a secret')
    expect(text).not.toContain('SECRET')
  })
})
