// POST /aos end to end over real HTTP on loopback: every method answered allow, deny and
// modify (with a complete modifiedRequest), the tenant, batches and notifications, ask held
// until the approver answers, /healthz and the body cap. The spec's own examples are in
// aos-examples.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalAnswer, ApprovalRequest, HookCall, HookDefinition } from '../../src/core/index.js'
import { FULL_CONTEXT, METHOD_CASES, redact } from './aos-fixtures.js'
import { startGuardian, type TestGuardian } from './aos-helper.js'

const EVENTS = [...new Set(METHOD_CASES.map((c) => c.event))]
const calls: { event: string; tenant: unknown; payload: unknown }[] = []

/** One hook per event: decides by tenant — "deny", "modify" (redacts "secret"), else allow. */
function decideByTenant(call: HookCall) {
  calls.push({ event: call.event.event, tenant: call.event.context.tenantId, payload: call.event.payload })
  const tenant = call.event.context.tenantId
  if (tenant === 'deny') return { decision: 'deny', reason: `no ${call.event.event} today` }
  if (tenant === 'modify') return { decision: 'modify', payload: redact(call.event.payload) }
  return { decision: 'allow' }
}

const hooks: HookDefinition[] = EVENTS.map((event) => ({
  name: `judge-${event}`,
  event,
  policy: { id: 'policy-judge', version: '3' },
  handler: { type: 'fn', fn: decideByTenant },
}))

let guardian: TestGuardian
beforeAll(async () => {
  guardian = await startGuardian({ hooks })
})
afterAll(async () => {
  await guardian.close()
})

describe('every AOS method', () => {
  for (const testCase of METHOD_CASES) {
    it(`${testCase.name}: allow, deny and modify round-trip`, async () => {
      const request = {
        jsonrpc: '2.0',
        id: `req-${testCase.name}`,
        method: testCase.method,
        params: testCase.params,
      }
      calls.length = 0
      const allowed = await guardian.post(request, { 'X-Warden-Tenant': 'allow' })
      expect(allowed.status).toBe(200)
      expect(allowed.body.id).toBe(request.id)
      expect(allowed.body.result.decision).toBe('allow')
      expect(calls.map((c) => c.event)).toEqual([testCase.event])

      const denied = await guardian.post(request, { 'X-Warden-Tenant': 'deny' })
      expect(denied.body.result).toMatchObject({
        decision: 'deny',
        message: `no ${testCase.event} today`,
        reasonCode: ['policy-judge'],
        data: { policyId: 'policy-judge', policyVersion: '3', event: testCase.event },
      })
      expect(denied.body.result.data.trace[0]).toMatchObject({
        hook: `judge-${testCase.event}`,
        outcome: 'deny',
      })

      const modified = await guardian.post(request, { 'X-Warden-Tenant': 'modify' })
      expect(modified.body.result.decision).toBe('modify')
      expect(modified.body.result.modifiedRequest).toEqual({
        jsonrpc: '2.0',
        id: request.id,
        method: testCase.method,
        params: redact(testCase.params),
      })
    })
  }

  it('maps toolCallRequest inputs to tool.input by name, the tool name from agent.tools', async () => {
    calls.length = 0
    const request = METHOD_CASES.find((c) => c.method === 'steps/toolCallRequest')
    await guardian.post({ jsonrpc: '2.0', id: 1, method: 'steps/toolCallRequest', params: request?.params })
    expect(calls[0]?.payload).toMatchObject({
      tool: {
        name: 'send_sms',
        id: 'exec-1',
        input: { phone: '+1-555-0100', content: 'the secret is out', urgent: true },
      },
      reasoning: 'notify the user',
    })
    expect(calls[0]?.tenant).toBe('org-from-body')
  })

  it('puts changed inputs back in their original order and leaves the others untouched', async () => {
    const g = await startGuardian({
      hooks: [
        {
          name: 'rewrite',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: (call: HookCall) => {
              const { phone: _drop, ...rest } = (
                call.event.payload.tool as { input: Record<string, unknown> }
              ).input
              return { decision: 'modify', updatedInput: { ...rest, urgent: false, extra: 'new' } }
            },
          },
        },
      ],
    })
    try {
      const params = METHOD_CASES.find((c) => c.method === 'steps/toolCallRequest')?.params
      const answer = await g.post({ jsonrpc: '2.0', id: 9, method: 'steps/toolCallRequest', params })
      expect(answer.body.result.modifiedRequest.params.toolCallRequest.inputs).toEqual([
        { name: 'content', value: 'the secret is out' },
        { name: 'urgent', value: false, id: 'arg-3' },
        { name: 'extra', value: 'new' },
      ])
    } finally {
      await g.close()
    }
  })

  it('accepts toolCallResult in the flat form of the spec prose, answering in the schema form', async () => {
    const params = {
      executionId: 'exec-1',
      result: { outputs: [{ kind: 'text', text: 'a secret' }], isError: false },
      context: FULL_CONTEXT,
    }
    const answer = await guardian.post(
      { jsonrpc: '2.0', id: 'flat', method: 'steps/toolCallResult', params },
      { 'X-Warden-Tenant': 'modify' },
    )
    const { executionId, result, ...rest } = redact(params)
    expect(answer.body.result.modifiedRequest.params).toEqual({
      ...rest,
      toolCallResult: { executionId, result },
    })
  })

  it('lets matcher see the tool name of an MCP tools/call', async () => {
    const g = await startGuardian({
      hooks: [
        {
          name: 'no-email',
          event: 'mcp.outbound',
          matcher: '^send_email$',
          handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'no email' }) },
        },
      ],
    })
    try {
      const mcp = METHOD_CASES.find((c) => c.event === 'mcp.outbound')
      const denied = await g.post({ jsonrpc: '2.0', id: 1, method: 'protocols/MCP', params: mcp?.params })
      expect(denied.body.result.decision).toBe('deny')
      const other = {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'get_weather', arguments: {} },
      }
      const allowed = await g.post({
        jsonrpc: '2.0',
        id: 2,
        method: 'protocols/MCP',
        params: { message: other },
      })
      expect(allowed.body.result.decision).toBe('allow')
    } finally {
      await g.close()
    }
  })

  it('answers ping with status, version and timestamp', async () => {
    const answer = await guardian.post({
      jsonrpc: '2.0',
      id: 'p',
      method: 'ping',
      params: { timestamp: new Date().toISOString() },
    })
    expect(answer.body.result).toMatchObject({ status: 'connected', version: expect.any(String) })
  })
})

