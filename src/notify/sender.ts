// Delivery of one route's messages, off the decision path: items wait in a bounded queue,
// a burst within the batch window goes out as one message (up to maxBatch items), one
// request at a time through the SSRF-safe outbound client, retried with exponential backoff
// and jitter. An item the queue cannot take, or a batch that still fails after its last
// attempt, is dropped and counted (the caller's `onDrop`); nothing here ever waits on a
// decision or makes one wait.

import { randomUUID } from 'node:crypto'
import type { OutboundClient } from '../net/index.js'
import { redactUrl } from '../net/index.js'
import { type NotificationItem, SIGNATURE_HEADER, signature, slackBody, webhookBody } from './messages.js'
import type { NotificationRoute, NotificationSettings } from './settings.js'

/** Why items were dropped. */
export type DropReason = 'queue-full' | 'failed' | 'shutdown'

/** Hooks of a sender into metrics and logs. */
export interface SenderEvents {
  onSent(route: string, items: number): void
  onDrop(route: string, reason: DropReason, items: number, cause: string): void
}

type Timing = Pick<
  NotificationSettings,
  'batchWindowMs' | 'maxBatch' | 'maxQueue' | 'maxAttempts' | 'retryBaseMs' | 'timeoutMs'
>

/** Sends one route's items, batched and retried. */
export class RouteSender {
  private readonly queue: NotificationItem[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private sending = false
  private closed = false
  private readonly abort = new AbortController()
  /** Settles when the current send is over (for close). */
  private current: Promise<void> = Promise.resolve()

  constructor(
    readonly route: NotificationRoute,
    private readonly client: OutboundClient,
    private readonly timing: Timing,
    private readonly events: SenderEvents,
    private readonly now: () => number = Date.now,
  ) {}

  /** Items waiting to go. */
  depth(): number {
    return this.queue.length
  }

  /** Queues an item; drops it (counted) when the queue is full. */
  push(item: NotificationItem): void {
    if (this.closed) return
    if (this.queue.length >= this.timing.maxQueue) {
      this.events.onDrop(this.route.name, 'queue-full', 1, `the queue holds ${this.timing.maxQueue} items`)
      return
    }
    this.queue.push(item)
    this.schedule()
  }

  private schedule(): void {
    if (this.closed || this.sending || this.timer || this.queue.length === 0) return
    const wait = this.queue.length >= this.timing.maxBatch ? 0 : this.timing.batchWindowMs
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.current = this.flush()
    }, wait)
    this.timer.unref?.()
  }

  private async flush(): Promise<void> {
    if (this.queue.length === 0) return
    this.sending = true
    const batch = this.queue.splice(0, this.timing.maxBatch)
    try {
      await this.deliver(batch)
      this.events.onSent(this.route.name, batch.length)
    } catch (error) {
      const reason: DropReason = this.closed ? 'shutdown' : 'failed'
      this.events.onDrop(this.route.name, reason, batch.length, (error as Error).message)
    } finally {
      this.sending = false
      this.schedule()
    }
  }

  private async deliver(batch: NotificationItem[]): Promise<void> {
    const delivery = randomUUID()
    let lastError = 'not sent'
    for (let attempt = 1; attempt <= this.timing.maxAttempts; attempt++) {
      if (this.closed && attempt > 1) break
      try {
        await this.attempt(delivery, batch)
        return
      } catch (error) {
        lastError = this.scrub((error as Error).message)
      }
      if (attempt < this.timing.maxAttempts && !this.closed) await this.backoff(attempt)
    }
    throw new Error(`${this.shown()}: ${lastError}`)
  }

  /** The route's address as logs show it: scheme and host only (a Slack URL's path is its token). */
  private shown(): string {
    try {
      const url = new URL(this.route.url)
      return `${url.protocol}//${url.host}`
    } catch {
      return 'the endpoint'
    }
  }

  /** An error message with the route's path (and query) taken out. */
  private scrub(message: string): string {
    let text = message.split(redactUrl(this.route.url)).join(this.shown())
    try {
      const { pathname, search } = new URL(this.route.url)
      for (const part of [search, pathname]) if (part.length > 1) text = text.split(part).join('/…')
    } catch {
      // An unparsable URL never got this far (the client refuses it first).
    }
    return text
  }

  private async attempt(delivery: string, batch: NotificationItem[]): Promise<void> {
    const now = this.now()
    const body = this.route.type === 'slack' ? slackBody(batch) : webhookBody(delivery, batch, now)
    const headers: Record<string, string> = {
      ...this.route.headers,
      'content-type': 'application/json',
      'warden-delivery': delivery,
    }
    if (this.route.secret)
      headers[SIGNATURE_HEADER] = signature(this.route.secret, body, Math.floor(now / 1000))
    const response = await this.client.request({
      url: this.route.url,
      method: 'POST',
      headers,
      body,
      timeoutMs: this.timing.timeoutMs,
      maxResponseBytes: 64 * 1024,
      signal: this.abort.signal,
    })
    if (response.status < 200 || response.status >= 300)
      throw new Error(`the endpoint answered HTTP ${response.status}`)
  }

  private backoff(attempt: number): Promise<void> {
    const base = this.timing.retryBaseMs * 2 ** (attempt - 1)
    const wait = Math.min(60_000, base / 2 + Math.random() * base)
    return new Promise((done) => {
      const stop = () => {
        clearTimeout(timer)
        done()
      }
      const timer = setTimeout(() => {
        this.abort.signal.removeEventListener('abort', stop)
        done()
      }, wait)
      timer.unref?.()
      this.abort.signal.addEventListener('abort', stop, { once: true })
    })
  }

  /** Sends what is queued (one last attempt each) within `deadlineMs`, then drops the rest. */
  async close(deadlineMs: number): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    const last = (async () => {
      await this.current
      this.closed = true
      while (this.queue.length > 0) await this.flush()
    })()
    let deadline: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<void>((done) => {
      deadline = setTimeout(done, deadlineMs)
    })
    await Promise.race([last, late])
    clearTimeout(deadline)
    this.closed = true
    this.abort.abort()
    if (this.queue.length > 0) {
      this.events.onDrop(
        this.route.name,
        'shutdown',
        this.queue.length,
        'Warden shut down before they were sent',
      )
      this.queue.length = 0
    }
  }
}
