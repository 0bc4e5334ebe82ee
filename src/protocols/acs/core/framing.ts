// Content-Length framing for ACS over stdio (§3): `Content-Length: N\r\n\r\n` then N bytes
// of UTF-8 JSON, like LSP. A reader that bounds the frame size and never buffers more than
// one oversized header; the well-formed frames before a bad one are still handed out, and
// the bad one is kept as the stream's failure.

/** Encodes one message as a frame. */
export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8')
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body])
}

/** Why a stream of frames could not be read. */
export class FrameError extends Error {
  override readonly name = 'FrameError'
}

/** Splits a byte stream into frame bodies. */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0)
  /** Why the stream cannot be read past some point; nothing after it is read. */
  failure: FrameError | undefined

  constructor(private readonly maxBytes: number) {}

  /**
   * Adds bytes and returns every complete body before the first bad frame, if any (a header
   * without Content-Length, a header over 8 KiB, a frame over the limit): that one is then
   * {@link failure}, and later bytes are ignored.
   */
  push(chunk: Uint8Array): Buffer[] {
    if (this.failure) return []
    this.buffer = this.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffer, chunk])
    const bodies: Buffer[] = []
    const fail = (message: string): Buffer[] => {
      this.failure = new FrameError(message)
      this.buffer = Buffer.alloc(0)
      return bodies
    }
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n')
      if (end < 0) {
        if (this.buffer.length > 8192)
          return fail('a frame header is over 8 KiB; send "Content-Length: N" then a blank line')
        return bodies
      }
      const header = this.buffer.subarray(0, end).toString('ascii')
      const match = /^content-length:\s*(\d+)\s*$/im.exec(header)
      if (!match)
        return fail(
          'a frame header has no Content-Length; send "Content-Length: N\\r\\n\\r\\n" before each message',
        )
      const length = Number(match[1])
      if (length > this.maxBytes)
        return fail(`a frame of ${length} bytes is over the limit of ${this.maxBytes}`)
      if (this.buffer.length < end + 4 + length) return bodies
      bodies.push(this.buffer.subarray(end + 4, end + 4 + length))
      this.buffer = this.buffer.subarray(end + 4 + length)
    }
  }
}
