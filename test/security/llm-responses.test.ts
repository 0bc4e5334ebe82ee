// Attacks on `warden llm` through OpenAI Responses, with the official `openai` client against
// a real gateway server and a scripted loopback model: a redacted secret riding in the
// synthetic frame of a stream (item 2); client-run calls (local shell, shell, custom tools,
// apply_patch) and upstream tools around tool.pre/tool.post (item 3); user texts and tool
// outputs that are not the last (item 4); logprobs, refusals and text split across parts
// (item 5); duplicate call ids (item 6); background answers fetched by id (item 7); and
// types Warden does not model, refused in the Responses error shape.

import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  deny,
  type Engine,
  type HookCall,
  type HookDefinition,
  type JsonObject,
  modify,
} from '../../src/core/index.js'
import {
  type LlmGateway,
  RESPONSES_TABLES,
  startLlmGateway,
  unknownTypePolicy,
} from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import {
  message,
  type ResponsesServer,
  startResponsesServer,
  streamOf,
} from '../gateway/responses-upstream.js'

const SECRET = 'sk-live0123456789'
const seen: { event: string; payload: JsonObject }[] = []

const HOOKS: HookDefinition[] = [
  {
    name: 'no-forbidden',
    event: 'user.message',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        seen.push({ event: 'user.message', payload: event.payload })
        return String((event.payload.message as JsonObject).text).includes('forbidden')
          ? deny('that topic is off limits')
          : undefined
      },
    },
  },
  {
    name: 'no-rm-rf',
    event: 'tool.pre',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        seen.push({ event: 'tool.pre', payload: event.payload })
        return JSON.stringify((event.payload.tool as JsonObject).input).includes('rm -rf')
          ? deny('rm -rf is never allowed')
          : undefined
      },
    },
  },
  {
    name: 'redact-passwords',
    event: 'tool.post',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const tool = event.payload.tool as JsonObject
        return JSON.stringify(tool.output).includes('password=')
          ? modify({ tool: { ...tool, output: 'password=[REDACTED]' } })
          : undefined
      },
    },
  },
  {
    name: 'report',
    event: 'model.post',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        seen.push({ event: 'model.post', payload: event.payload })
        return undefined
      },
    },
  },
  {
    name: 'redact-keys',
    event: 'agent.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const message = event.payload.message as JsonObject
        const text = String(message.text)
        if (text.includes('TOP SECRET')) return deny('the answer discloses a secret')
        const redacted = text.replace(/sk-[A-Za-z0-9]{8,}/g, '[REDACTED]')
        return redacted === text ? undefined : modify({ message: { ...message, text: redacted } })
      },
    },
  },
]