describe('tenant', () => {
  it('takes X-Warden-Tenant over context.user.organization.id and scopes hooks by it', async () => {
    const g = await startGuardian({
      hooks: [
        {
          name: 'acme-only',
          event: 'user.message',
          scope: { tenant: 'acme' },
          handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'acme says no' }) },
        },
      ],
    })
    try {
      const params = {
        message: { role: 'user', id: 'm', content: [{ kind: 'text', text: 'hi' }] },
        context: FULL_CONTEXT,
      }
      const request = { jsonrpc: '2.0', id: 1, method: 'steps/message', params }
      expect((await g.post(request)).body.result.decision).toBe('allow')
      expect((await g.post(request, { 'X-Warden-Tenant': 'acme' })).body.result.decision).toBe('deny')
      const orgAcme = {
        ...params,
        context: { ...FULL_CONTEXT, user: { id: 'u', organization: { id: 'acme' } } },
      }
      expect((await g.post({ ...request, params: orgAcme })).body.result.decision).toBe('deny')
    } finally {
      await g.close()
    }
  })
})

describe('batches and notifications', () => {
  it('answers a batch in order, leaving out notifications', async () => {
    calls.length = 0
    const message = METHOD_CASES.find((c) => c.event === 'user.message')
    const answer = await guardian.post([
      { jsonrpc: '2.0', id: 'a', method: 'steps/message', params: message?.params },
      { jsonrpc: '2.0', method: 'steps/message', params: message?.params },
      { jsonrpc: '1.0', id: 'b', method: 'steps/message' },
      { jsonrpc: '2.0', id: 'c', method: 'steps/unknown', params: {} },
      42,
    ])
    expect(answer.status).toBe(200)
    expect(answer.body.map((r: { id: unknown }) => r.id)).toEqual(['a', 'b', 'c', null])
    expect(answer.body[0].result.decision).toBe('allow')
    expect(answer.body[1].error).toMatchObject({ code: -32600, data: { field: 'jsonrpc' } })
    expect(answer.body[2].error).toMatchObject({ code: -32601, data: { field: 'method' } })
    expect(answer.body[3].error).toMatchObject({ code: -32600, data: { field: 'request' } })
    expect(calls.filter((c) => c.event === 'user.message')).toHaveLength(2)
  })

  it('answers nothing (204) to notifications, yet runs their hooks', async () => {
    calls.length = 0
    const message = METHOD_CASES.find((c) => c.event === 'user.message')
    const single = await guardian.post({ jsonrpc: '2.0', method: 'steps/message', params: message?.params })
    expect(single.status).toBe(204)
    const batch = await guardian.post([
      { jsonrpc: '2.0', method: 'steps/message', params: message?.params },
      { jsonrpc: '2.0', method: 'no/such/method', params: {} },
    ])
    expect(batch.status).toBe(204)
    expect(batch.body).toBeUndefined()
    expect(calls).toHaveLength(2)
  })
})

