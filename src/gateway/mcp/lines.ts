// Newline-delimited JSON-RPC, as MCP's stdio transport frames it: one message per line.
// The stdio gateway uses these transports in place of the SDK's so that each message is
// parsed once and its JSON-RPC envelope checked by hand (the rules of the SDK's message
// schema, without building a validated copy of every message), and so that the messages
// decided in one turn of the event loop leave in one write, before the loop goes on.

import { type ChildProcess, spawn } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { BatchReceiver } from './batch.js'
import { envelopeProblem } from './jsonrpc.js'

const NEWLINE = 10
const SENT: Promise<void> = Promise.resolve()
/** A burst longer than this is written at once rather than held to the end of the turn. */
const MAX_BATCH_CHARS = 1 << 20

/**
 * Splits a byte stream into lines of at most `maxBytes` bytes each.
 * @throws Error from {@link LineSplitter.push} when a line grows past the limit.
 */
export class LineSplitter {
  private pending: Buffer[] = []
  private pendingBytes = 0

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Feeds a chunk; calls `onLine` for every line it completes. */
  push(chunk: Buffer): void {
    let start = 0
    let end = chunk.indexOf(NEWLINE)
    while (end !== -1) {
      let line: string
      if (this.pendingBytes > 0) {
        this.checkSize(this.pendingBytes + end - start)
        this.pending.push(chunk.subarray(start, end))
        line = Buffer.concat(this.pending).toString('utf8')
        this.clear()
      } else {
        this.checkSize(end - start)
        line = chunk.toString('utf8', start, end)
      }
      this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line)
      start = end + 1
      end = chunk.indexOf(NEWLINE, start)
    }
    if (start < chunk.length) {
      this.checkSize(this.pendingBytes + chunk.length - start)
      this.pending.push(start === 0 ? chunk : chunk.subarray(start))
      this.pendingBytes += chunk.length - start
    }
  }

  /** Drops a partial line. */
  clear(): void {
    this.pending = []
    this.pendingBytes = 0
  }

  private checkSize(bytes: number): void {
    if (bytes <= this.maxBytes) return
    this.clear()
    throw new Error(`a message is over the limit of ${this.maxBytes} bytes`)
  }
}

/** A transport over a readable and a writable stream of newline-delimited JSON-RPC. */
export class LineTransport implements Transport, BatchReceiver {
  onclose?: () => void
  /** Receives a JSON-RPC batch (an array); without it a batch is ignored with an error. */
  onbatch?: (elements: unknown[]) => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly splitter: LineSplitter
  private closed = false

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    maxMessageBytes: number,
  ) {
    this.splitter = new LineSplitter(maxMessageBytes, (line) => this.receive(line))
  }

  private readonly onData = (chunk: Buffer | string): void => {
    try {
      this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    } catch (error) {
      this.onerror?.(error as Error)
      void this.close()
    }
  }

  /**
   * The lines sent since the last flush. The first message of a burst schedules a flush
   * for when the current microtasks are done: no timer, no wait for I/O, one write for the
   * whole burst, so a peer fed several pipelined messages reads them at once (as it would
   * without the gateway in between).
   */
  private batch = ''
  private readonly flush = (): void => {
    const batch = this.batch
    this.batch = ''
    if (batch.length > 0 && !this.output.destroyed) this.output.write(batch)
  }

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error)
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData)
    this.input.on('error', this.onStreamError)
    this.output.on('error', this.onStreamError)
  }

  /** Writes the message with this burst; resolves at once, or after a drain when the stream is full. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.output.destroyed) return Promise.reject(new Error('Not connected'))
    const line = `${JSON.stringify(message)}\n`
    if (this.batch.length === 0) {
      this.batch = line
      process.nextTick(this.flush)
    } else {
      this.batch += line
      if (this.batch.length > MAX_BATCH_CHARS) this.flush()
    }
    if (!this.output.writableNeedDrain) return SENT
    return new Promise((resolve) => this.output.once('drain', resolve))
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // What was sent in this turn still goes out, before the owner ends the stream.
    this.flush()
    this.input.off('data', this.onData)
    this.input.off('error', this.onStreamError)
    this.output.off('error', this.onStreamError)
    if (this.input.listenerCount('data') === 0) this.input.pause()
    this.splitter.clear()
    this.onclose?.()
  }

  private receive(line: string): void {
    if (line.length === 0 || this.closed) return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      this.onerror?.(new Error(`a line that is not JSON was ignored (${line.length} characters)`))
      return
    }
    if (Array.isArray(value) && this.onbatch) {
      this.onbatch(value)
      return
    }
    const problem = envelopeProblem(value)
    if (problem) {
      this.onerror?.(new Error(`a message that is not valid JSON-RPC was ignored: ${problem}`))
      return
    }
    this.onmessage?.(value as JSONRPCMessage)
  }
}

/** How to start the server child of a {@link ChildTransport}. */
export interface ChildTransportOptions {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
  cwd?: string
  maxMessageBytes: number
}

const CLOSE_GRACE_MS = 2000

/**
 * A transport to a child process speaking newline-delimited JSON-RPC on its stdin and
 * stdout; its stderr goes to the gateway's stderr.
 */
export class ChildTransport implements Transport, BatchReceiver {
  onclose?: () => void
  onbatch?: (elements: unknown[]) => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** The child, once started. */
  child: ChildProcess | undefined
  private lines: LineTransport | undefined

  constructor(private readonly options: ChildTransportOptions) {}

  /**
   * Starts the child.
   * @throws Error when it cannot be started (no such command, no permission).
   */
  start(): Promise<void> {
    const { command, args, env, cwd } = this.options
    const child = spawn(command, args, {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
      shell: false,
      ...(cwd ? { cwd } : {}),
    })
    this.child = child
    // Errors on the pipes after the session closed (EPIPE) must not end the process.
    child.stdin.on('error', ignore)
    child.stdout.on('error', ignore)
    const lines = new LineTransport(child.stdout, child.stdin, this.options.maxMessageBytes)
    this.lines = lines
    lines.onmessage = (message) => this.onmessage?.(message)
    lines.onerror = (error) => this.onerror?.(error)
    lines.onbatch = (elements) => {
      if (this.onbatch) this.onbatch(elements)
      else this.onerror?.(new Error('a JSON-RPC batch was ignored'))
    }
    void lines.start()
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve())
      child.on('error', (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.once('close', () => {
        void lines.close()
        this.onclose?.()
      })
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.lines ? this.lines.send(message) : Promise.reject(new Error('Not connected'))
  }

  /** Closes the child's stdin, then sends SIGTERM and at last SIGKILL if it does not exit. */
  async close(): Promise<void> {
    const child = this.child
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
    const within = (ms: number) =>
      Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())])
    child.stdin?.end()
    await within(CLOSE_GRACE_MS)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await within(CLOSE_GRACE_MS)
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

function ignore(): void {}
