// Requests for every AOS method in a shape valid under both AOS schemas, so modify answers
// (which echo the request) validate too; and a redaction used as the standard modify.

import type { JsonObject } from '../../src/core/index.js'

/** A StepContext valid under both schema versions (agent.url, identity, tools listed). */
export const FULL_CONTEXT: JsonObject = {
  agent: {
    id: 'agent-1',
    name: 'Assistant',
    url: 'https://agent.example/a1',
    instructions: 'Be helpful.',
    version: '1.0.0',
    provider: { name: 'Acme', url: 'https://acme.example' },
    identity: { signatures: [] },
    tools: [{ id: 'tool-sms', name: 'send_sms', type: 'function', arguments: null, outputs: null }],
  },
  session: { id: 'session-1' },
  turnId: 'turn-1',
  stepId: 'step-1',
  timestamp: '2025-01-24T15:30:45.123Z',
  identity: { signatures: [] },
  user: { id: 'user-1', organization: { id: 'org-from-body' } },
}

const A2A_CONTEXT: JsonObject = {
  from: { agent: { name: 'Client agent', url: 'https://client.example' }, role: 'client' },
  to: { agent: { name: 'Server agent', url: 'https://server.example' }, role: 'server' },
}

function a2a(method: string, params: JsonObject): JsonObject {
  return { payload: { jsonrpc: '2.0', id: 7, method, params }, context: A2A_CONTEXT }
}

/** One request per AOS method (steps/message once per role), with "secret" in what hooks judge. */
export const METHOD_CASES: { name: string; method: string; event: string; params: JsonObject }[] = [
  {
    name: 'steps/agentTrigger',
    method: 'steps/agentTrigger',
    event: 'agent.trigger',
    params: {
      trigger: {
        type: 'autonomous',
        content: [{ kind: 'text', text: 'mail: secret code' }],
        event: { type: 'email', id: 'ev-1' },
      },
      context: FULL_CONTEXT,
    },
  },
  {
    name: 'steps/toolCallRequest',
    method: 'steps/toolCallRequest',
    event: 'tool.pre',
    params: {
      toolCallRequest: {
        executionId: 'exec-1',
        toolId: 'tool-sms',
        inputs: [
          { name: 'phone', value: '+1-555-0100' },
          { name: 'content', value: 'the secret is out' },
          { name: 'urgent', value: true, id: 'arg-3' },
        ],
      },
      reasoning: 'notify the user',
      context: FULL_CONTEXT,
    },
  },
  {
    name: 'steps/toolCallResult',
    method: 'steps/toolCallResult',
    event: 'tool.post',
    params: {
      toolCallResult: {
        executionId: 'exec-1',
        result: { outputs: [{ kind: 'text', text: 'sent the secret' }], isError: false },
      },
      context: FULL_CONTEXT,
    },
  },
  ...(['user', 'agent', 'system'] as const).map((role) => ({
    name: `steps/message (${role})`,
    method: 'steps/message',
    event: { user: 'user.message', agent: 'agent.response', system: 'system.message' }[role],
    params: {
      message: { role, id: `msg-${role}`, content: [{ kind: 'text', text: `a secret from ${role}` }] },
      context: FULL_CONTEXT,
    },
  })),
  {
    name: 'steps/memoryContextRetrieval',
    method: 'steps/memoryContextRetrieval',
    event: 'memory.retrieve',
    params: { memory: ['the secret account is 42'], context: FULL_CONTEXT },
  },
  {
    name: 'steps/memoryStore',
    method: 'steps/memoryStore',
    event: 'memory.store',
    params: { memory: ['remember the secret'], context: FULL_CONTEXT },
  },
  {
    name: 'steps/knowledgeRetrieval',
    method: 'steps/knowledgeRetrieval',
    event: 'knowledge.retrieve',
    params: {
      knowledgeStep: {
        query: 'accounts',
        keywords: ['bank'],
        results: [{ id: 'doc-1', content: 'secret ledger' }],
      },
      context: FULL_CONTEXT,
    },
  },
  {
    name: 'protocols/MCP request',
    method: 'protocols/MCP',
    event: 'mcp.outbound',
    params: {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'send_email', arguments: { body: 'a secret salary' } },
    },
  },
  {
    name: 'protocols/MCP response',
    method: 'protocols/MCP',
    event: 'mcp.inbound',
    params: {
      message: { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'secret slots' }] } },
    },
  },
  ...(
    [
      [
        'message/send',
        'a2a.send',
        { message: { role: 'agent', parts: [{ kind: 'text', text: 'a secret joke' }], messageId: 'm-1' } },
      ],
      [
        'message/stream',
        'a2a.stream',
        { message: { role: 'agent', parts: [{ kind: 'text', text: 'a secret story' }], messageId: 'm-2' } },
      ],
      ['tasks/cancel', 'a2a.cancel', { id: 'task-secret' }],
      ['tasks/get', 'a2a.get', { id: 'task-secret', historyLength: 2 }],
      ['tasks/pushNotificationConfig/get', 'a2a.pushConfig.get', { id: 'task-secret' }],
      [
        'tasks/pushNotificationConfig/set',
        'a2a.pushConfig.set',
        { taskId: 'task-1', pushNotificationConfig: { url: 'https://hooks.example/secret' } },
      ],
      ['tasks/resubscribe', 'a2a.resubscribe', { id: 'task-secret' }],
    ] as const
  ).map(([method, event, params]) => ({
    name: method,
    method,
    event,
    params: a2a(method, params as JsonObject),
  })),
]

/** Every string with "secret" in it, redacted: the standard modify of these tests. */
export function redact<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('secret', '[redacted]')) as T
}
