// `protocols/A2A`, the earlier AOS spelling of A2A: `params.message` (an A2A JSON-RPC
// message) mapped by its method onto the `a2a.*` events, a response onto `a2a.response`,
// with `a2a.payload` the message itself; allow, deny and modify on `/aos`, the modified
// message put back into `params.message`, and the bad inputs answered -32602 naming the field.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Decision, deny, type HookCall, type JsonObject, modify } from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import { createMappingState, mapRequest, modifiedRequest } from '../../src/protocols/index.js'
import { startGuardian, type TestGuardian } from '../server/aos-helper.js'

const SEND: JsonObject = {
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: {
    message: {
      role: 'agent',
      parts: [{ kind: 'text', text: 'High-value customer complaint. Review the secret case.' }],
      messageId: 'm-1',
    },
  },
}

const ANSWER: JsonObject = {
  jsonrpc: '2.0',
  id: 1,
  result: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'done' }], messageId: 'r-1' },
}

function request(message: unknown, id: number | string = 70): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    method: 'protocols/A2A',
    params: { message, reasoning: 'Escalating to the retention agent.' },
  } as JsonObject
}

function partsOf(payload: JsonObject): JsonObject[] {
  const message = (payload.a2a as JsonObject).payload as JsonObject
  const params = message.params as JsonObject | undefined
  const result = message.result as JsonObject | undefined
  return ((params?.message as JsonObject | undefined)?.parts ?? result?.parts ?? []) as JsonObject[]
}

describe('protocols/A2A mapping', () => {
  it('maps every A2A method inside onto its event, with the message as a2a.payload', () => {
    const cases: [string, string][] = [
      ['message/send', 'a2a.send'],
      ['message/stream', 'a2a.stream'],
      ['tasks/cancel', 'a2a.cancel'],
      ['tasks/get', 'a2a.get'],
      ['tasks/pushNotificationConfig/get', 'a2a.pushConfig.get'],
      ['tasks/pushNotificationConfig/set', 'a2a.pushConfig.set'],
      ['tasks/resubscribe', 'a2a.resubscribe'],
    ]
    for (const [method, event] of cases) {
      const message = { jsonrpc: '2.0', id: 3, method, params: { id: 'task-1' } }
      const mapped = mapRequest(request(message) as never, { tenant: 't' }, createMappingState())
      expect(mapped.event, method).toBe(event)
      expect(mapped.payload).toEqual({
        a2a: { method, payload: message },
        reasoning: 'Escalating to the retention agent.',
      })
      expect(mapped.context.tenantId).toBe('t')
      expect(mapped.context.requestId).toBe('70')
    }
  })

  it('maps a response (result or error) onto a2a.response, inbound, of kind result', () => {
    const failed = { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'task not found' } }
    for (const message of [ANSWER, failed]) {
      const mapped = mapRequest(request(message) as never, {}, createMappingState())
      expect(mapped.event).toBe('a2a.response')
      expect(mapped.payload.a2a).toEqual({ direction: 'inbound', kind: 'result', payload: message })
    }
  })

  it('puts a modified message back into params.message, and the rest as it was', () => {
    const sent = request(SEND) as never as { jsonrpc: '2.0'; id: number; method: string; params: JsonObject }
    const mapped = mapRequest(sent, {}, createMappingState())
    expect(modifiedRequest(sent, mapped.payload, mapped.payload)).toEqual(sent)
    const changed = structuredClone(mapped.payload)
    ;(partsOf(changed)[0] as JsonObject).text = 'High-value customer complaint.'
    const answer = modifiedRequest(sent, mapped.payload, changed)
    expect(answer.method).toBe('protocols/A2A')
    expect(answer.id).toBe(70)
    const params = answer.params as JsonObject
    expect(params.reasoning).toBe('Escalating to the retention agent.')
    expect(params.message).toEqual((changed.a2a as JsonObject).payload)
    expect(partsOf({ a2a: { payload: params.message as JsonObject } })[0]?.text).toBe(
      'High-value customer complaint.',
    )
  })

  it('refuses a modify that changes the method or id of the A2A message, naming the field', () => {
    const sent = request(SEND) as never as { jsonrpc: '2.0'; id: number; method: string; params: JsonObject }
    const mapped = mapRequest(sent, {}, createMappingState())
    for (const [field, value] of [
      ['method', 'tasks/cancel'],
      ['id', 2],
      ['jsonrpc', '1.0'],
    ] as const) {
      const changed = structuredClone(mapped.payload)
      ;((changed.a2a as JsonObject).payload as JsonObject)[field] = value
      expect(() => modifiedRequest(sent, mapped.payload, changed)).toThrow(
        `a modify may not change a2a.payload.${field}`,
      )
    }
  })

  it('answers bad params.message with -32602 naming the field', () => {
    const bad: [unknown, string, RegExp][] = [
      [undefined, 'params.message', /must be an object/],
      ['text', 'params.message', /must be an object/],
      [{ jsonrpc: '2.0', id: 1 }, 'params.message', /a request \(method\) or a response/],
      [{ jsonrpc: '2.0', id: 1, method: 7 }, 'params.message.method', /non-empty string/],
      [
        { jsonrpc: '2.0', id: 1, method: 'tasks/delete', params: {} },
        'params.message.method',
        /"tasks\/delete" is not an A2A method .*use one of message\/send, message\/stream, tasks\/cancel/,
      ],
    ]
    for (const [message, field, reason] of bad) {
      let error: unknown
      try {
        mapRequest(request(message) as never, {}, createMappingState())
      } catch (e) {
        error = e
      }
      const data = (error as { code: number; data: { field: string; reason: string } }).data
      expect((error as { code: number }).code, JSON.stringify(message)).toBe(-32602)
      expect(data.field).toBe(field)
      expect(data.reason).toMatch(reason)
    }
  })
})

