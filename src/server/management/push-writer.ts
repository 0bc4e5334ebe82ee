// Pushes as they go on the wire to `/ws` connections: the WebSocket text frame (RFC 6455
// §5.2; a server's frames are not masked) built once per push, and the pushes of a short
// window gathered per connection and written in one piece. Decision pushes (the busy feed)
// wait up to PUSH_BATCH_MS to leave together; any other push leaves at the next turn of the
// event loop. Connections that got the same pushes in a window get the same joined bytes,
// built once. Anything else a connection sends first writes out what it has waiting, so a
// connection sees its pushes and answers in the order they were made.

/** Longest a decision push waits to leave with the others of its window, in ms. */
export const PUSH_BATCH_MS = 2

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
 * Holds `socket`'s writes until the next turn of the event loop, so that what is written
 * in one turn leaves in one write; one timer serves every socket corked in the same turn.
 */
export function corkUntilNextTurn(socket: Corkable): void {
  if (corked.has(socket)) return
  if (corked.size === 0) setImmediate(uncorkAll)
  corked.add(socket)
  socket.cork()
}

/** Where a connection's gathered pushes are written. */
export interface PushTarget {
  /** Writes bytes to the TCP socket (frames already built). */
  write(bytes: Buffer): void
  /** False once the connection is closing: what waits for it is dropped. */
  open(): boolean
}

interface Waiting {
  frames: Buffer[]
  bytes: number
}

/** Connections with pushes waiting, in the order they got their first. */
const waiting = new Map<PushTarget, Waiting>()
let soon = false
let later: ReturnType<typeof setTimeout> | undefined

/**
 * Queues a built frame for a connection. `urgent` pushes leave at the next turn, others
 * within PUSH_BATCH_MS.
 */
export function queuePush(target: PushTarget, frame: Buffer, urgent: boolean): void {
  let entry = waiting.get(target)
  if (!entry) {
    entry = { frames: [], bytes: 0 }
    waiting.set(target, entry)
  }
  entry.frames.push(frame)
  entry.bytes += frame.length
  if (urgent) {
    if (!soon) {
      soon = true
      setImmediate(flushPushes)
    }
  } else if (later === undefined && !soon) {
    later = setTimeout(flushPushes, PUSH_BATCH_MS)
    later.unref?.()
  }
}

/** Bytes of pushes waiting for a connection (counted with its send buffer). */
export function waitingBytes(target: PushTarget): number {
  return waiting.get(target)?.bytes ?? 0
}

/** Writes out a connection's waiting pushes now (before anything else it sends). */
export function flushTarget(target: PushTarget): void {
  const entry = waiting.get(target)
  if (!entry) return
  waiting.delete(target)
  if (target.open()) target.write(join(entry.frames))
}

function join(frames: Buffer[]): Buffer {
  return frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames)
}

/** Writes every waiting push; connections that got the same frames share one joined buffer. */
export function flushPushes(): void {
  soon = false
  if (later !== undefined) clearTimeout(later)
  later = undefined
  // Joined buffers by the first frame they start with (checked frame by frame on reuse).
  const joined = new Map<Buffer, { frames: Buffer[]; bytes: Buffer }[]>()
  const entries = [...waiting]
  waiting.clear()
  for (const [target, { frames }] of entries) {
    if (!target.open()) continue
    if (frames.length === 1) {
      target.write(frames[0] as Buffer)
      continue
    }
    const first = frames[0] as Buffer
    const known = joined.get(first) ?? []
    let bytes = known.find((k) => sameFrames(k.frames, frames))?.bytes
    if (!bytes) {
      bytes = Buffer.concat(frames)
      known.push({ frames, bytes })
      joined.set(first, known)
    }
    target.write(bytes)
  }
}

function sameFrames(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
