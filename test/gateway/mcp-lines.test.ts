// The stdio gateway's own framing and envelope check: lines split at any chunk boundary,
// an over-long line refused, and the hand-written JSON-RPC check agreeing with the SDK's
// schema on every case.

import { PassThrough, Writable } from 'node:stream'
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { envelopeProblem, LineSplitter, LineTransport } from '../../src/gateway/mcp/index.js'

const CASES: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } },
  { jsonrpc: '2.0', id: 'x', method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: true, method: 'ping' },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { id: 1, method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 7 },
  { jsonrpc: '2.0', method: 'x', params: [1, 2] },
  { jsonrpc: '2.0', method: 'x', params: 'text' },
  { jsonrpc: '2.0', method: 'x', params: { _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', method: 'x', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', method: 'x', params: { _meta: 'no' } },
  {
    jsonrpc: '2.0',
    method: 'x',
    params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
  },
  { jsonrpc: '2.0', method: 'x', params: { _meta: { 'io.modelcontextprotocol/related-task': {} } } },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: true },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, result: { content: [] }, extra: 1 },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: {} } } },
  { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'bad' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'parse error', data: { a: 1 } } },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'bad' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', id: 1, error: 'bad' },
  { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
  { jsonrpc: '2.0', id: 1, method: 'x', result: {} },
  { jsonrpc: '2.0', id: 1 },
  [],
  null,
  'text',
  42,
]

describe('the JSON-RPC envelope check', () => {
  it.each(CASES.map((value) => [JSON.stringify(value), value]))(
    'agrees with the SDK schema on %s',
    (_, value) => {
      const sdk = JSONRPCMessageSchema.safeParse(value).success
      expect(envelopeProblem(value) === undefined).toBe(sdk)
    },
  )

  it('names what is wrong', () => {
    expect(envelopeProblem({ jsonrpc: '2.0', id: 1, method: 'x', extra: 1 })).toBe(
      'unexpected member "extra"',
    )
    expect(envelopeProblem({ jsonrpc: '2.0', id: null, method: 'x' })).toBe(
      'id must be a string or an integer',
    )
  })
})

describe('LineSplitter', () => {
  it('yields whole lines whatever the chunk boundaries, without a trailing CR', () => {
    const text = '{"a":1}\r\n{"b":"é"}\n\n{"c":3}\n'
    const bytes = Buffer.from(text)
    for (let size = 1; size <= bytes.length; size++) {
      const lines: string[] = []
      const splitter = new LineSplitter(1024, (line) => lines.push(line))
      for (let at = 0; at < bytes.length; at += size) splitter.push(bytes.subarray(at, at + size))
      expect(lines).toEqual(['{"a":1}', '{"b":"é"}', '', '{"c":3}'])
    }
  })

  it('refuses a line over the limit, even before its end arrives', () => {
    const lines: string[] = []
    const splitter = new LineSplitter(8, (line) => lines.push(line))
    splitter.push(Buffer.from('12345678\n'))
    expect(() => splitter.push(Buffer.from('12345'))).not.toThrow()
    expect(() => splitter.push(Buffer.from('6789'))).toThrow(/over the limit of 8 bytes/)
    splitter.push(Buffer.from('abc\n'))
    expect(lines).toEqual(['12345678', 'abc'])
  })
})

describe('LineTransport', () => {
  it('delivers valid messages, reports others and goes on, and writes one line per message', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const transport = new LineTransport(input, output, 1024)
    const messages: unknown[] = []
    const errors: string[] = []
    transport.onmessage = (message) => messages.push(message)
    transport.onerror = (error) => errors.push(error.message)
    await transport.start()
    input.write(
      'not json\n{"jsonrpc":"2.0","id":1,"method":"ping","x":1}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
    )
    await new Promise((resolve) => setImmediate(resolve))
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }])
    expect(errors).toEqual([
      'a line that is not JSON was ignored (8 characters)',
      'a message that is not valid JSON-RPC was ignored: unexpected member "x"',
    ])
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} })
    await new Promise((resolve) => setImmediate(resolve))
    expect(String(output.read())).toBe('{"jsonrpc":"2.0","id":2,"result":{}}\n')
    let closed = false
    transport.onclose = () => {
      closed = true
    }
    await transport.close()
    expect(closed).toBe(true)
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow('Not connected')
  })

  it('writes the messages sent in one burst with one write, before the event loop goes on', async () => {
    const writes: string[] = []
    const output = new Writable({
      write(chunk, _encoding, done) {
        writes.push(String(chunk))
        done()
      },
      writev(chunks, done) {
        writes.push(chunks.map(({ chunk }) => String(chunk)).join(''))
        done()
      },
    })
    const transport = new LineTransport(new PassThrough(), output, 1024)
    await transport.start()
    const sent = Promise.all([1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, result: {} })))
    await sent
    await new Promise<void>((resolve) => process.nextTick(resolve))
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n',
    ])
    await transport.send({ jsonrpc: '2.0', id: 4, result: {} })
    await new Promise<void>((resolve) => process.nextTick(resolve))
    expect(writes).toHaveLength(2)
  })

  it('writes what was sent in the same turn before it closes, so the owner may end the stream', async () => {
    const output = new PassThrough()
    const transport = new LineTransport(new PassThrough(), output, 1024)
    await transport.start()
    void transport.send({ jsonrpc: '2.0', id: 9, error: { code: -32003, message: 'denied' } })
    await transport.close()
    output.end()
    let text = ''
    for await (const chunk of output) text += String(chunk)
    expect(text).toBe('{"jsonrpc":"2.0","id":9,"error":{"code":-32003,"message":"denied"}}\n')
  })
})
