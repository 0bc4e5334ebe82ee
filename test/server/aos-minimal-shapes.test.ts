// Requests in the minimal shapes real agents send (step contexts with tools listed as just
// `{id, name, description}`, no `agent.url`, `identity`, `turnId`, ...; the step payloads
// themselves complete) for every AOS method Warden
// maps, answered modify: every answer, and every `modifiedRequest` on its own, must fit
// both AOS schemas — Warden fills what they require into the context it echoes. Also:
// params of the wrong type in an otherwise valid request object are -32602, not -32600.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HookCall, HookDefinition, JsonObject } from '../../src/core/index.js'
import { METHOD_CASES, redact } from './aos-fixtures.js'
import { expectValidRequest, requestFits, startGuardian, type TestGuardian } from './aos-helper.js'

const EVENTS = [...new Set(METHOD_CASES.map((c) => c.event))]

/** Tools as agents commonly list them: id, name and description only. */
const MINIMAL_TOOLS = [
  { id: 'tool-sms', name: 'send_sms', description: 'Sends a text message' },
  { id: 'tool-search', name: 'web_search', description: 'Searches the web' },
]

/** A StepContext with only what agents usually send. */
const MINIMAL_CONTEXT: JsonObject = {
  agent: { id: 'agent-1', name: 'Assistant', tools: MINIMAL_TOOLS },
  session: { id: 'session-1' },
}

/** The same with a user, timestamps and a tool whose arguments lack `required`. */
const SPARSE_CONTEXT: JsonObject = {
  agent: {
    id: 'agent-1',
    name: 'Assistant',
    tools: [
      ...MINIMAL_TOOLS,
      { name: 'lookup', arguments: [{ name: 'query', type: 'string' }, { id: 'limit' }] },
      { id: 'tool-only-id' },
    ],
  },
  session: { id: 'session-1' },
  turnId: 'turn-1',
  stepId: 'step-1',
  timestamp: '2025-01-24T15:30:45.123Z',
  user: { id: 'user-1' },
}

const A2A_CONTEXT: JsonObject = {
  from: { agent: { name: 'Client agent', url: 'https://client.example' }, role: 'client' },
  to: { agent: { name: 'Server agent' }, role: 'server' },
}

function a2a(method: string, payloadParams: JsonObject): [string, JsonObject] {
  return [method, { payload: { jsonrpc: '2.0', id: 7, method, params: payloadParams }, context: A2A_CONTEXT }]
}

function stepCases(context: JsonObject): [string, JsonObject][] {
  return [
    [
      'steps/agentTrigger',
      {
        trigger: {
          type: 'autonomous',
          content: [{ kind: 'text', text: 'mail: secret code' }],
          event: { type: 'email', id: 'ev-1' },
        },
        context,
      },
    ],
    [
      'steps/toolCallRequest',
      {
        toolCallRequest: {
          executionId: 'exec-1',
          toolId: 'tool-sms',
          inputs: [{ name: 'content', value: 'the secret is out' }],
        },
        context,
      },
    ],
    [
      'steps/toolCallResult',
      {
        toolCallResult: {
          executionId: 'exec-1',
          result: { outputs: [{ kind: 'text', text: 'sent the secret' }], isError: false },
        },
        context,
      },
    ],
    // The flat form of the spec prose.
    [
      'steps/toolCallResult',
      { executionId: 'exec-2', result: { outputs: [{ kind: 'text', text: 'a secret' }] }, context },
    ],
    ...(['user', 'agent', 'system'] as const).map((role): [string, JsonObject] => [
      'steps/message',
      {
        message: { role, id: `msg-${role}`, content: [{ kind: 'text', text: `a secret from ${role}` }] },
        context,
      },
    ]),
    ['steps/memoryContextRetrieval', { memory: ['the secret account is 42'], context }],
    ['steps/memoryStore', { memory: ['remember the secret'], context }],
    [
      'steps/knowledgeRetrieval',
      { knowledgeStep: { query: 'accounts', results: [{ id: 'doc-1', content: 'secret ledger' }] }, context },
    ],
  ]
}

