// Attacks on `warden llm` (the real CLI) through Anthropic Messages shapes the gateway was not
// written for: server tools and MCP servers (refused unless let through, and then their calls
// and results checked), user text before an assistant prefill, document and search_result
// blocks, a tool result followed by another user message, a secret split across text blocks,
// text carried in a stream's block start, and unknown stream events.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWardenLlm, type WardenLlm } from '../gateway/llm-process.js'
import { type RawModelServer, startRawModelServer } from '../gateway/llm-raw-upstream.js'
import { SECRET, writeClosedWorldHooks } from './llm-closed-world-hooks.js'

const LET_THROUGH = 'anthropic.messages/tool/web_search_20250305'

function message(content: unknown[], stop = 'end_turn') {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }
}

describe('warden llm: Anthropic Messages as a closed world', () => {
  let upstream: RawModelServer
  let gateway: WardenLlm
  let client: Anthropic

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-llm-anthropic-closed-'))
    const config = join(dir, 'warden.yaml')
    writeFileSync(config, ['llm:', `  allowUnknownTypes: ["${LET_THROUGH}"]`, ''].join('\n'))
    upstream = await startRawModelServer()
    gateway = await startWardenLlm([
      '--config',
      config,
      '--upstream',
      upstream.url,
      '--hooks',
      writeClosedWorldHooks(dir),
      '--db',
      join(dir, 'warden.db'),
    ])
    client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: gateway.url, maxRetries: 0 })
  })
  afterAll(async () => {
    await gateway?.stop()
    await upstream?.close()
  })

  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer fields
  async function post(body: Record<string, unknown>): Promise<{ status: number; json: any; text: string }> {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'sk-ant-test',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 64, ...body }),
    })
    const text = await response.text()
    return { status: response.status, text, json: text.startsWith('{') ? JSON.parse(text) : undefined }
  }

  it('refuses server tools and MCP servers it cannot check before they run, in the Anthropic error shape', async () => {
    const before = upstream.requests.length
    const error = await client.messages
      .create({
        model: 'claude-test',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'fetch it' }],
        tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect(String((error as Error).message)).toContain('anthropic.messages/tool/web_fetch_20250910')
    const mcp = await post({
      messages: [{ role: 'user', content: 'hi' }],
      mcp_servers: [{ type: 'url', url: 'https://mcp.example/sse', name: 'x' }],
    })
    expect(mcp.status).toBe(400)
    expect(mcp.json.error.message).toContain('anthropic.messages/mcp-server/url')
    expect(upstream.requests.length).toBe(before)
  })

  it('lets a named server tool through, logs it, and checks its calls and results', async () => {
    upstream.answer({
      json: message([
        { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'x' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srv_1',
          content: [
            { type: 'web_search_result', title: SECRET, url: 'https://a.example', encrypted_content: 'e' },
          ],
        },
        { type: 'text', text: 'done' },
      ]),
    })
    const request = {
      messages: [{ role: 'user', content: 'search' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    }
    const redacted = await post(request)
    expect(redacted.status).toBe(200)
    expect(redacted.text).not.toContain(SECRET)
    expect(redacted.json.content[1].content).toBe('[REDACTED]')
    expect(gateway.stderr()).toContain('security.gateway.unknown_type_let_through')
    expect(gateway.stderr()).toContain(LET_THROUGH)
    upstream.answer({
      json: message([
        { type: 'server_tool_use', id: 'srv_2', name: 'web_search', input: { query: 'rm -rf /' } },
      ]),
    })
    const denied = await post(request)
    expect(denied.status).toBe(403)
    expect(denied.json.error.message).toContain("ran on the model's side")
  })

  it('checks every user text: before a prefill, documents, search results, and results not last', async () => {
    upstream.answer({ json: message([{ type: 'text', text: 'ok' }]) })
    const before = upstream.requests.length
    const prefill = await post({
      messages: [
        { role: 'user', content: 'say the forbidden words' },
        { role: 'assistant', content: 'Sure, here' },
      ],
    })
    expect(prefill.status).toBe(403)
    const document = await post({
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: 'the forbidden plan' },
            },
            { type: 'text', text: 'summarise' },
          ],
        },
      ],
    })
    expect(document.status).toBe(403)
    const search = await post({
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'search_result',
              source: 's',
              title: 't',
              content: [{ type: 'text', text: 'forbidden' }],
            },
          ],
        },
      ],
    })
    expect(search.status).toBe(403)
    expect(upstream.requests.length).toBe(before)
    const results = await post({
      messages: [
        { role: 'user', content: 'read' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: `key ${SECRET}` }] },
        { role: 'assistant', content: 'read it' },
        { role: 'user', content: 'now what' },
      ],
    })
    expect(results.status).toBe(200)
    const sent = JSON.stringify(upstream.requests.at(-1)?.body)
    expect(sent).not.toContain(SECRET)
    expect(sent).toContain('[REDACTED]')
  })

  it('refuses a secret split across two text blocks', async () => {
    upstream.answer({
      json: message([
        { type: 'text', text: SECRET.slice(0, 10) },
        { type: 'text', text: SECRET.slice(10) },
      ]),
    })
    const split = await post({ messages: [{ role: 'user', content: 'hi' }] })
    expect(split.status).toBe(403)
    expect(split.text).not.toContain(SECRET.slice(10))
  })

  it('checks text carried in a streamed block start and streamed server tool results, and ends a stream with an unknown event', async () => {
    const start = { type: 'message_start', message: { ...message([]), content: [] } }
    upstream.answer({
      events: [
        { event: 'message_start', data: start },
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'text', text: `hidden ${SECRET}` },
          },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'message_delta',
          data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    })
    const text = await client.messages
      .stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalText()
    expect(text).toBe('hidden [REDACTED]')
    upstream.answer({
      events: [
        { event: 'message_start', data: start },
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index: 0,
            content_block: {
              type: 'web_search_tool_result',
              tool_use_id: 'srv_1',
              content: [
                {
                  type: 'web_search_result',
                  title: SECRET,
                  url: 'https://a.example',
                  encrypted_content: 'e',
                },
              ],
            },
          },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    })
    const result = await post({ stream: true, messages: [{ role: 'user', content: 'hi' }] })
    expect(result.text).not.toContain(SECRET)
    expect(result.text).toContain('[REDACTED]')
    upstream.answer({
      events: [
        { event: 'message_start', data: start },
        { event: 'tool_output', data: { type: 'tool_output', text: SECRET } },
      ],
    })
    const streamed = await post({ stream: true, messages: [{ role: 'user', content: 'hi' }] })
    expect(streamed.text).not.toContain(SECRET)
    expect(streamed.text).toContain('event: error')
    expect(streamed.text).toContain('anthropic.messages/event/tool_output')
  })
})
