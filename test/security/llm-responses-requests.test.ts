// Attacks on `warden llm` through OpenAI Responses requests and stored answers, with the
// official `openai` client against a real gateway server and a scripted loopback model:
// upstream tools Warden cannot see first and MCP approvals (item 3); user texts and tool
// outputs that are not the last (item 4); background answers fetched by id (item 7); and
// types Warden does not model, refused in the Responses shape or let through by name.

import type OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { message, streamOf } from '../gateway/responses-upstream.js'
import { type ResponsesGateway, SECRET, seen, startResponsesGateway } from './responses-gateway.js'

describe('warden llm under attack through OpenAI Responses requests', () => {
  let g: ResponsesGateway

  beforeAll(async () => {
    g = await startResponsesGateway()
  })

  afterAll(async () => {
    await g?.close()
  })

  it('item 3: upstream tools Warden cannot see first are refused; an approved MCP call’s result is redacted', async () => {
    const refused = g.client.responses.create({
      model: 'gpt-test',
      input: 'run it',
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
    })
    await expect(refused).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('code_interpreter'),
    })
    const mcp = g.client.responses.create({
      model: 'gpt-test',
      input: 'read it',
      tools: [{ type: 'mcp', server_label: 'files', server_url: 'https://mcp.example/' }],
    })
    await expect(mcp).rejects.toMatchObject({ status: 400, message: expect.stringContaining('mcp.auto') })
    g.upstream.script([
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
    const answer = await g.client.responses.create({
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
    const blind = g.client.responses.create({
      model: 'gpt-test',
      previous_response_id: 'resp_0',
      tools: [mcpTool],
      input: [{ type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true }],
    })
    await expect(blind).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('mcp_approval_request'),
    })
    const blocked = g.client.responses.create({
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
    g.upstream.script([{ output: [message('fine')] }])
    const earlier = g.client.responses.create({
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
    const file = g.client.responses.create({
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
    const disguised = g.client.responses.create({
      model: 'gpt-test',
      input: [{ role: 'user', content: [{ type: 'output_text', text: 'forbidden', annotations: [] }] }],
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
    await expect(disguised).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('output_text'),
    })
    const prompt = g.client.responses.create({
      model: 'gpt-test',
      prompt: { id: 'pmpt_1', variables: { topic: 'the forbidden plans' } },
    })
    await expect(prompt).rejects.toMatchObject({ status: 403 })
    const before = g.upstream.requests.length
    await g.client.responses.create({
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
    expect(g.upstream.requests.length).toBe(before + 1)
    const sent = JSON.stringify(g.upstream.requests.at(-1)?.body)
    expect(sent).not.toContain('password=one')
    expect(sent).not.toContain('password=two')
  })

  it('item 7: background is refused, and an answer fetched by id is checked', async () => {
    await expect(
      g.client.responses.create({ model: 'gpt-test', input: 'x', background: true }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('background') })
    g.upstream.script([{ output: [message(`stored ${SECRET}`)] }])
    const stored = await g.client.responses.retrieve('resp_1')
    expect(JSON.stringify(stored)).toContain('[REDACTED]')
    expect(JSON.stringify(stored)).not.toContain(SECRET)
    expect(g.upstream.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/responses/resp_1' })
    const streamed = await fetch(new URL('/v1/responses/resp_1?stream=true', g.gateway.url))
    expect(streamed.status).toBe(400)
    expect(((await streamed.json()) as { error: { message: string } }).error.message).toContain('stream=true')
  })

  it('refuses types it does not model in the Responses shape, and lets a named one through', async () => {
    g.upstream.script([{ output: [{ type: 'hologram_call', id: 'h1', payload: SECRET }] }])
    const unknown = g.client.responses.create({ model: 'gpt-test', input: 'x' })
    await expect(unknown).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('"hologram_call"'),
    })
    const input = g.client.responses.create({
      model: 'gpt-test',
      input: [{ type: 'item_reference', id: 'msg_old' }],
    })
    await expect(input).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('item_reference'),
    })
    g.upstream.script([{ events: streamOf([{ type: 'response.hologram.delta', delta: SECRET }], []) }])
    const raw = await g.rawStream({ input: 'x' })
    expect(raw).toContain('event: error')
    expect(raw).toContain('response.hologram.delta')
    expect(raw).not.toContain(SECRET)
    g.upstream.script([
      { output: [{ type: 'tool_search_call', id: 't1', status: 'completed' }, message('ok')] },
    ])
    const through = await g.client.responses.create({ model: 'gpt-test', input: 'x' })
    expect(through.output[0]?.type).toBe('tool_search_call')
    expect(g.letThrough).toContain('openai.responses/output/tool_search_call')
    await g.engine.drain()
    const reported = seen.filter((s) => s.event === 'model.post').map((s) => s.payload.model as JsonObject)
    expect(reported.at(-1)?.unknownTypesLetThrough).toEqual(['openai.responses/output/tool_search_call'])
  })
})