/** Every method Warden maps, each in a minimal shape, with "secret" in what hooks judge. */
const CASES: [string, JsonObject][] = [
  ...stepCases(MINIMAL_CONTEXT),
  ...stepCases(SPARSE_CONTEXT),
  [
    'protocols/MCP',
    {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'send_email', arguments: { body: 'a secret salary' } },
    },
  ],
  [
    'protocols/MCP',
    { message: { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'secret slots' }] } } },
  ],
  a2a('message/send', {
    message: { role: 'user', parts: [{ kind: 'text', text: 'a secret joke' }], messageId: 'm-1' },
  }),
  a2a('message/stream', {
    message: { role: 'user', parts: [{ kind: 'text', text: 'a secret story' }], messageId: 'm-2' },
  }),
  a2a('tasks/cancel', { id: 'task-secret' }),
  a2a('tasks/get', { id: 'task-secret' }),
  a2a('tasks/pushNotificationConfig/get', { id: 'task-secret' }),
  a2a('tasks/pushNotificationConfig/set', {
    taskId: 'task-1',
    pushNotificationConfig: { url: 'https://hooks.example/secret' },
  }),
  a2a('tasks/resubscribe', { id: 'task-secret' }),
]

const hooks: HookDefinition[] = EVENTS.map((event) => ({
  name: `redact-${event}`,
  event,
  handler: {
    type: 'fn',
    fn: (call: HookCall) => ({ decision: 'modify', payload: redact(call.event.payload) }),
  },
}))

let guardian: TestGuardian
beforeAll(async () => {
  guardian = await startGuardian({ hooks })
})
afterAll(async () => {
  await guardian.close()
})

describe('minimal request shapes', () => {
  it('covers every method Warden maps', () => {
    const methods = new Set(CASES.map(([method]) => method))
    expect([...methods].sort()).toEqual([...new Set(METHOD_CASES.map((c) => c.method))].sort())
  })

  it('sends step contexts that do not fit the schemas on their own', () => {
    for (const [method, params] of CASES) {
      if (method.startsWith('steps/'))
        expect(requestFits({ jsonrpc: '2.0', id: 1, method, params })).toEqual([])
    }
  })

  CASES.forEach(([method, params], i) => {
    it(`${method} #${i}: answers modify with a modifiedRequest both schemas accept`, async () => {
      const request = { jsonrpc: '2.0', id: `min-${i}`, method, params }
      // post() validates the whole answer against ASOPResponse of both schemas.
      const answer = await guardian.post(request)
      const result = answer.body.result
      expect(result?.decision, JSON.stringify(answer.body.error)).toBe('modify')
      const modified = result.modifiedRequest
      expect(modified).toMatchObject({ jsonrpc: '2.0', id: request.id, method })
      expectValidRequest(modified)
      expect(JSON.stringify(modified)).not.toContain('secret')
      if (method.startsWith('steps/')) {
        const context = params.context as { agent: { tools: JsonObject[] } }
        const tools = modified.params.context.agent.tools as JsonObject[]
        // What the caller sent is kept; only what the schemas require is added.
        expect(tools).toHaveLength(context.agent.tools.length)
        context.agent.tools.forEach((sent, t) => {
          expect(tools[t]).toMatchObject(sent)
        })
      }
    })
  })

  it('fills tool definitions with neutral defaults and keeps what was sent', async () => {
    const [method, params] = CASES.find(([m]) => m === 'steps/toolCallRequest') as [string, JsonObject]
    const answer = await guardian.post({
      jsonrpc: '2.0',
      id: 'tools',
      method,
      params: { ...params, context: SPARSE_CONTEXT },
    })
    const tools = answer.body.result.modifiedRequest.params.context.agent.tools
    expect(tools).toEqual([
      { ...MINIMAL_TOOLS[0], type: '', arguments: null, outputs: null },
      { ...MINIMAL_TOOLS[1], type: '', arguments: null, outputs: null },
      {
        id: 'lookup',
        name: 'lookup',
        type: '',
        arguments: [
          { name: 'query', type: 'string', required: false },
          { name: 'limit', id: 'limit', required: false },
        ],
        outputs: null,
      },
      { id: 'tool-only-id', name: 'tool-only-id', type: '', arguments: null, outputs: null },
    ])
  })
})