describe('protocols/A2A on /aos', () => {
  let guardian: TestGuardian

  beforeAll(async () => {
    guardian = await startGuardian({
      hooks: [
        {
          name: 'no-passwords',
          event: 'a2a.send',
          handler: {
            type: 'fn',
            fn: ({ event }: HookCall) =>
              partsOf(event.payload).some((p) => String(p.text).includes('password'))
                ? deny('no passwords to other agents')
                : undefined,
          },
        },
        {
          name: 'mask-secrets',
          event: 'a2a.send',
          handler: {
            type: 'fn',
            fn: ({ event }: HookCall) => {
              if (!partsOf(event.payload).some((p) => String(p.text).includes('secret'))) return undefined
              const copy = structuredClone(event.payload)
              for (const part of partsOf(copy)) part.text = String(part.text).replaceAll('secret', '******')
              return modify(copy)
            },
          },
        },
        {
          name: 'no-keys-back',
          event: 'a2a.response',
          handler: {
            type: 'fn',
            fn: ({ event }: HookCall) =>
              JSON.stringify(event.payload).includes('sk-live')
                ? deny('an API key in the answer')
                : undefined,
          },
        },
      ],
    })
  })

  afterAll(async () => {
    await guardian?.close()
  })

  it('allows, denies and answers a response as the hooks decide', async () => {
    const allowed = await guardian.post(request(ANSWER, 'r-1'))
    expect(allowed.body.result.decision).toBe('allow')
    const leaking = structuredClone(ANSWER)
    ;(((leaking.result as JsonObject).parts as JsonObject[])[0] as JsonObject).text = 'key sk-live12345678'
    const denied = await guardian.post(request(leaking, 'r-2'))
    expect(denied.body.result).toMatchObject({ decision: 'deny', message: 'an API key in the answer' })
    const password = structuredClone(SEND)
    ;(((password.params as JsonObject).message as JsonObject).parts as JsonObject[])[0] = {
      kind: 'text',
      text: 'the password is hunter2',
    }
    const refused = await guardian.post(request(password, 's-1'))
    expect(refused.body.result).toMatchObject({ decision: 'deny', message: 'no passwords to other agents' })
  })

  it('answers a modify with modifiedRequest: protocols/A2A, params.message rewritten', async () => {
    // Sent without the schema check: the AOS schemas do not list protocols/A2A, so a
    // modifiedRequest for it cannot validate as ASOPRequest.
    const response = await fetch(`${guardian.url}/aos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request(SEND, 'm-1')),
    })
    const body = (await response.json()) as { id: string; result: JsonObject }
    expect(body.id).toBe('m-1')
    expect(body.result.decision).toBe('modify')
    const rewritten = body.result.modifiedRequest as JsonObject
    expect(rewritten).toMatchObject({ jsonrpc: '2.0', id: 'm-1', method: 'protocols/A2A' })
    const message = (rewritten.params as JsonObject).message as JsonObject
    expect(message).toMatchObject({ jsonrpc: '2.0', id: 1, method: 'message/send' })
    expect(partsOf({ a2a: { payload: message } })[0]?.text).toBe(
      'High-value customer complaint. Review the ****** case.',
    )
  })

  it('answers an unknown A2A method inside with -32602 naming params.message.method', async () => {
    const answer = await guardian.post(
      request({ jsonrpc: '2.0', id: 1, method: 'tasks/delete', params: { id: 't' } }, 'bad-1'),
    )
    expect(answer.body.id).toBe('bad-1')
    expect(answer.body.error.code).toBe(-32602)
    expect(answer.body.error.data).toMatchObject({ field: 'params.message.method' })
    expect(answer.body.error.data.reason).toContain('message/send')
  })
})

describe('protocols/A2A on /aos: a modify AOS cannot express', () => {
  it('is answered deny and recorded as that deny, naming the field', async () => {
    const recorded: Decision[] = []
    const engine = createEngine({
      recorder: { record: ({ decision }) => void recorded.push(decision) },
      hooks: [
        {
          name: 'reroute',
          event: 'a2a.send',
          handler: {
            type: 'fn',
            fn: ({ event }: HookCall) => {
              const copy = structuredClone(event.payload)
              ;((copy.a2a as JsonObject).payload as JsonObject).method = 'tasks/cancel'
              return modify(copy)
            },
          },
        },
      ],
    })
    const guardian = await startGuardian({ engine })
    try {
      const response = await fetch(`${guardian.url}/aos`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request(SEND, 'x-1')),
      })
      const body = (await response.json()) as { result: JsonObject }
      expect(body.result.decision).toBe('deny')
      expect(String(body.result.message)).toContain('a modify may not change a2a.payload.method')
      expect(body.result.modifiedRequest).toBeUndefined()
      expect(recorded).toHaveLength(1)
      expect(recorded[0]?.decision).toBe('deny')
      expect(recorded[0]?.reasonCode).toContain('modify-refused')
      expect(recorded[0]?.reason).toContain('a modify may not change a2a.payload.method')
      expect(recorded[0]?.payload).toBeUndefined()
    } finally {
      await guardian.close()
    }
  })
})
