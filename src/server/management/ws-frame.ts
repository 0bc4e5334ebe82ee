// A push as it goes on the wire: the WebSocket text frame (RFC 6455 §5.2; a server's frames
// are not masked) built once per push, so that the same bytes go to every subscribed
// connection in one write each, rather than ws framing the push again for each of them.

/** The frame last built, for the next connection that gets the same push. */
let lastPayload: Buffer | undefined
let lastFrame: Buffer | undefined

/**
 * The unmasked, final text frame carrying `payload` (UTF-8 bytes). The pushes of one
 * decision reach each connection in turn, so the last frame is kept and given again for the
 * same payload.
 */
export function textFrame(payload: Buffer): Buffer {
  if (payload === lastPayload && lastFrame !== undefined) return lastFrame
  const length = payload.length
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10
  const frame = Buffer.allocUnsafe(head + length)
  frame[0] = 0x81 // FIN, opcode 1 (text)
  if (length < 126) frame[1] = length
  else if (length < 65536) {
    frame[1] = 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 127
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2)
    frame.writeUInt32BE(length >>> 0, 6)
  }
  payload.copy(frame, head)
  lastPayload = payload
  lastFrame = frame
  return frame
}

/** A socket that can hold its writes back (a net.Socket). */
export interface Corkable {
  cork(): void
  uncork(): void
}

/** Sockets corked in this event-loop turn, uncorked together at the next. */
const corked = new Set<Corkable>()

function uncorkAll(): void {
  for (const socket of corked) socket.uncork()
  corked.clear()
}

/**
 * Holds `socket`'s writes until the next turn of the event loop, so that the pushes of one
 * turn leave in one write per connection; one timer serves every connection corked in the
 * same turn.
 */
export function corkUntilNextTurn(socket: Corkable): void {
  if (corked.has(socket)) return
  if (corked.size === 0) setImmediate(uncorkAll)
  corked.add(socket)
  socket.cork()
}
