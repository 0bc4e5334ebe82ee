// Where OCSF events go: a JSON-lines file (one event a line, owner-only, rotated by size to
// `<path>.1` … `<path>.<keep>`) and an HTTP collector (a batch is one POST of a JSON array,
// through the SSRF-safe outbound client, retried with backoff). A sink is handed serialized
// events and throws when they could not be written, saying why; the emitter counts the drop.

import type { FileHandle } from 'node:fs/promises'
import { mkdir, open, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { OutboundClient } from '../../net/index.js'
import { redactUrl } from '../../net/index.js'
import type { OcsfSettings } from './settings.js'

/** A destination of serialized events. */
export interface OcsfSink {
  /** `file` or `http`: the metrics label. */
  readonly name: string
  /** Most events handed over at once. */
  readonly batchSize: number
  /** How long a partial batch waits for more, in ms (0: at once). */
  readonly intervalMs: number
  write(events: string[]): Promise<void>
  close(): Promise<void>
}

/** Appends events to a file as JSON lines, rotating it by size. */
export class FileSink implements OcsfSink {
  readonly name = 'file'
  readonly batchSize = 1000
  readonly intervalMs = 0
  private handle: FileHandle | undefined
  private size = 0

  constructor(private readonly settings: NonNullable<OcsfSettings['file']>) {}

  async write(events: string[]): Promise<void> {
    if (!this.handle) await this.open()
    let parts: Buffer[] = []
    let bytes = 0
    for (const event of events) {
      const line = Buffer.from(`${event}\n`, 'utf8')
      if (this.size + bytes > 0 && this.size + bytes + line.length > this.settings.maxBytes) {
        await this.append(parts, bytes)
        parts = []
        bytes = 0
        if (this.size > 0) await this.rotate()
      }
      parts.push(line)
      bytes += line.length
    }
    await this.append(parts, bytes)
  }

  private async append(parts: Buffer[], bytes: number): Promise<void> {
    if (bytes === 0) return
    await (this.handle as FileHandle).write(Buffer.concat(parts, bytes))
    this.size += bytes
  }

  private async open(): Promise<void> {
    await mkdir(dirname(this.settings.path), { recursive: true })
    this.handle = await open(this.settings.path, 'a', 0o600)
    this.size = (await this.handle.stat()).size
  }

  /** `<path>` becomes `<path>.1`, `.1` becomes `.2`, … up to `keep`; the oldest is replaced. */
  private async rotate(): Promise<void> {
    await this.handle?.close()
    this.handle = undefined
    const { path, keep } = this.settings
    for (let index = keep - 1; index >= 1; index--) {
      await rename(`${path}.${index}`, `${path}.${index + 1}`).catch(() => undefined)
    }
    await rename(path, `${path}.1`)
    await this.open()
  }

  async close(): Promise<void> {
    await this.handle?.close()
    this.handle = undefined
  }
}

/** POSTs batches of events as a JSON array to a collector. */
export class HttpSink implements OcsfSink {
  readonly name = 'http'
  readonly batchSize: number
  readonly intervalMs: number
  private readonly abort = new AbortController()

  constructor(
    private readonly settings: NonNullable<OcsfSettings['http']>,
    private readonly client: OutboundClient,
  ) {
    this.batchSize = settings.batchSize
    this.intervalMs = settings.intervalMs
  }

  async write(events: string[]): Promise<void> {
    const body = `[${events.join(',')}]`
    let lastError = 'not sent'
    for (let attempt = 1; attempt <= this.settings.maxAttempts; attempt++) {
      if (this.abort.signal.aborted) break
      try {
        const response = await this.client.request({
          url: this.settings.url,
          method: 'POST',
          headers: { ...this.settings.headers, 'content-type': 'application/json' },
          body,
          timeoutMs: this.settings.timeoutMs,
          maxResponseBytes: 64 * 1024,
          signal: this.abort.signal,
        })
        if (response.status >= 200 && response.status < 300) return
        lastError = `the collector answered HTTP ${response.status}`
      } catch (error) {
        lastError = (error as Error).message
      }
      if (attempt < this.settings.maxAttempts) await this.backoff(attempt)
    }
    throw new Error(`${redactUrl(this.settings.url)}: ${lastError}`)
  }

  private backoff(attempt: number): Promise<void> {
    const base = 250 * 2 ** (attempt - 1)
    return new Promise((done) => {
      const stop = () => {
        clearTimeout(timer)
        done()
      }
      const timer = setTimeout(
        () => {
          this.abort.signal.removeEventListener('abort', stop)
          done()
        },
        base / 2 + Math.random() * base,
      )
      timer.unref?.()
      this.abort.signal.addEventListener('abort', stop, { once: true })
    })
  }

  async close(): Promise<void> {
    this.abort.abort()
    await this.client.close()
  }
}