describe('warden llm under attack through OpenAI Responses', () => {
  let upstream: ResponsesServer
  let gateway: LlmGateway
  let engine: Engine
  let client: OpenAI
  const letThrough: string[] = []

  beforeAll(async () => {
    upstream = await startResponsesServer()
    engine = buildEngine(undefined, { extraHooks: HOOKS })
    gateway = await startLlmGateway({
      engine,
      upstream: new URL(upstream.url),
      limits: { checkEveryChars: 4, holdBackChars: 24, maxTextChars: 4096 },
      unknownTypes: unknownTypePolicy(
        'llm.allowUnknownTypes',
        ['openai.responses/output/tool_search_call'],
        RESPONSES_TABLES,
        (key) => letThrough.push(key),
      ),
    })
    client = new OpenAI({ baseURL: new URL('/v1', gateway.url).href, apiKey: 'sk-agent', maxRetries: 0 })
  })

  afterAll(async () => {
    await gateway?.close()
    await upstream?.close()
    await engine?.close()
  })

  const rawStream = async (body: Record<string, unknown>) => {
    const response = await fetch(new URL('/v1/responses', gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-agent' },
      body: JSON.stringify({ model: 'gpt-test', stream: true, ...body }),
    })
    return response.text()
  }

  it('item 2: the synthetic frame at output_text.done never carries the original text', async () => {
    const at = { output_index: 0, content_index: 0, item_id: 'msg_1' }
    upstream.script([
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
    const raw = await rawStream({ input: 'the key?' })
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
    upstream.script([{ output: calls }])
    seen.length = 0
    const answer = await client.responses.create({
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
    upstream.script([
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
    const raw = await rawStream({ input: 'go', tools: [{ type: 'custom', name: 'exec' }] })
    expect(raw).toContain('Warden blocked the tool call exec')
    expect(raw).not.toContain('/data')
  })

  it('item 3: upstream tools Warden cannot see first are refused; an approved MCP call’s result is redacted', async () => {
    const refused = client.responses.create({
      model: 'gpt-test',
      input: 'run it',
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
    })
    await expect(refused).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('code_interpreter'),
    })
    const mcp = client.responses.create({
      model: 'gpt-test',
      input: 'read it',
      tools: [{ type: 'mcp', server_label: 'files', server_url: 'https://mcp.example/' }],
    })
    await expect(mcp).rejects.toMatchObject({ status: 400, message: expect.stringContaining('mcp.auto') })
    upstream.script([
      {
        output: [
          {
            type: 'mcp_call',
            id: 'mcp_1',
            name: 'read',
            server_label: 'files',
            arguments: '{}',
            output: 'password=hunter2',
          },
        ],
      },
    ])
    const answer = await client.responses.create({
      model: 'gpt-test',
      input: 'read it',
      tools: [
        {
          type: 'mcp',
          server_label: 'files',
          server_url: 'https://mcp.example/',
          require_approval: 'always',
        },
      ],
    })
    expect(JSON.stringify(answer.output)).not.toContain('hunter2')
    expect(JSON.stringify(answer.output)).toContain('password=[REDACTED]')
    const mcpTool = {
      type: 'mcp',
      server_label: 'files',
      server_url: 'https://mcp.example/',
      require_approval: 'always',
    } as const
    const blind = client.responses.create({
      model: 'gpt-test',
      previous_response_id: 'resp_0',
      tools: [mcpTool],
      input: [{ type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true }],
    })
    await expect(blind).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('mcp_approval_request'),
    })
    const blocked = client.responses.create({
      model: 'gpt-test',
      tools: [mcpTool],
      input: [
        {
          type: 'mcp_approval_request',
          id: 'mcpr_1',
          name: 'exec',
          server_label: 'files',
          arguments: '{"command":"rm -rf /"}',
        },
        { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true },
      ],
    })
    await expect(blocked).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('rm -rf is never allowed'),
    })
  })

  it('item 4: every user text and tool output is checked, not only the last', async () => {
    upstream.script([{ output: [message('fine')] }])
    const earlier = client.responses.create({
      model: 'gpt-test',
      input: [
        { role: 'user', content: 'a forbidden question' },
        { role: 'user', content: 'an innocent one' },
      ],
    })
    await expect(earlier).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('off limits'),
    })
    const file = client.responses.create({
      model: 'gpt-test',
      input: [
        {
          role: 'user',
          content: [
            {
              type: 'input_file',
              filename: 'a.txt',
              file_data: `data:text/plain;base64,${Buffer.from('forbidden plans').toString('base64')}`,
            },
            { type: 'input_text', text: 'summarise' },
          ],
        },
      ],
    })
    await expect(file).rejects.toMatchObject({ status: 403 })
    const disguised = client.responses.create({
      model: 'gpt-test',
      input: [{ role: 'user', content: [{ type: 'output_text', text: 'forbidden', annotations: [] }] }],
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
    await expect(disguised).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('output_text'),
    })
    const prompt = client.responses.create({
      model: 'gpt-test',
      prompt: { id: 'pmpt_1', variables: { topic: 'the forbidden plans' } },
    })
    await expect(prompt).rejects.toMatchObject({ status: 403 })
    const before = upstream.requests.length
    await client.responses.create({
      model: 'gpt-test',
      input: [
        { type: 'custom_tool_call', call_id: 'c1', name: 'exec', input: 'cat .env' },
        { type: 'custom_tool_call_output', call_id: 'c1', output: 'password=one' },
        {
          type: 'local_shell_call',
          id: 'ls',
          call_id: 'c2',
          status: 'completed',
          action: { type: 'exec', command: ['env'], env: {} },
        },
        { type: 'local_shell_call_output', id: 'c2', output: 'password=two' },
        { role: 'user', content: 'thanks' },
      ],
    })
    expect(upstream.requests.length).toBe(before + 1)
    const sent = JSON.stringify(upstream.requests.at(-1)?.body)
    expect(sent).not.toContain('password=one')
    expect(sent).not.toContain('password=two')
  })

  it('item 5: logprobs are removed, refusals checked, and text split across parts checked joined', async () => {
    upstream.script([
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
    const first = await client.responses.create({ model: 'gpt-test', input: 'a' })
    expect(JSON.stringify(first)).not.toContain(SECRET)
    await expect(client.responses.create({ model: 'gpt-test', input: 'b' })).rejects.toMatchObject({
      status: 403,
    })
    const split = await client.responses.create({ model: 'gpt-test', input: 'c' })
    expect(JSON.stringify(split.output)).not.toContain('sk-live01')
  })

  it('item 6: a second call reusing a blocked call’s id is judged by its own position', async () => {
    upstream.script([
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
    const answer = await client.responses.create({ model: 'gpt-test', input: 'x' })
    expect(JSON.stringify(answer.output)).not.toContain('rm -rf /')
    expect(answer.output.map((item) => item.type)).toEqual(['message', 'function_call'])
  })

  it('item 7: background is refused, and an answer fetched by id is checked', async () => {
    await expect(
      client.responses.create({ model: 'gpt-test', input: 'x', background: true }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('background') })
    upstream.script([{ output: [message(`stored ${SECRET}`)] }])
    const stored = await client.responses.retrieve('resp_1')
    expect(JSON.stringify(stored)).toContain('[REDACTED]')
    expect(JSON.stringify(stored)).not.toContain(SECRET)
    expect(upstream.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/responses/resp_1' })
    const streamed = await fetch(new URL('/v1/responses/resp_1?stream=true', gateway.url))
    expect(streamed.status).toBe(400)
    expect(((await streamed.json()) as { error: { message: string } }).error.message).toContain('stream=true')
  })

  it('refuses types it does not model in the Responses shape, and lets a named one through', async () => {
    upstream.script([{ output: [{ type: 'hologram_call', id: 'h1', payload: SECRET }] }])
    const unknown = client.responses.create({ model: 'gpt-test', input: 'x' })
    await expect(unknown).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('"hologram_call"'),
    })
    const input = client.responses.create({
      model: 'gpt-test',
      input: [{ type: 'item_reference', id: 'msg_old' }],
    })
    await expect(input).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('item_reference'),
    })
    upstream.script([{ events: streamOf([{ type: 'response.hologram.delta', delta: SECRET }], []) }])
    const raw = await rawStream({ input: 'x' })
    expect(raw).toContain('event: error')
    expect(raw).toContain('response.hologram.delta')
    expect(raw).not.toContain(SECRET)
    upstream.script([
      { output: [{ type: 'tool_search_call', id: 't1', status: 'completed' }, message('ok')] },
    ])
    const through = await client.responses.create({ model: 'gpt-test', input: 'x' })
    expect(through.output[0]?.type).toBe('tool_search_call')
    expect(letThrough).toContain('openai.responses/output/tool_search_call')
    await engine.drain()
    const reported = seen.filter((s) => s.event === 'model.post').map((s) => s.payload.model as JsonObject)
    expect(reported.at(-1)?.unknownTypesLetThrough).toEqual(['openai.responses/output/tool_search_call'])
  })

  it('the official client streaming a Responses answer raises Warden’s error for an unmodelled event', async () => {
    upstream.script([{ events: streamOf([{ type: 'response.hologram.delta', delta: 'x' }], []) }])
    const run = async () => {
      const stream = await client.responses.create({ model: 'gpt-test', input: 'x', stream: true })
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
    upstream.script([
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
    const raw = await rawStream({ input: 'x' })
    expect(raw).toContain('llm.stream.maxTextChars')
    expect(raw.split('"delta"').length).toBeLessThan(100)
  })
})
