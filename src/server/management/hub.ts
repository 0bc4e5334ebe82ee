// Pushes to subscribed `/ws` connections: `decision` (each decision as it is made, with
// event/decision filters), `approval.requested`, `approval.resolved`, `hook.changed`,
// `breaker.tripped`. A push reaches only connections whose token covers its tenant; each
// push is serialised (and encoded) once however many connections get it, and `decision`
// pushes may wait a few milliseconds to leave with the others (push-writer.ts); a connection
// that does not read (its send buffer over the limit) loses pushes and is told how many.
// With a relay (several instances on one database) each push made here is also handed to
// the other instances, and theirs are delivered here; a push that several instances make
// for the same change (an approval resolved, a hook changed) reaches a connection once.

import { type Decision, type DecisionRecord, subjectOf } from '../../core/index.js'
import { inputPreview } from './decision-views.js'
import { eventFrame, type PushFilter } from './protocol.js'

/** The push topics a connection can subscribe to. */
export const PUSH_TOPICS = [
  'decision',
  'approval.requested',
  'approval.resolved',
  'hook.changed',
  'breaker.tripped',
] as const

export type PushTopic = (typeof PUSH_TOPICS)[number]

/** A subscribed connection as the hub sees it. */
export interface Subscriber {
  /** Absent for a master token: every tenant's pushes. */
  tenant?: string
  topics: Map<PushTopic, PushFilter>
  /** Bytes queued but not yet sent. */
  buffered(): number
  /**
   * Sends a text frame (given as UTF-8 bytes when it goes to many connections). A push that
   * is not `urgent` (a decision) may wait a few milliseconds to leave with others.
   */
  send(frame: string | Buffer, urgent?: boolean): void
  /** Pushes lost because the connection did not keep up, not yet reported. */
  dropped: number
}

/** Most bytes a connection may have queued before pushes to it are dropped. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024

/** The short form of a decision a `decision` push carries (decisions.get has the rest). */
export function decisionSummary(record: DecisionRecord): Record<string, unknown> {
  const { decision, event } = record
  const context = event.context
  const agent = context.agent as { id?: unknown } | undefined
  const session = context.session as { id?: unknown } | undefined
  return {
    id: decision.id,
    at: Date.now(),
    event: decision.event,
    decision: decision.decision,
    reason: decision.reason,
    reasonCode: decision.reasonCode,
    tenant: typeof context.tenantId === 'string' ? context.tenantId : '',
    agentId: typeof agent?.id === 'string' ? agent.id : undefined,
    sessionId: typeof session?.id === 'string' ? session.id : undefined,
    tool: subjectOf(event.payload),
    preview: inputPreview(event),
    durationMs: decision.durationMs,
    blocking: decision.blocking,
    hooks: decision.trace.map((t) => ({
      hook: t.id ?? t.hook,
      outcome: t.outcome,
      durationMs: t.durationMs,
      ...(t.shadow ? { shadow: true } : {}),
    })),
    ...(decision.approval ? { approval: decision.approval } : {}),
  }
}

function passes(filter: PushFilter, decision: Decision): boolean {
  if (filter.events && !filter.events.includes(decision.event)) return false
  if (filter.decisions && !filter.decisions.includes(decision.decision)) return false
  return true
}

/** Hands pushes made here to the other instances. */
export interface PushRelay {
  /** Whether another instance has subscribers to the topic (decisions are only sent then). */
  wanted(topic: PushTopic): boolean
  send(topic: PushTopic, tenant: string, payload: unknown): void
}

/** Pushes remembered to drop the same change pushed again (by another instance). */
const SEEN_LIMIT = 10_000

/** What makes two pushes the same change, or undefined when every push is its own. */
function changeKey(topic: PushTopic, payload: unknown): string | undefined {
  const p = payload as Record<string, unknown>
  switch (topic) {
    case 'approval.requested':
    case 'approval.resolved':
      return `${topic}:${String(p.id)}:${String(p.status)}`
    case 'hook.changed':
      return `${topic}:${String(p.id)}:${String(p.change)}:${String(p.version)}:${String(p.enabled)}`
    case 'breaker.tripped':
      return `${topic}:${String(p.hookId)}:${String(p.openedAt)}`
    default:
      return undefined
  }
}

/** Fans pushes out to subscribers. */
export class PushHub {
  private readonly subscribers = new Set<Subscriber>()
  private readonly counts = new Map<PushTopic, number>()
  private readonly seen = new Set<string>()
  private relay: PushRelay | undefined

