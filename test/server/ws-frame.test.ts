// The push frame built once per push is byte for byte what ws itself frames for a server's
// text message, at every length encoding (7-bit, 16-bit, 64-bit), and the frame is reused
// only for the very same push; the pushes of one turn are held back until the next.

import { createRequire } from 'node:module'
import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
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
