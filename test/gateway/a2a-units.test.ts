// The A2A gateway's pure parts: both spellings of every method, the HTTP+JSON routes, the
// SSE parser's framing and bound, whole-artifact text joining, v0.3 cards, and the push
// URL policy with names that resolve to internal addresses.

import { describe, expect, it } from 'vitest'
import { joinText } from '../../src/gateway/a2a/stream.js'
import {
  a2aLimits,
  methodInfo,
  PushUrlPolicy,
  pushUrls,
  readCard,
  responseKind,
  restRoute,
  rewriteCard,
  SseParser,
  SseTooLargeError,
} from '../../src/gateway/index.js'
import { parseConfig } from '../../src/sources/index.js'

const bytes = (text: string) => new TextEncoder().encode(text)

describe('A2A gateway parts', () => {
  it('maps the current and the v0.3 method names onto the same events', () => {
    const pairs: [string, string, string][] = [
      ['SendMessage', 'message/send', 'a2a.send'],
      ['SendStreamingMessage', 'message/stream', 'a2a.stream'],
      ['GetTask', 'tasks/get', 'a2a.get'],
      ['CancelTask', 'tasks/cancel', 'a2a.cancel'],
      ['ListTasks', 'tasks/list', 'a2a.list'],
      ['SubscribeToTask', 'tasks/resubscribe', 'a2a.resubscribe'],
      ['CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set', 'a2a.pushConfig.set'],
      ['GetTaskPushNotificationConfig', 'tasks/pushNotificationConfig/get', 'a2a.pushConfig.get'],
      ['ListTaskPushNotificationConfigs', 'tasks/pushNotificationConfig/list', 'a2a.pushConfig.list'],
      ['DeleteTaskPushNotificationConfig', 'tasks/pushNotificationConfig/delete', 'a2a.pushConfig.delete'],
    ]
    for (const [current, old, event] of pairs) {
      expect(methodInfo(current)?.event).toBe(event)
      expect(methodInfo(old)?.event).toBe(event)
    }
    expect(methodInfo('message/stream')?.streaming).toBe(true)
    expect(methodInfo('tasks/resubscribe')?.streaming).toBe(true)
    expect(methodInfo('toString')).toBeUndefined()
  })

  it('reads the HTTP+JSON routes, with or without the v0.3 /v1 prefix', () => {
    const q = new URLSearchParams('historyLength=2')
    expect(restRoute('POST', '/message:send', q, { a: 1 })).toEqual({ operation: 'send', params: { a: 1 } })
    expect(restRoute('POST', '/v1/message:stream', q, {})?.operation).toBe('stream')
    expect(restRoute('GET', '/tasks/t1', q, {})).toEqual({
      operation: 'get',
      params: { historyLength: '2', id: 't1' },
    })
    expect(restRoute('POST', '/tasks/t1:cancel', q, {})).toEqual({
      operation: 'cancel',
      params: { id: 't1' },
    })
    expect(restRoute('GET', '/tasks/t1:subscribe', q, {})).toEqual({
      operation: 'resubscribe',
      params: { id: 't1' },
    })
    expect(restRoute('DELETE', '/tasks/t1/pushNotificationConfigs/c1', q, {})).toEqual({
      operation: 'pushConfig.delete',
      params: { taskId: 't1', id: 'c1' },
    })
    expect(restRoute('PUT', '/tasks/t1', q, {})).toBeUndefined()
    expect(restRoute('GET', '/secrets', q, {})).toBeUndefined()
  })

  it('parses SSE across chunk boundaries and line endings, and bounds one event', () => {
    const parser = new SseParser(1000)
    expect(parser.push(bytes('data: {"a"'))).toEqual([])
    expect(parser.push(bytes(':1}\r\n\r\nevent: error\ndata: x\n'))).toEqual([{ data: '{"a":1}' }])
    expect(parser.push(bytes('data: y\n\n'))).toEqual([{ type: 'error', data: 'x\ny' }])
    const small = new SseParser(100)
    expect(() => small.push(bytes(`data: ${'z'.repeat(200)}`))).toThrow(SseTooLargeError)
  })

  it('joins adjacent text parts of a held artifact, keeping other parts', () => {
    expect(
      joinText([{ text: 'sk-ab' }, { text: 'cdef' }, { data: { x: 1 } }, { kind: 'text', text: 'z' }]),
    ).toEqual([{ text: 'sk-abcdef' }, { data: { x: 1 } }, { kind: 'text', text: 'z' }])
  })

  it('tells the kinds of current and v0.3 answers apart', () => {
    expect(responseKind({ artifactUpdate: { taskId: 't' } }).kind).toBe('artifactUpdate')
    expect(responseKind({ kind: 'status-update', taskId: 't' }).kind).toBe('statusUpdate')
    expect(responseKind({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } }).kind).toBe(
      'task',
    )
    expect(responseKind({ configs: [] }).kind).toBe('result')
  })

  it('reads a v0.3 card and moves its URLs to the gateway, skipping other origins', () => {
    const base = new URL('http://127.0.0.1:4000/')
    const card = {
      name: 'old',
      url: 'http://127.0.0.1:4000/rpc',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: 'http://127.0.0.1:4000/rest', transport: 'HTTP+JSON' },
        { url: 'http://evil.example/rpc', transport: 'JSONRPC' },
      ],
    }
    const read = readCard(card, base, 'card')
    expect(read.interfaces.map((i) => `${i.binding} ${i.path}`)).toEqual(['JSONRPC /rpc', 'HTTP+JSON /rest'])
    expect(read.skipped[0]).toContain('not on the upstream')
    const moved = rewriteCard(card, new URL('http://127.0.0.1:4100/'))
    expect(moved.url).toBe('http://127.0.0.1:4100/rpc')
    expect((moved.additionalInterfaces as { url: string }[])[0]?.url).toBe('http://127.0.0.1:4100/rest')
    expect(() => readCard([], base, 'card')).toThrow('not an agent card')
  })

  it('refuses push URLs that are or resolve to internal addresses, unless network.allow lists them', async () => {
    const resolver = async (host: string) => [
      { address: host === 'hooks.internal' ? '10.1.2.3' : '93.184.216.34', family: 4 as const },
    ]
    const policy = new PushUrlPolicy([], resolver)
    expect(pushUrls({ configuration: { taskPushNotificationConfig: { url: 'http://a/' } } })).toEqual([
      'http://a/',
    ])
    expect(await policy.refusal({ url: 'https://receiver.example/hook' })).toBeUndefined()
    expect(await policy.refusal({ url: 'http://hooks.internal/hook' })).toMatch(/private.*10\.1\.2\.3/)
    expect(await policy.refusal({ url: 'http://localhost:8080/' })).toContain('loopback')
    expect(await policy.refusal({ url: 'file:///etc/passwd' })).toContain('only http and https')
    expect(await policy.refusal({ pushNotificationConfig: { url: 'http://[::1]/' } })).toContain('loopback')
    const allowed = new PushUrlPolicy(['hooks.internal'], resolver)
    expect(await allowed.refusal({ url: 'http://hooks.internal/hook' })).toBeUndefined()
  })

  it('reads the a2a: section of warden.yaml and names a bad field', () => {
    const config = parseConfig('a2a:\n  maxStreamMs: 5000\n  stream: { buffer: artifact }\n', '/tmp')
    expect(a2aLimits(config.raw.a2a)).toMatchObject({
      maxStreamMs: 5000,
      buffer: 'artifact',
      maxBodyBytes: 4 * 1024 * 1024,
    })
    expect(() => parseConfig('a2a:\n  stream: { buffer: chunk }\n', '/tmp')).toThrow(/a2a\.stream\.buffer/)
    expect(() => a2aLimits({ maxBodyBytes: -1 })).toThrow(/maxBodyBytes/)
  })
})
