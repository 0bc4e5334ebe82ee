// Reading a decision request's body on the data plane: once, as a Buffer, counting its
// bytes against the body limit and, when it came without a Content-Length, against the
// in-flight bytes limit as they arrive (a declared length was counted on admission).

import type { IncomingMessage } from 'node:http'
import type { InFlightRefusal, InFlightTicket } from '../inflight/index.js'

/** Why a body was not read to its end. */
export type BodyFault = { tooLarge: true } | { refusal: InFlightRefusal } | { aborted: true }

const EMPTY = Buffer.alloc(0)

/**
 * Reads `req`'s body and calls `done` once: with the body, or with why it stopped (the rest
 * of the body is then left unread).
 * @param counted true when the ticket already holds the body's declared length
 */
export function readBody(
  req: IncomingMessage,
  ticket: InFlightTicket,
  maxBytes: number,
  counted: boolean,
  done: (body: Buffer | BodyFault) => void,
): void {
  let first: Buffer | undefined
  let more: Buffer[] | undefined
  let size = 0
  let over = false
  const stop = (fault: BodyFault) => {
    over = true
    first = undefined
    more = undefined
    req.off('data', onData)
    req.off('end', onEnd)
    done(fault)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size > maxBytes) return stop({ tooLarge: true })
    if (!counted) {
      const refusal = ticket.add(chunk.length)
      if (refusal) return stop({ refusal })
    }
    if (first === undefined) first = chunk
    else if (more === undefined) more = [first, chunk]
    else more.push(chunk)
  }
  const onEnd = () => {
    if (over) return
    done(more ? Buffer.concat(more, size) : (first ?? EMPTY))
  }
  const onAborted = () => {
    if (!over) stop({ aborted: true })
  }
  req.on('data', onData)
  req.once('end', onEnd)
  // A caller that goes away mid-body: Node emits 'error' (ECONNRESET) on the request.
  req.once('error', onAborted)
}
