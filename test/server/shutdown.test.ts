// Graceful shutdown in process, over real loopback sockets: stopGracefully waits for hooks
// still running for non-blocking events, and a request that arrives on an open connection
// once the shutdown has begun gets a JSON-RPC error (HTTP 503) that both schemas accept.

import { connect, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import { createServer, listen, stopGracefully } from '../../src/server/index.js'
import { expectValidResponse } from './aos-helper.js'

/** Resolves once nothing accepts connections on the URL's port any more. */
async function listenerClosed(url: string): Promise<void> {
  const port = Number(new URL(url).port)
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(false)
      })
      socket.once('error', () => resolve(true))
    })
    if (refused) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function deferred() {
  let release: () => void = () => undefined
  const promise = new Promise<void>((resolve) => {
    release = resolve
  })
  return { promise, release }
}

/** Everything a socket receives until the server closes it. */
function received(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    socket.on('data', (d) => {
      text += d
    })
    socket.on('close', () => resolve(text))
  })
}

describe('graceful shutdown in process', () => {
  it('waits for the hooks of non-blocking events before it resolves', async () => {
    const order: string[] = []
    const started = deferred()
    const gate = deferred()
    const engine = createEngine({
      hooks: [
        {
          name: 'slow-background',
          event: 'session.end',
          handler: {
            type: 'fn',
            fn: async () => {
              order.push('hook started')
              started.release()
              await gate.promise
              order.push('hook done')
            },
          },
        },
      ],
    })
    const app = await createServer({ engine })
    const url = await listen(app, { port: 0 })
    const decision = await engine.dispatch({ event: 'session.end', payload: {}, context: {} })
    expect(decision.decision).toBe('allow')
    await started.promise
    const stopping = stopGracefully({ app, engine }).then((clean) => {
      order.push('stopped')
      return clean
    })
    await listenerClosed(url)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(order).toEqual(['hook started'])
    gate.release()
    expect(await stopping).toBe(true)
    expect(order).toEqual(['hook started', 'hook done', 'stopped'])
  })

  it('answers a request that arrives once the shutdown began with a JSON-RPC error', async () => {
    const engine = createEngine({ hooks: [] })
    const app = await createServer({ engine })
    const url = await listen(app, { port: 0 })
    const socket = connect(Number(new URL(url).port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    const answer = received(socket)
    // Half a request: the connection is busy, so the shutdown does not close it at once.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })
    socket.write('POST /aos HTTP/1.1\r\nhost: 127.0.0.1\r\n')
    const stopping = stopGracefully({ app, engine })
    await listenerClosed(url)
    socket.write(`content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    const text = await answer
    expect(await stopping).toBe(true)
    const [head = '', payload = ''] = text.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1.1 503/)
    expect(head.toLowerCase()).toContain('connection: close')
    const parsed = JSON.parse(payload)
    expectValidResponse(parsed)
    expect(parsed).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, data: { field: 'server', reason: expect.stringContaining('shutting down') } },
    })
  })
})
