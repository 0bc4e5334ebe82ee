// The AOS mapping in both directions without a server: every method's request becomes an
// event, the event encoded back for a remote Guardian maps onto the same payload, and
// modified payloads go back into AOS params in place.

import { describe, expect, it } from 'vitest'
import type { CheckedEvent, JsonObject } from '../../src/core/index.js'
import {
  completeStepContext,
  createMappingState,
  eventToRequest,
  mapRequest,
  modifiedRequest,
} from '../../src/protocols/index.js'
import { FULL_CONTEXT, METHOD_CASES } from '../server/aos-fixtures.js'

describe('AOS mapping', () => {
  for (const testCase of METHOD_CASES) {
    it(`${testCase.name}: request → ${testCase.event} → request → the same payload`, () => {
      const state = createMappingState()
      const request = { jsonrpc: '2.0' as const, id: 1, method: testCase.method, params: testCase.params }
      const mapped = mapRequest(request, { tenant: 't' }, state)
      expect(mapped.event).toBe(testCase.event)
      expect(mapped.context.tenantId).toBe('t')
      const event: CheckedEvent = { event: mapped.event, payload: mapped.payload, context: mapped.context }
      const encoded = eventToRequest(event, 'remote-1')
      expect(encoded.method).toBe(testCase.method)
      const again = mapRequest(encoded, {}, createMappingState())
      expect(again.event).toBe(testCase.event)
      expect(again.payload).toEqual(mapped.payload)
    })
  }

  it('answers an unchanged payload with the request params as they were', () => {
    for (const testCase of METHOD_CASES) {
      const request = { jsonrpc: '2.0' as const, id: 1, method: testCase.method, params: testCase.params }
      const mapped = mapRequest(request, {}, createMappingState())
      expect(modifiedRequest(request, mapped.payload, mapped.payload).params, testCase.name).toEqual(
        testCase.params,
      )
    }
  })

  it('replaces the text part of a message when a hook changes message.text', () => {
    const params: JsonObject = {
      message: {
        role: 'agent',
        id: 'm',
        content: [
          { kind: 'data', data: { a: 1 } },
          { kind: 'text', text: 'card 4111' },
        ],
      },
      context: FULL_CONTEXT,
    }
    const request = { jsonrpc: '2.0' as const, id: 2, method: 'steps/message', params }
    const mapped = mapRequest(request, {}, createMappingState())
    expect(mapped.payload.message).toMatchObject({ role: 'agent', text: 'card 4111' })
    const changed = {
      ...mapped.payload,
      message: { ...(mapped.payload.message as object), text: 'card ****' },
    }
    expect(modifiedRequest(request, mapped.payload, changed).params).toMatchObject({
      message: {
        content: [
          { kind: 'data', data: { a: 1 } },
          { kind: 'text', text: 'card ****' },
        ],
      },
    })
  })

  it('remembers the tool of an execution so toolCallResult knows its name', () => {
    const state = createMappingState()
    const call = METHOD_CASES.find((c) => c.event === 'tool.pre')
    const result = METHOD_CASES.find((c) => c.event === 'tool.post')
    mapRequest(
      { jsonrpc: '2.0', id: 1, method: 'steps/toolCallRequest', params: call?.params ?? {} },
      {},
      state,
    )
    const mapped = mapRequest(
      { jsonrpc: '2.0', id: 2, method: 'steps/toolCallResult', params: result?.params ?? {} },
      {},
      state,
    )
    expect(mapped.payload.tool).toMatchObject({ name: 'send_sms', id: 'exec-1', isError: false })
  })

  it('maps MCP requests and notifications outbound, results and errors inbound', () => {
    const map = (params: JsonObject) =>
      mapRequest({ jsonrpc: '2.0', id: 1, method: 'protocols/MCP', params }, {}, createMappingState())
    const notification = map({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(notification.event).toBe('mcp.outbound')
    expect(notification.payload).toEqual({
      mcp: {
        message: { jsonrpc: '2.0', method: 'notifications/initialized' },
        direction: 'outbound',
        method: 'notifications/initialized',
      },
    })
    const failed = map({ message: { jsonrpc: '2.0', id: 4, error: { code: -32000, message: 'no' } } })
    expect(failed.event).toBe('mcp.inbound')
    expect(failed.payload.mcp).toMatchObject({ direction: 'inbound' })
    expect(failed.payload.tool).toBeUndefined()
    const call = map({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'exec', arguments: { cmd: 'ls' } },
    })
    expect(call.payload.tool).toEqual({ name: 'exec', input: { cmd: 'ls' } })
  })

  it('gives A2A hooks the payload, context.from and context.to, and the sender as the agent', () => {
    const a2a = METHOD_CASES.find((c) => c.method === 'message/send')
    const params = a2a?.params as JsonObject
    const mapped = mapRequest(
      { jsonrpc: '2.0', id: 1, method: 'message/send', params },
      {},
      createMappingState(),
    )
    const context = params.context as JsonObject
    expect(mapped.payload.a2a).toEqual({
      method: 'message/send',
      payload: params.payload,
      from: context.from,
      to: context.to,
    })
    expect(mapped.context.agent).toEqual({ name: 'Client agent', url: 'https://client.example' })
  })

  it('completes a StepContext to what both schemas require, keeping what was sent', () => {
    const sent: JsonObject = {
      agent: { id: 'a', name: 'A', provider: { name: 'Acme' } },
      session: { id: 's' },
      turnId: 't',
      user: { id: 'u' },
      custom: { kept: true },
    }
    expect(completeStepContext(sent)).toEqual({
      agent: {
        id: 'a',
        name: 'A',
        url: '',
        instructions: '',
        version: '',
        provider: { name: 'Acme', url: '' },
        identity: { signatures: [] },
      },
      session: { id: 's' },
      turnId: 't',
      stepId: '',
      timestamp: expect.any(String),
      identity: { signatures: [] },
      user: { id: 'u' },
      custom: { kept: true },
    })
    expect(completeStepContext(FULL_CONTEXT)).toEqual(FULL_CONTEXT)
  })
})