describe('ask', () => {
  function controlledApprover() {
    const pending: { request: ApprovalRequest; answer: (a: ApprovalAnswer) => void }[] = []
    let notify: () => void = () => undefined
    const asked = () =>
      new Promise<void>((resolve) => {
        if (pending.length > 0) resolve()
        else notify = resolve
      })
    const approver = (request: ApprovalRequest) =>
      new Promise<ApprovalAnswer>((answer) => {
        pending.push({ request, answer })
        notify()
      })
    return { pending, asked, approver }
  }
  const askHook: HookDefinition = {
    name: 'needs-approval',
    event: 'tool.pre',
    handler: { type: 'fn', fn: () => ({ decision: 'ask', reason: 'sending sms costs money' }) },
  }
  const request = {
    jsonrpc: '2.0',
    id: 'ask-1',
    method: 'steps/toolCallRequest',
    params: METHOD_CASES[1]?.params,
  }

  it('holds the request until the approver approves, then allows', async () => {
    const control = controlledApprover()
    const g = await startGuardian({ hooks: [askHook], approver: control.approver })
    try {
      let settled = false
      const answer = g.post(request).then((a) => {
        settled = true
        return a
      })
      await control.asked()
      await new Promise((r) => setTimeout(r, 200))
      expect(settled).toBe(false)
      expect(control.pending[0]?.request.asks[0]).toMatchObject({
        hook: 'needs-approval',
        reason: 'sending sms costs money',
      })
      control.pending[0]?.answer({ outcome: 'approve', by: 'alice' })
      const result = (await answer).body.result
      expect(result.decision).toBe('allow')
      expect(result.data.approval).toMatchObject({ outcome: 'approved', by: 'alice' })
    } finally {
      await g.close()
    }
  })

  it('answers modify when the approver edits, deny when it rejects', async () => {
    const control = controlledApprover()
    const g = await startGuardian({ hooks: [askHook], approver: control.approver })
    try {
      const edited = g.post(request)
      await control.asked()
      const pendingEvent = control.pending[0]?.request.event.payload as {
        tool: { input: Record<string, unknown> }
      }
      control.pending[0]?.answer({
        outcome: 'edit',
        payload: {
          tool: { ...pendingEvent.tool, input: { ...pendingEvent.tool.input, content: 'approved text' } },
        },
      })
      const modified = (await edited).body.result
      expect(modified.decision).toBe('modify')
      expect(modified.modifiedRequest.params.toolCallRequest.inputs[1]).toEqual({
        name: 'content',
        value: 'approved text',
      })
      control.pending.length = 0
      const rejected = g.post(request)
      await control.asked()
      control.pending[0]?.answer({ outcome: 'reject', reason: 'too expensive' })
      expect((await rejected).body.result).toMatchObject({
        decision: 'deny',
        message: expect.stringContaining('too expensive'),
      })
    } finally {
      await g.close()
    }
  })

  it('denies when the approval times out, and when there is no approver', async () => {
    const g = await startGuardian({
      hooks: [askHook],
      approver: () => new Promise(() => undefined),
      approvalTimeoutMs: 300,
    })
    const none = await startGuardian({ hooks: [askHook] })
    try {
      expect((await g.post(request)).body.result).toMatchObject({
        decision: 'deny',
        message: expect.stringContaining('no approval within 300 ms'),
      })
      expect((await none.post(request)).body.result).toMatchObject({
        decision: 'deny',
        message: expect.stringContaining('no approver'),
      })
    } finally {
      await g.close()
      await none.close()
    }
  })
})

describe('http', () => {
  it('serves /healthz', async () => {
    const response = await fetch(`${guardian.url}/healthz`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ status: 'ok' })
  })

  it('refuses a compressed body with a JSON-RPC error naming content-encoding', async () => {
    const answer = await guardian.post(
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { 'content-encoding': 'gzip' },
    )
    expect(answer.status).toBe(415)
    expect(answer.body.error).toMatchObject({ code: -32600, data: { field: 'content-encoding' } })
    expect(answer.body.error.data.reason).toMatch(/"gzip" is not supported; send the body uncompressed/)
    const plain = await guardian.post(
      { jsonrpc: '2.0', id: 4, method: 'ping' },
      { 'content-encoding': 'identity' },
    )
    expect(plain.body.result.status).toBe('connected')
  })

  it('answers a body over the limit with a JSON-RPC error, and keeps serving', async () => {
    const g = await startGuardian({ bodyLimitBytes: 2048 })
    try {
      const big = {
        jsonrpc: '2.0',
        id: 1,
        method: 'steps/memoryStore',
        params: { memory: ['x'.repeat(4096)], context: FULL_CONTEXT },
      }
      const answer = await g.post(big)
      expect(answer.status).toBe(413)
      expect(answer.body.error).toMatchObject({ code: -32600, data: { field: 'body' } })
      const ping = await g.post({ jsonrpc: '2.0', id: 2, method: 'ping' })
      expect(ping.body.result.status).toBe('connected')
    } finally {
      await g.close()
    }
  })
})