  /** Connects the hub to the other instances (pushes made here go out, theirs come in). */
  relayTo(relay: PushRelay | undefined): void {
    this.relay = relay
  }

  /** The topics some connection here is subscribed to. */
  topics(): PushTopic[] {
    return [...this.counts.keys()]
  }

  add(subscriber: Subscriber): void {
    this.subscribers.add(subscriber)
    this.recount()
  }

  remove(subscriber: Subscriber): void {
    this.subscribers.delete(subscriber)
    this.recount()
  }

  /** Call after a subscriber's topics changed. */
  recount(): void {
    this.counts.clear()
    for (const s of this.subscribers) {
      for (const topic of s.topics.keys()) this.counts.set(topic, (this.counts.get(topic) ?? 0) + 1)
    }
  }

  /** True when someone listens to the topic (so callers skip building payloads). */
  wants(topic: PushTopic): boolean {
    return (this.counts.get(topic) ?? 0) > 0
  }

  /** True when someone here or on another instance listens to the topic. */
  wantedAnywhere(topic: PushTopic): boolean {
    return this.wants(topic) || this.relay?.wanted(topic) === true
  }

  /** Pushes a decision to the connections whose filters and tenant it passes (here and elsewhere). */
  publishDecision(record: DecisionRecord): void {
    const tenant = typeof record.event.context.tenantId === 'string' ? record.event.context.tenantId : ''
    let summary: Record<string, unknown> | undefined
    if (this.relay?.wanted('decision')) {
      summary = decisionSummary(record)
      this.relay.send('decision', tenant, summary)
    }
    if (!this.wants('decision')) return
    let frame: Buffer | undefined
    for (const s of this.subscribers) {
      const filter = s.topics.get('decision')
      if (!filter || (s.tenant !== undefined && s.tenant !== tenant)) continue
      if (!passes(filter, record.decision)) continue
      frame ??= Buffer.from(eventFrame('decision', summary ?? decisionSummary(record)))
      this.deliver(s, frame, false)
    }
  }

  /** Pushes a non-decision event here and to the other instances; `tenant` "" means global. */
  publish(topic: Exclude<PushTopic, 'decision'>, tenant: string, payload: unknown): void {
    if (this.repeated(topic, payload)) return
    this.relay?.send(topic, tenant, payload)
    this.local(topic, tenant, payload)
  }

  /** Delivers a push another instance made (to the connections here only). */
  receive(topic: PushTopic, tenant: string, payload: unknown): void {
    if (topic === 'decision') {
      this.deliverDecision(tenant, payload as Record<string, unknown>)
      return
    }
    if (this.repeated(topic, payload)) return
    this.local(topic, tenant, payload)
  }

  /** True when the same change was pushed before (remembered for the last 10 000). */
  private repeated(topic: PushTopic, payload: unknown): boolean {
    const key = changeKey(topic, payload)
    if (key === undefined) return false
    if (this.seen.has(key)) return true
    this.seen.add(key)
    if (this.seen.size > SEEN_LIMIT) {
      const oldest = this.seen.values().next().value
      if (oldest !== undefined) this.seen.delete(oldest)
    }
    return false
  }

  private deliverDecision(tenant: string, summary: Record<string, unknown>): void {
    if (!this.wants('decision')) return
    const decision = { event: summary.event, decision: summary.decision } as Decision
    let frame: Buffer | undefined
    for (const s of this.subscribers) {
      const filter = s.topics.get('decision')
      if (!filter || (s.tenant !== undefined && s.tenant !== tenant)) continue
      if (!passes(filter, decision)) continue
      frame ??= Buffer.from(eventFrame('decision', summary))
      this.deliver(s, frame, false)
    }
  }

  private local(topic: PushTopic, tenant: string, payload: unknown): void {
    if (!this.wants(topic)) return
    let frame: Buffer | undefined
    for (const s of this.subscribers) {
      if (!s.topics.has(topic) || (s.tenant !== undefined && s.tenant !== tenant)) continue
      frame ??= Buffer.from(eventFrame(topic, payload))
      this.deliver(s, frame, true)
    }
  }

  private deliver(s: Subscriber, frame: Buffer, urgent: boolean): void {
    if (s.buffered() > MAX_BUFFERED_BYTES) {
      s.dropped++
      return
    }
    if (s.dropped > 0) {
      s.send(eventFrame('push.dropped', { count: s.dropped }))
      s.dropped = 0
    }
    s.send(frame, urgent)
  }
}
