// Server-Sent Events both ways: an incremental parser for the upstream's stream that never
// holds more than one event (an event over the size limit is an error, so an upstream that
// never ends an event cannot grow the gateway's memory), and the framing of the events the
// gateway writes to its client.

/** One parsed event: its `event:` type (when given) and its joined `data:` lines. */
export interface SseEvent {
  type?: string
  data: string
}

/** An event larger than the limit. */
export class SseTooLargeError extends Error {
  override readonly name = 'SseTooLargeError'
}

/** Splits a byte stream into events, holding at most `maxEventBytes` of one event. */
export class SseParser {
  private buffer = ''
  private data: string[] = []
  private dataBytes = 0
  private type: string | undefined
  private readonly decoder = new TextDecoder()

  constructor(
    private readonly maxEventBytes: number,
    /** The setting named when an event is too large. */
    private readonly setting = 'a2a.maxEventBytes',
  ) {}

  /**
   * Feeds bytes and returns the events they complete.
   * @throws SseTooLargeError when one event grows past the limit.
   */
  push(chunk: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true })
    const events: SseEvent[] = []
    let start = 0
    for (;;) {
      const end = nextLineEnd(this.buffer, start)
      if (end < 0) break
      const line = this.buffer.slice(start, end)
      start = end + (this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1)
      const event = this.line(line)
      if (event) events.push(event)
    }
    this.buffer = this.buffer.slice(start)
    if (this.buffer.length + this.dataBytes > this.maxEventBytes) {
      throw new SseTooLargeError(
        `the upstream sent a streamed event over the limit of ${this.maxEventBytes} bytes (${this.setting})`,
      )
    }
    return events
  }

  /** Whether a partial event is still pending (the stream ended in its middle). */
  pending(): boolean {
    return this.buffer.length > 0 || this.data.length > 0
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.type = undefined
        return undefined
      }
      const event: SseEvent = { data: this.data.join('\n') }
      if (this.type !== undefined) event.type = this.type
      this.data = []
      this.dataBytes = 0
      this.type = undefined
      return event
    }
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') {
      this.data.push(value)
      this.dataBytes += value.length + 1
    } else if (field === 'event') {
      this.type = value
    }
    return undefined
  }
}

function nextLineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) return i
    if (c === 13) return i + 1 < text.length || text[i + 1] === '\n' ? i : -1
  }
  return -1
}

/** One event in SSE framing (`event:` line when a type is given). */
export function sseFrame(data: unknown, type?: string): string {
  const json = JSON.stringify(data)
  return type === undefined ? `data: ${json}\n\n` : `event: ${type}\ndata: ${json}\n\n`
}

/** The response headers of an event stream. */
export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
}
