// `warden llm` in front of a local Messages server, called by the official Anthropic SDK:
// requests and answers, streamed and not, allowed, denied and modified — the user message,
// the offered tools, tool results sent back, the answer's text (a redaction split across
// streamed chunks) and its tool calls (denied, rewritten); upstream errors pass through.

import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../src/core/index.js'
import { type LlmGateway, startLlmGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { LLM_HOOKS } from './llm-hooks.js'
import { type ModelServer, startModelServer } from './llm-upstream.js'

const bash = {
  name: 'Bash',
  input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } },
}

describe('warden llm: Anthropic Messages through the official SDK', () => {
  let upstream: ModelServer
  let gateway: LlmGateway
  let engine: Engine
  let client: Anthropic
  const seen: string[] = []

  beforeAll(async () => {
    upstream = await startModelServer()
    engine = buildEngine(undefined, {
      extraHooks: LLM_HOOKS,
      recorder: { record: ({ event }) => void seen.push(event.event) },
    })
    gateway = await startLlmGateway({
      engine,
      upstream: new URL(upstream.url),
      limits: { checkEveryChars: 4, holdBackChars: 16 },
    })
    client = new Anthropic({
      baseURL: gateway.url.href.replace(/\/$/, ''),
      apiKey: 'sk-ant-agent-key',
      maxRetries: 0,
    })
  })

  afterAll(async () => {
    await gateway?.close()
    await upstream?.close()
    await engine?.close()
  })

  const ask = (text: string, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) =>
    client.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: text }],
      ...extra,
    })

  it('passes an allowed call, its headers and API key through, and records every event', async () => {
    upstream.script([
      { text: ['Hello ', 'there'], headers: { 'anthropic-ratelimit-requests-remaining': '41' } },
    ])
    seen.length = 0
    const { data, response } = await ask('hi', { tools: [bash] }).withResponse()
    expect(data.content).toEqual([{ type: 'text', text: 'Hello there' }])
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('41')
    expect(response.headers.get('x-request-id')).toMatch(/^req_/)
    const sent = upstream.requests.at(-1)
    expect(sent?.headers.authorization ?? sent?.headers['x-api-key']).toMatch(/sk-ant-agent-key$/)
    expect(sent?.headers['anthropic-version']).toBeDefined()
    await engine.drain()
    expect(seen).toEqual(['user.message', 'model.pre', 'agent.response', 'model.post'])
  })

  it('refuses a denied user message with a 403 permission error, and the model never sees it', async () => {
    const before = upstream.requests.length
    const error = await ask('tell me the forbidden thing').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError)
    expect((error as Error).message).toContain('Warden blocked the user message: that topic is off limits')
    expect(upstream.requests.length).toBe(before)
  })

  it('drops a tool from the offered list and redacts a tool result before the model sees them', async () => {
    upstream.script([{ text: ['fine'] }])
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      tools: [
        bash,
        { name: 'Wipe', description: 'dangerous: wipes the disk', input_schema: { type: 'object' } },
      ],
      messages: [
        { role: 'user', content: 'read the config' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a' } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'user=bob password=hunter2' }],
        },
      ],
    })
    const sent = upstream.requests.at(-1)?.body
    expect(sent.tools.map((t: { name: string }) => t.name)).toEqual(['Bash'])
    expect(JSON.stringify(sent.messages)).not.toContain('hunter2')
    expect(sent.messages[2].content[0].content).toBe('password=[REDACTED]')
  })

  it('replaces a denied tool call with the reason and ends the turn; rewrites another', async () => {
    upstream.script([{ tools: [{ name: 'Bash', input: { command: 'rm -rf /' } }] }])
    const denied = await ask('clean up', { tools: [bash] })
    expect(denied.content).toEqual([
      { type: 'text', text: 'Warden blocked the tool call Bash: rm -rf is never allowed' },
    ])
    expect(denied.stop_reason).toBe('end_turn')
    upstream.script([{ tools: [{ name: 'Bash', input: { command: 'touch original.txt' } }] }])
    const rewritten = await ask('make a file', { tools: [bash] })
    expect(rewritten.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'Bash',
      input: { command: 'touch rewritten.txt' },
    })
    expect(rewritten.stop_reason).toBe('tool_use')
  })

  it('refuses a denied answer with a 403 and redacts a key in a whole answer', async () => {
    upstream.script([{ text: ['the code is TOP SECRET'] }])
    await expect(ask('hi')).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError)
    upstream.script([{ text: ['your key is sk-abcdefgh12345 ok'] }])
    const answer = await ask('hi')
    expect(answer.content).toEqual([{ type: 'text', text: 'your key is [REDACTED] ok' }])
  })

  it('streams: redacts a key split across chunks without ever sending a byte of it', async () => {
    upstream.script([
      { text: ['Here is the key: s', 'k-abc', 'defgh', '12345', ' and that is all, nothing else to say.'] },
    ])
    const stream = client.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'key?' }],
    })
    const deltas: string[] = []
    stream.on('text', (text) => deltas.push(text))
    const final = await stream.finalMessage()
    const all = deltas.join('')
    expect(all).toBe('Here is the key: [REDACTED] and that is all, nothing else to say.')
    for (const piece of ['sk-', 'abcdefgh', '12345']) expect(all).not.toContain(piece)
    expect(final.content).toEqual([{ type: 'text', text: all }])
  })

  it('streams: a denied tool call becomes a text block, a rewritten one carries the new input', async () => {
    upstream.script([
      { text: ['Let me clean up.'], tools: [{ name: 'Bash', input: { command: 'rm -rf /srv' } }] },
      { tools: [{ name: 'Bash', input: { command: 'cp original.txt b' } }] },
    ])
    const first = await client.messages
      .stream({
        model: 'claude-test',
        max_tokens: 100,
        tools: [bash],
        messages: [{ role: 'user', content: 'go' }],
      })
      .finalMessage()
    expect(first.content).toEqual([
      { type: 'text', text: 'Let me clean up.' },
      { type: 'text', text: 'Warden blocked the tool call Bash: rm -rf is never allowed' },
    ])
    expect(first.stop_reason).toBe('end_turn')
    const second = await client.messages
      .stream({
        model: 'claude-test',
        max_tokens: 100,
        tools: [bash],
        messages: [{ role: 'user', content: 'go' }],
      })
      .finalMessage()
    expect(second.content[0]).toMatchObject({ type: 'tool_use', input: { command: 'cp rewritten.txt b' } })
    expect(second.stop_reason).toBe('tool_use')
  })

  it('streams: a denied answer ends the stream with an error event the SDK throws', async () => {
    upstream.script([{ text: ['All fine so far. ', 'But the code is TOP ', 'SECRET: 42'] }])
    const stream = client.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'x' }],
    })
    const deltas: string[] = []
    stream.on('text', (t) => deltas.push(t))
    const error = await stream.finalMessage().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect(String((error as Error).message)).toContain('the answer discloses a secret')
    expect(deltas.join('')).not.toContain('SECRET')
  })

  it('passes the upstream’s own errors through with their status and headers', async () => {
    upstream.script([{ error: { status: 429, message: 'slow down', headers: { 'retry-after': '7' } } }])
    const error = await ask('hi').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
    expect((error as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after')).toBe('7')
    expect((error as Error).message).toContain('slow down')
  })
})
