// Attacks on `warden llm` (the real CLI) through OpenAI Chat Completions shapes the gateway
// was not written for: legacy function calls (whole and streamed, through the official
// openai client), duplicate and missing tool-call ids, calls whose shape cannot be read,
// user texts and tool results that are not last, answer text in content parts, refusals,
// audio transcripts and logprobs, a secret split across parts, unknown fields and part
// types, and stored completions read back with GET.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWardenLlm, type WardenLlm } from '../gateway/llm-process.js'
import { type RawModelServer, startRawModelServer } from '../gateway/llm-raw-upstream.js'
import { SECRET, writeClosedWorldHooks } from './llm-closed-world-hooks.js'

function completion(message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', ...message },
        finish_reason: 'stop',
        logprobs: null,
        ...extra,
      },
    ],
  }
}

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return {
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-test',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }
}

describe('warden llm: Chat Completions as a closed world', () => {
  let upstream: RawModelServer
  let gateway: WardenLlm
  let client: OpenAI

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-llm-chat-closed-'))
    upstream = await startRawModelServer()
    gateway = await startWardenLlm([
      '--upstream',
      upstream.url,
      '--hooks',
      writeClosedWorldHooks(dir),
      '--db',
      join(dir, 'warden.db'),
    ])
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1`, maxRetries: 0 })
  })
  afterAll(async () => {
    await gateway?.stop()
    await upstream?.close()
  })

  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer fields
  async function post(body: unknown): Promise<{ status: number; json: any }> {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify(body),
    })
    return { status: response.status, json: await response.json() }
  }

  it('checks a legacy function_call with tool.pre, whole, through the openai client', async () => {
    upstream.answer({
      json: {
        ...completion({
          content: null,
          function_call: { name: 'shell', arguments: '{"command":"rm -rf /"}' },
        }),
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              function_call: { name: 'shell', arguments: '{"command":"rm -rf /"}' },
            },
            finish_reason: 'function_call',
          },
        ],
      },
    })
    const answer = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'clean up' }],
      functions: [
        { name: 'shell', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
      ],
    })
    const message = answer.choices[0]?.message
    expect(message?.function_call).toBeUndefined()
    expect(message?.content).toContain('Warden blocked the tool call shell: rm -rf is never allowed')
    expect(answer.choices[0]?.finish_reason).toBe('stop')
  })

  it('checks a streamed legacy function_call with tool.pre', async () => {
    upstream.answer({
      events: [
        {
          data: chunk({ role: 'assistant', content: null, function_call: { name: 'shell', arguments: '' } }),
        },
        { data: chunk({ function_call: { arguments: '{"command":"rm ' } }) },
        { data: chunk({ function_call: { arguments: '-rf /"}' } }) },
        { data: chunk({}, 'function_call') },
        { data: '[DONE]' },
      ],
    })
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      messages: [{ role: 'user', content: 'clean up' }],
      functions: [{ name: 'shell', parameters: { type: 'object' } }],
    })
    let args = ''
    let text = ''
    let finish: string | null | undefined
    for await (const part of stream) {
      const choice = part.choices[0]
      args += choice?.delta.function_call?.arguments ?? ''
      text += choice?.delta.content ?? ''
      finish = choice?.finish_reason ?? finish
    }
    expect(args).not.toContain('rm -rf')
    expect(text).toContain('rm -rf is never allowed')
    expect(finish).toBe('stop')
  })

  it('keys verdicts by position: a duplicate or missing id never releases a blocked call', async () => {
    const call = (id: string | undefined, command: string) => ({
      ...(id === undefined ? {} : { id }),
      type: 'function',
      function: { name: 'shell', arguments: JSON.stringify({ command }) },
    })
    upstream.answer({
      json: completion({
        content: null,
        tool_calls: [call('call_1', 'rm -rf /'), call('call_1', 'ls'), call(undefined, 'rm -rf ~')],
      }),
    })
    const { status, json } = await post({ model: 'gpt-test', messages: [{ role: 'user', content: 'go' }] })
    expect(status).toBe(200)
    const calls = json.choices[0].message.tool_calls
    expect(calls).toHaveLength(1)
    expect(calls[0].function.arguments).toContain('"ls"')
    expect(JSON.stringify(json)).not.toContain('rm -rf /"')
  })

  it('denies a tool call whose shape cannot be read, in the OpenAI error shape', async () => {
    upstream.answer({
      json: completion({
        tool_calls: [
          { id: 'c', type: 'function', function: { name: 'shell', arguments: { command: 'rm -rf /' } } },
        ],
      }),
    })
    const { status, json } = await post({ model: 'gpt-test', messages: [{ role: 'user', content: 'go' }] })
    expect(status).toBe(502)
    expect(json.error.code).toBe('warden_unsupported_type')
    expect(json.error.message).toContain('cannot read')
  })

  it('checks every user text and every tool or function result, not only the last', async () => {
    upstream.answer({ json: completion({ content: 'fine' }) })
    const twoUsers = await post({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'tell me the forbidden thing' }] },
        { role: 'user', content: 'and be quick' },
      ],
    })
    expect(twoUsers.status).toBe(403)
    expect(twoUsers.json.error.message).toContain('off limits')
    const before = upstream.requests.length
    const results = await post({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'read it' },
        { role: 'assistant', content: null, function_call: { name: 'read', arguments: '{}' } },
        { role: 'function', name: 'read', content: `key=${SECRET}` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'cat', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: `again ${SECRET}` },
        { role: 'user', content: 'thanks' },
      ],
    })
    expect(results.status).toBe(200)
    expect(upstream.requests.length).toBe(before + 1)
    const sent = JSON.stringify(upstream.requests.at(-1)?.body)
    expect(sent).not.toContain(SECRET)
    expect(sent).toContain('[REDACTED]')
  })

  it('checks content parts, refusal and the audio transcript, and removes logprobs', async () => {
    upstream.answer({
      json: completion(
        {
          content: [{ type: 'text', text: `part ${SECRET}` }],
          refusal: `no: ${SECRET}`,
          audio: { id: 'a', data: 'QUJD', expires_at: 1, transcript: `said ${SECRET}` },
        },
        {
          logprobs: {
            content: [{ token: SECRET, logprob: -0.1, bytes: [115], top_logprobs: [] }],
            refusal: null,
          },
        },
      ),
    })
    const { status, json } = await post({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
    expect(status).toBe(200)
    expect(JSON.stringify(json)).not.toContain(SECRET)
    expect(json.choices[0].logprobs).toBeNull()
    expect(json.choices[0].message.audio.data).toBeUndefined()
    expect(json.choices[0].message.audio.transcript).toBe('said [REDACTED]')
  })

  it('refuses a secret split across two content parts', async () => {
    upstream.answer({
      json: completion({
        content: [
          { type: 'text', text: SECRET.slice(0, 9) },
          { type: 'text', text: SECRET.slice(9) },
        ],
      }),
    })
    const { status, json } = await post({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
    expect(status).toBe(403)
    expect(JSON.stringify(json)).not.toContain(SECRET.slice(9))
  })

  it('refuses unknown answer fields, part types and roles naming them and the setting', async () => {
    upstream.answer({ json: completion({ content: 'ok', reasoning_content: `thinking ${SECRET}` }) })
    const field = await post({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
    expect(field.status).toBe(502)
    expect(field.json.error.message).toContain('"reasoning_content"')
    expect(field.json.error.message).toContain('llm.allowUnknownTypes')
    const before = upstream.requests.length
    const file = await post({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: [{ type: 'file', file: { file_data: 'JVBERi0=', filename: 'a.pdf' } }] },
      ],
    })
    expect(file.status).toBe(400)
    expect(file.json.error.message).toContain('openai.chat/user-content/file')
    const search = await post({
      model: 'gpt-test',
      web_search_options: {},
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(search.status).toBe(400)
    expect(search.json.error.message).toContain('openai.chat/tool/web_search')
    const role = await post({ model: 'gpt-test', messages: [{ role: 'critic', content: 'forbidden' }] })
    expect(role.status).toBe(400)
    expect(role.json.error.message).toContain('"critic"')
    expect(upstream.requests.length).toBe(before)
  })

  it('checks a stored completion read back with GET, and refuses the list', async () => {
    upstream.answer({ json: completion({ content: `stored ${SECRET}` }) })
    const stored = await client.chat.completions.retrieve('chatcmpl-1')
    expect(stored.choices[0]?.message.content).toBe('stored [REDACTED]')
    const list = await fetch(`${gateway.url}/v1/chat/completions`, {
      headers: { authorization: 'Bearer sk-test' },
    })
    expect(list.status).toBe(404)
    expect(((await list.json()) as { error: { message: string } }).error.message).toContain('model text')
  })
})
