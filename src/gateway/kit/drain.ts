// Reading and discarding an upload the gateway refuses (a body over its limit), so
// the client, still writing, reads the 413 and its message instead of a broken pipe. The
// discard is bounded in bytes and time: past either, the answer goes out and the
// connection closes.

import type { IncomingMessage } from 'node:http'

/** At most this many bytes of a refused upload are read (and thrown away). */
export const MAX_DISCARD_BYTES = 64 * 1024 * 1024
/** At most this long is spent reading a refused upload. */
export const MAX_DISCARD_MS = 10_000

/**
 * Reads and drops what is left of a request body, up to `maxBytes` and `maxMs`.
 * @returns whether the body was read to its end (so the connection can be kept).
 */
export function discardBody(
  request: IncomingMessage,
  maxBytes: number,
  maxMs: number = MAX_DISCARD_MS,
): Promise<boolean> {
  if (request.complete || request.readableEnded || request.destroyed) return Promise.resolve(request.complete)
  return new Promise((resolve) => {
    let read = 0
    const finish = (whole: boolean) => {
      clearTimeout(timer)
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('error', onFail)
      request.off('close', onFail)
      resolve(whole)
    }
    const onData = (chunk: Buffer) => {
      read += chunk.length
      if (read > maxBytes) finish(false)
    }
    const onEnd = () => finish(true)
    const onFail = () => finish(false)
    const timer = setTimeout(() => finish(false), maxMs)
    timer.unref?.()
    request.on('data', onData)
    request.once('end', onEnd)
    request.once('error', onFail)
    request.once('close', onFail)
    request.resume()
  })
}

/** How much of a refused upload to read for a body limit of `limit` bytes: four times it, capped. */
export function discardBound(limit: number): number {
  return Math.min(4 * limit, MAX_DISCARD_BYTES)
}
