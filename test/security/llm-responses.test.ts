// Attacks on `warden llm` through OpenAI Responses answers, with the official `openai` client
// against a real gateway server and a scripted loopback model: a redacted secret riding in
// the synthetic frame of a stream (item 2); client-run calls (local shell, shell, custom
// tools, apply_patch), whole and streamed (item 3); logprobs, refusals and text split across
// parts (item 5); duplicate call ids (item 6); an unmodelled stream event raised by the
// client; and the streamed text cap (item 8).

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { message, streamOf } from '../gateway/responses-upstream.js'
import { type ResponsesGateway, SECRET, seen, startResponsesGateway } from './responses-gateway.js'

describe('warden llm under attack through OpenAI Responses answers', () => {
  let g: ResponsesGateway

  beforeAll(async () => {
    g = await startResponsesGateway()
  })

  afterAll(async () => {
    await g?.close()
  })

  it('item 2: the synthetic frame at output_text.done never carries the original text', async () => {
    const at = { output_index: 0, content_index: 0, item_id: 'msg_1' }
    g.upstream.script([
      {
        events: streamOf(
          [
            { type: 'response.output_item.added', output_index: 0, item: { ...message(), content: [] } },
            {
              type: 'response.content_part.added',
              ...at,
              part: { type: 'output_text', text: '', annotations: [] },
            },
            { type: 'response.output_text.delta', ...at, delta: `key ${SECRET.slice(0, 6)}` },
            { type: 'response.output_text.delta', ...at, delta: `${SECRET.slice(6)} ok` },
            { type: 'response.output_text.done', ...at, text: `key ${SECRET} ok` },
            {
              type: 'response.content_part.done',
              ...at,
              part: { type: 'output_text', text: `key ${SECRET} ok` },
            },
            { type: 'response.output_item.done', output_index: 0, item: message(`key ${SECRET} ok`) },
          ],
          [message(`key ${SECRET} ok`)],
        ),
      },
    ])
    const raw = await g.rawStream({ input: 'the key?' })
    expect(raw).toContain('[REDACTED]')
    expect(raw).not.toContain(SECRET)
    expect(raw).not.toContain(SECRET.slice(0, 8))
  })

  it('item 3: local shell, shell, custom tool and apply_patch calls go through tool.pre', async () => {
    const calls = [
      {
        type: 'local_shell_call',
        id: 'ls_1',
        call_id: 'c1',
        status: 'completed',
        action: { type: 'exec', command: ['bash', '-c', 'rm -rf /srv'], env: {} },
      },
      {
        type: 'shell_call',
        id: 'sh_1',
        call_id: 'c2',
        status: 'completed',
        action: { commands: ['rm -rf /home'], max_output_length: null, timeout_ms: null },
        environment: null,
      },
      { type: 'custom_tool_call', id: 'ct_1', call_id: 'c3', name: 'exec', input: 'rm -rf /var' },
      {
        type: 'apply_patch_call',
        id: 'ap_1',
        call_id: 'c4',
        status: 'completed',
        operation: { type: 'update_file', path: '/etc/passwd', diff: '+rm -rf /' },
      },
      { type: 'custom_tool_call', id: 'ct_2', call_id: 'c5', name: 'exec', input: 'ls -la' },
    ]
    g.upstream.script([{ output: calls }])
    seen.length = 0
    const answer = await g.client.responses.create({
      model: 'gpt-test',
      input: 'clean up',
      tools: [
        { type: 'local_shell' },
        { type: 'custom', name: 'exec' },
        { type: 'apply_patch' },
        { type: 'shell' },
      ],
    })
    const kinds = answer.output.map((item) => item.type)
    expect(kinds).toEqual(['message', 'message', 'message', 'message', 'custom_tool_call'])
    expect(JSON.stringify(answer.output)).not.toContain('rm -rf /srv')
    const inputs = seen.filter((s) => s.event === 'tool.pre').map((s) => (s.payload.tool as JsonObject).input)
    expect(inputs).toContainEqual(expect.objectContaining({ command: "bash -c 'rm -rf /srv'" }))
    expect(inputs).toContainEqual(expect.objectContaining({ path: '/etc/passwd', patch: '+rm -rf /' }))
  })

  it('item 3: a streamed custom tool call is held, deltas included, until tool.pre allows it', async () => {
    const call = { type: 'custom_tool_call', id: 'ct_1', call_id: 'c1', name: 'exec', input: '' }
    g.upstream.script([
      {
        events: streamOf(
          [
            { type: 'response.output_item.added', output_index: 0, item: call },
            {
              type: 'response.custom_tool_call_input.delta',
              output_index: 0,
              item_id: 'ct_1',
              delta: 'rm -r',
            },
            {
              type: 'response.custom_tool_call_input.delta',
              output_index: 0,
              item_id: 'ct_1',
              delta: 'f /data',
            },
            {
              type: 'response.custom_tool_call_input.done',
              output_index: 0,
              item_id: 'ct_1',
              input: 'rm -rf /data',
            },
            { type: 'response.output_item.done', output_index: 0, item: { ...call, input: 'rm -rf /data' } },
          ],
          [{ ...call, input: 'rm -rf /data' }],
        ),
      },
    ])
    const raw = await g.rawStream({ input: 'go', tools: [{ type: 'custom', name: 'exec' }] })
    expect(raw).toContain('Warden blocked the tool call exec')
    expect(raw).not.toContain('/data')
  })

  it('item 5: logprobs are removed, refusals checked, and text split across parts checked joined', async () => {
    g.upstream.script([
      {
        output: [
          {
            ...message(`token ${SECRET}`),
            content: [
              {
                type: 'output_text',
                text: `token ${SECRET}`,
                annotations: [],
                logprobs: [{ token: SECRET, bytes: [115], logprob: 0, top_logprobs: [] }],
              },
            ],
          },
        ],
      },
      { output: [{ ...message(), content: [{ type: 'refusal', refusal: 'no: TOP SECRET' }] }] },
      { output: [message('the key is sk-live01', '23456789 there')] },
    ])
    const first = await g.client.responses.create({ model: 'gpt-test', input: 'a' })
    expect(JSON.stringify(first)).not.toContain(SECRET)
    await expect(g.client.responses.create({ model: 'gpt-test', input: 'b' })).rejects.toMatchObject({
      status: 403,
    })
    const split = await g.client.responses.create({ model: 'gpt-test', input: 'c' })
    expect(JSON.stringify(split.output)).not.toContain('sk-live01')
  })

  it('item 6: a second call reusing a blocked call’s id is judged by its own position', async () => {
    g.upstream.script([
      {
        output: [
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'same',
            name: 'Bash',
            arguments: '{"command":"rm -rf /"}',
          },
          { type: 'function_call', id: 'fc_2', call_id: 'same', name: 'Bash', arguments: '{"command":"ls"}' },
        ],
      },
    ])
    const answer = await g.client.responses.create({ model: 'gpt-test', input: 'x' })
    expect(JSON.stringify(answer.output)).not.toContain('rm -rf /')
    expect(answer.output.map((item) => item.type)).toEqual(['message', 'function_call'])
  })

  it('the official client streaming a Responses answer raises Warden’s error for an unmodelled event', async () => {
    g.upstream.script([{ events: streamOf([{ type: 'response.hologram.delta', delta: 'x' }], []) }])
    const run = async () => {
      const stream = await g.client.responses.create({ model: 'gpt-test', input: 'x', stream: true })
      for await (const _event of stream) {
        // read until the error
      }
    }
    await expect(run()).rejects.toThrow(/response\.hologram\.delta/)
  })
  it('item 8: a streamed text past llm.stream.maxTextChars ends the stream naming the setting', async () => {
    const at = { output_index: 0, content_index: 0, item_id: 'msg_1' }
    const deltas = Array.from({ length: 100 }, () => ({
      type: 'response.output_text.delta',
      ...at,
      delta: 'x'.repeat(64),
    }))
    g.upstream.script([
      {
        events: streamOf(
          [
            { type: 'response.output_item.added', output_index: 0, item: { ...message(), content: [] } },
            ...deltas,
          ],
          [],
        ),
      },
    ])
    const raw = await g.rawStream({ input: 'x' })
    expect(raw).toContain('llm.stream.maxTextChars')
    expect(raw.split('"delta"').length).toBeLessThan(100)
  })
})
