// The response encoder gives exactly what JSON.stringify gives, for decisions made by a
// real engine (plain trace entries, skipped ones, failures, policies, modify) as well as
// errors, batches and trace entries it does not write itself.

import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import { createAosService, encodeReply } from '../../src/protocols/index.js'

const request = (id: string | number, content: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'steps/toolCallRequest',
  params: {
    toolCallRequest: {
      executionId: `exec-${id}`,
      toolId: 'send_sms',
      inputs: [{ name: 'content', value: content }],
    },
    context: { user: { organization: { id: 'acme' } } },
  },
})

function service() {
  const engine = createEngine({
    hooks: [
      {
        name: 'plain',
        event: 'tool.pre',
        priority: 1,
        handler: { type: 'fn', fn: () => ({ decision: 'allow' }) },
      },
      {
        name: 'odd.name@x/y:z',
        event: 'tool.pre',
        priority: 2,
        version: 3,
        handler: { type: 'fn', fn: () => undefined },
      },
      {
        name: 'matcher',
        event: 'tool.pre',
        matcher: '^exec$',
        priority: 3,
        handler: { type: 'fn', fn: () => undefined },
      },
      {
        name: 'policy',
        event: 'tool.pre',
        priority: 4,
        policy: { id: 'no-secrets', version: '2' },
        handler: { type: 'fn', fn: () => ({ decision: 'allow', reason: 'fine' }) },
      },
      {
        name: 'broken',
        event: 'tool.pre',
        priority: 5,
        onError: 'allow',
        handler: {
          type: 'fn',
          fn: () => {
            throw new Error('boom')
          },
        },
      },
      {
        name: 'rewrite',
        event: 'tool.pre',
        priority: 6,
        if: "tool_input.content == 'rewrite me'",
        handler: {
          type: 'fn',
          fn: () => ({
            decision: 'modify',
            payload: { tool: { name: 'send_sms', input: { content: 'done' } } },
          }),
        },
      },
      {
        name: 'deny',
        event: 'tool.pre',
        priority: 7,
        if: "tool_input.content == 'deny me'",
        handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'no "way"' }) },
      },
    ],
  })
  return createAosService({ engine })
}

describe('encodeReply', () => {
  it('writes decisions exactly as JSON.stringify does', async () => {
    const aos = service()
    for (const [id, content] of [
      ['a', 'hello'],
      [7, 'rewrite me'],
      ['c', 'deny me'],
    ] as const) {
      const reply = await aos.handle(request(id, content), {})
      const trace = (reply as { result: { data: { trace: { outcome: string }[] } } }).result.data.trace
      expect(trace.length).toBe(7)
      expect(encodeReply(reply)).toBe(JSON.stringify(reply))
    }
  })

  it('writes errors, batches and empty replies as JSON.stringify does', async () => {
    const aos = service()
    const replies = [
      await aos.handle({ jsonrpc: '2.0', id: 1, method: 'nope', params: {} }, {}),
      await aos.handle([request('x', 'hello'), { jsonrpc: '1.0', id: 2 }], {}),
      await aos.handleBody(new TextEncoder().encode('{not json'), {}),
      { jsonrpc: '2.0', id: 3, result: { decision: 'allow', data: 'not an object' } },
      {
        jsonrpc: '2.0',
        id: 4,
        result: { decision: 'allow', data: { trace: 'not a list', skip: undefined } },
      },
    ]
    for (const reply of replies) expect(encodeReply(reply)).toBe(JSON.stringify(reply))
  })

  it('writes trace entries with other members, or odd values, as JSON.stringify does', () => {
    const entry = { hook: 'h', handler: 'fn', version: 1, outcome: 'allow', durationMs: 0.5 }
    const trace = [
      entry,
      { ...entry, extra: true },
      { ...entry, durationMs: Number.NaN },
      { ...entry, outcome: 'new "kind"' },
      { ...entry, handler: 'other' },
      { ...entry, version: 2 },
      { ...entry, hook: 'with "quotes" \u2603' },
      null,
      'text',
    ]
    const reply = { jsonrpc: '2.0', id: 'r', result: { decision: 'allow', data: { decisionId: 'd', trace } } }
    expect(encodeReply(reply)).toBe(JSON.stringify(reply))
  })
})
