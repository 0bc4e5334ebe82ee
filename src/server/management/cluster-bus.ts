// Pushes between the instances sharing one PostgreSQL database: each instance sends the
// pushes made on it with NOTIFY on the `warden_push` channel and LISTENs for the others', so
// an approver's UI connected to any instance sees every instance's approvals, decisions,
// breaker trips and hook changes. One connection sends, in order, so the pushes of one
// instance arrive in the order they were made (PostgreSQL delivers notifications in commit
// order). Several pushes share one notification; a push over NOTIFY's 8000-byte payload
// limit is sent in chunks and put together again on arrival. Pushes are best effort: while
// the database is down they are dropped (at most 10 000 wait), never held against a caller.

import pg from 'pg'
import { errorMessage } from '../../core/index.js'
import type { PushHub, PushRelay, PushTopic } from './hub.js'

const CHANNEL = 'warden_push'
/** Largest payload sent in one notification (PostgreSQL refuses 8000 bytes and more). */
export const MAX_PAYLOAD = 7_800
/** Pushes waiting to be sent; older ones are dropped beyond it. */
const MAX_WAITING = 10_000

/** One push on the wire. */
interface Message {
  t: PushTopic
  n: string
  p: unknown
}

/** A notification: pushes, or one chunk of a push too large for one. */
type Notice = { o: string; m: Message[] } | { o: string; c: string; i: number; k: number; d: string }

/** Options of {@link startClusterBus}. */
export interface ClusterBusOptions {
  url: string
  /** This instance's id (its own notifications are skipped). */
  instance: string
  hub: PushHub
  /** Whether another instance has subscribers to a topic. */
  wanted: (topic: PushTopic) => boolean
  onError?: (error: Error) => void
}

/** A running bus. */
export interface ClusterBus {
  stop(): Promise<void>
}

/** Splits text into pieces of at most `size` characters. */
export function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/** The notifications that carry `messages` from `origin`, each under the payload limit. */
export function packNotices(origin: string, messages: Message[], chunkId: () => string): string[] {
  const out: string[] = []
  let batch: Message[] = []
  let size = 0
  const flush = () => {
    if (batch.length > 0) out.push(JSON.stringify({ o: origin, m: batch }))
    batch = []
    size = 0
  }
  for (const message of messages) {
    const text = JSON.stringify(message)
    const bytes = Buffer.byteLength(text)
    if (bytes + 64 > MAX_PAYLOAD) {
      flush()
      // A chunk's text is escaped again inside the notice: pieces leave room for that.
      const parts = pieces(text, Math.floor(MAX_PAYLOAD / 7))
      const id = chunkId()
      parts.forEach((d, i) => {
        out.push(JSON.stringify({ o: origin, c: id, i, k: parts.length, d }))
      })
      continue
    }
    if (size + bytes + 64 > MAX_PAYLOAD) flush()
    batch.push(message)
    size += bytes + 1
  }
  flush()
  return out
}

/**
 * Starts relaying the hub's pushes to the other instances and theirs to the hub.
 * @returns the bus; the hub relays through it until `stop`.
 */
export async function startClusterBus(options: ClusterBusOptions): Promise<ClusterBus> {
  const { hub, instance } = options
  let stopped = false
  let waiting: Message[] = []
  let sending = false
  let sender: pg.Client | undefined
  let listener: pg.Client | undefined
  let retry: ReturnType<typeof setTimeout> | undefined
  let chunks = 0
  let failing = false
  const partial = new Map<string, string[]>()

  const report = (what: string, error: unknown) => {
    if (failing) return
    failing = true
    options.onError?.(new Error(`cluster pushes: ${what}: ${errorMessage(error)}`))
  }

  function client(): pg.Client {
    const next = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: 5_000 })
    next.on('error', () => undefined)
    return next
  }

  async function connectSender(): Promise<pg.Client> {
    if (sender) return sender
    const next = client()
    next.on('end', () => {
      if (sender === next) sender = undefined
    })
    await next.connect()
    sender = next
    return next
  }

  async function drain(): Promise<void> {
    if (sending || stopped) return
    sending = true
    try {
      while (waiting.length > 0 && !stopped) {
        const messages = waiting
        waiting = []
        const notices = packNotices(instance, messages, () => `${instance}-${++chunks}`)
        try {
          const to = await connectSender()
          for (const notice of notices) await to.query('select pg_notify($1, $2)', [CHANNEL, notice])
          failing = false
        } catch (error) {
          report('a push could not be sent to the other instances', error)
          const broken = sender
          sender = undefined
          await broken?.end().catch(() => undefined)
        }
      }
    } finally {
      sending = false
    }
  }

  function deliver(message: Message): void {
    try {
      hub.receive(message.t, message.n, message.p)
    } catch (error) {
      report('a push from another instance could not be delivered', error)
    }
  }

  function received(text: string | undefined): void {
    if (!text) return
    let notice: Notice
    try {
      notice = JSON.parse(text) as Notice
    } catch {
      return
    }
    if (notice.o === instance) return
    if ('m' in notice) {
      for (const message of notice.m) deliver(message)
      return
    }
    const parts = partial.get(notice.c) ?? []
    parts[notice.i] = notice.d
    partial.set(notice.c, parts)
    if (partial.size > 100) partial.delete(partial.keys().next().value as string)
    if (parts.filter((p) => p !== undefined).length < notice.k) return
    partial.delete(notice.c)
    try {
      deliver(JSON.parse(parts.join('')) as Message)
    } catch {
      // a push whose chunks did not all arrive in one piece is dropped
    }
  }

  async function listen(): Promise<void> {
    if (stopped) return
    const next = client()
    const again = () => {
      if (stopped || listener !== next) return
      listener = undefined
      next.end().catch(() => undefined)
      retry = setTimeout(() => void listen(), 1000)
      retry.unref?.()
    }
    listener = next
    next.on('error', again)
    next.on('end', again)
    next.on('notification', (message) => received(message.payload))
    try {
      await next.connect()
      await next.query(`LISTEN ${CHANNEL}`)
    } catch (error) {
      report('cannot listen for the other instances', error)
      again()
    }
  }

  const relay: PushRelay = {
    wanted: (topic) => options.wanted(topic),
    send(topic, tenant, payload) {
      if (stopped) return
      waiting.push({ t: topic, n: tenant, p: payload })
      if (waiting.length > MAX_WAITING) waiting.splice(0, waiting.length - MAX_WAITING)
      if (!sending) setImmediate(() => void drain())
    },
  }
  await listen()
  hub.relayTo(relay)
  return {
    async stop() {
      stopped = true
      hub.relayTo(undefined)
      if (retry) clearTimeout(retry)
      const ends = [sender, listener].map((c) => c?.end().catch(() => undefined))
      sender = undefined
      listener = undefined
      await Promise.all(ends)
    },
  }
}
