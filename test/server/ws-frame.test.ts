// The push frame built once per push is byte for byte what ws itself frames for a server's
// text message, at every length encoding (7-bit, 16-bit, 64-bit), and the frame is reused
// only for the very same push; the pushes of one turn are held back until the next. Pushes
// gathered per connection (over real loopback TCP): decision pushes of one window leave in
// one write, the same joined bytes for every connection that got them; an urgent push
// leaves at the next turn with what waited before it; what a connection sends itself goes
// after its waiting pushes; a closed connection gets nothing.

import { createRequire } from 'node:module'
import { connect, createServer, type Server, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  flushTarget,
  PUSH_BATCH_MS,
  type PushTarget,
  queuePush,
  waitingBytes,
} from '../../src/server/management/push-writer.js'
import { corkUntilNextTurn, textFrame } from '../../src/server/management/ws.js'

/** ws's own framing (the package ships no types for its Sender). */
const { Sender } = createRequire(import.meta.url)('ws') as {
  Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] }
}

function wsFrame(payload: Buffer): Buffer {
  return Buffer.concat(
    Sender.frame(payload, { fin: true, rsv1: false, opcode: 1, mask: false, readOnly: false }),
  )
}

describe('textFrame', () => {
  it.each([0, 1, 125, 126, 1000, 65535, 65536, 200_000])('frames %i bytes as ws does', (length) => {
    const payload = Buffer.alloc(length, 'a')
    expect(textFrame(payload).equals(wsFrame(payload))).toBe(true)
  })

  it('gives the same frame for the same push, a new one for another push of the same text', () => {
    const first = Buffer.from('{"type":"event","event":"decision"}')
    const again = Buffer.from('{"type":"event","event":"decision"}')
    const frame = textFrame(first)
    expect(textFrame(first)).toBe(frame)
    const other = textFrame(again)
    expect(other).not.toBe(frame)
    expect(other.equals(frame)).toBe(true)
  })
})

describe('corkUntilNextTurn', () => {
  it('corks each socket once per turn and uncorks them all at the next', async () => {
    const [a, b] = [new Socket(), new Socket()]
    corkUntilNextTurn(a)
    corkUntilNextTurn(a)
    corkUntilNextTurn(b)
    expect(a.writableCorked).toBe(1)
    expect(b.writableCorked).toBe(1)
    await new Promise((resolve) => setImmediate(resolve))
    expect(a.writableCorked).toBe(0)
    expect(b.writableCorked).toBe(0)
    corkUntilNextTurn(a)
    expect(a.writableCorked).toBe(1)
    await new Promise((resolve) => setImmediate(resolve))
    expect(a.writableCorked).toBe(0)
    a.destroy()
    b.destroy()
  })
})

describe('gathered pushes', () => {
  let server: Server
  /** Server-side sockets, each with what its client received and the buffers written to it. */
  const links: { socket: Socket; received: Buffer[]; writes: Buffer[]; target: PushTarget; open: boolean }[] =
    []
  const turn = () => new Promise((resolve) => setImmediate(resolve))
  /** Resolves once a link's client has received `bytes` bytes in all. */
  const receivedBytes = async (link: (typeof links)[number], bytes: number) => {
    while (Buffer.concat(link.received).length < bytes) await turn()
    return Buffer.concat(link.received)
  }

  beforeAll(async () => {
    server = createServer((socket) => {
      const link = {
        socket,
        received: [] as Buffer[],
        writes: [] as Buffer[],
        open: true,
      } as (typeof links)[number]
      link.target = {
        write: (bytes) => {
          link.writes.push(bytes)
          socket.write(bytes)
        },
        open: () => link.open,
      }
      links.push(link)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    for (let i = 0; i < 3; i++) {
      const client = connect(port, '127.0.0.1')
      await new Promise((resolve) => client.once('connect', resolve))
      const index = i
      client.on('data', (chunk) => {
        links[index]?.received.push(chunk)
      })
    }
    while (links.length < 3) await turn()
  })
  afterAll(() => {
    for (const link of links) link.socket.destroy()
    server.close()
  })

  const frame = (text: string) => textFrame(Buffer.from(text))

  it('sends the decision pushes of one window in one write, the same bytes to every connection', async () => {
    const [a, b] = links as [(typeof links)[number], (typeof links)[number]]
    const pushes = [frame('{"n":1}'), frame('{"n":2}'), frame('{"n":3}')]
    const started = performance.now()
    for (const push of pushes) {
      queuePush(a.target, push, false)
      queuePush(b.target, push, false)
    }
    expect(waitingBytes(a.target)).toBe(Buffer.concat(pushes).length)
    await turn()
    expect(a.writes).toEqual([])
    const all = Buffer.concat(pushes)
    expect((await receivedBytes(a, all.length)).equals(all)).toBe(true)
    expect((await receivedBytes(b, all.length)).equals(all)).toBe(true)
    expect(performance.now() - started).toBeGreaterThanOrEqual(PUSH_BATCH_MS - 1)
    expect(a.writes).toHaveLength(1)
    expect(b.writes[0]).toBe(a.writes[0])
    expect(waitingBytes(a.target)).toBe(0)
  })

  it('sends an urgent push at the next turn with the pushes that waited before it', async () => {
    const c = links[2] as (typeof links)[number]
    const first = frame('{"decision":1}')
    const urgent = frame('{"approval":1}')
    queuePush(c.target, first, false)
    queuePush(c.target, urgent, true)
    await turn()
    expect(c.writes).toHaveLength(1)
    expect(
      (await receivedBytes(c, first.length + urgent.length)).equals(Buffer.concat([first, urgent])),
    ).toBe(true)
  })

  it('writes what waits before what the connection sends itself, and nothing to a closed one', async () => {
    const [a, b] = links as [(typeof links)[number], (typeof links)[number]]
    const already = Buffer.concat(a.received).length
    const push = frame('{"n":4}')
    queuePush(a.target, push, false)
    flushTarget(a.target)
    a.socket.write('answer')
    const got = await receivedBytes(a, already + push.length + 6)
    expect(got.subarray(already).equals(Buffer.concat([push, Buffer.from('answer')]))).toBe(true)
    b.open = false
    const writes = b.writes.length
    queuePush(b.target, frame('{"n":5}'), true)
    await turn()
    expect(b.writes).toHaveLength(writes)
    expect(waitingBytes(b.target)).toBe(0)
  })
})