describe('params of the wrong type', () => {
  const WRONG: [string, unknown][] = [
    ['a string', 'x'],
    ['a number', 42],
    ['a boolean', true],
    ['an array', [1, 2]],
    ['an empty array', []],
  ]
  for (const method of ['steps/toolCallRequest', 'steps/message', 'protocols/MCP', 'message/send', 'ping']) {
    for (const [what, params] of WRONG) {
      it(`${method} with params ${what} → -32602 naming params`, async () => {
        const answer = await guardian.post({ jsonrpc: '2.0', id: 1, method, params })
        expect(answer.body).toMatchObject({
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32602, data: { field: 'params', reason: expect.any(String) } },
        })
      })
    }
  }

  it('answers the exact request from the report with -32602', async () => {
    const answer = await guardian.post(
      '{"jsonrpc":"2.0","id":1,"method":"steps/toolCallRequest","params":"x"}',
    )
    expect(answer.body.error).toMatchObject({ code: -32602, data: { field: 'params' } })
    expect(answer.body.id).toBe(1)
  })

  it('keeps -32600 for messages that are not request objects, even with bad params', async () => {
    const cases: [unknown, string][] = [
      [{ id: 1, method: 'steps/toolCallRequest', params: 'x' }, 'jsonrpc'],
      [{ jsonrpc: '1.0', id: 1, method: 'steps/toolCallRequest', params: 'x' }, 'jsonrpc'],
      [{ jsonrpc: '2.0', id: 1.5, method: 'steps/toolCallRequest', params: 'x' }, 'id'],
      [{ jsonrpc: '2.0', id: { a: 1 }, method: 'steps/toolCallRequest', params: 'x' }, 'id'],
      [{ jsonrpc: '2.0', id: 1, params: 'x' }, 'method'],
      [{ jsonrpc: '2.0', id: 1, method: 7, params: [1] }, 'method'],
      ['x', 'request'],
    ]
    for (const [message, field] of cases) {
      const answer = await guardian.post(JSON.stringify(message))
      expect(answer.body.error, JSON.stringify(message)).toMatchObject({ code: -32600, data: { field } })
    }
  })

  it('answers each request of a batch with its own code', async () => {
    const answer = await guardian.post([
      { jsonrpc: '2.0', id: 'a', method: 'steps/message', params: 'x' },
      { jsonrpc: '2.0', id: 'b', method: 'steps/message', params: [] },
      { jsonrpc: '2.0', id: 'c', params: 'x' },
    ])
    expect(answer.body.map((r: { id: unknown; error: { code: number } }) => [r.id, r.error.code])).toEqual([
      ['a', -32602],
      ['b', -32602],
      ['c', -32600],
    ])
  })

  it('does not answer a notification whose params are of the wrong type', async () => {
    const single = await guardian.post({ jsonrpc: '2.0', method: 'steps/message', params: 'x' })
    expect(single.status).toBe(204)
    expect(single.body).toBeUndefined()
    const batch = await guardian.post([
      { jsonrpc: '2.0', method: 'steps/message', params: [1] },
      { jsonrpc: '2.0', id: 'd', method: 'steps/message', params: 3 },
    ])
    expect(batch.body).toHaveLength(1)
    expect(batch.body[0]).toMatchObject({ id: 'd', error: { code: -32602, data: { field: 'params' } } })
  })
})
