// The notifier of `warden serve`: it wraps the engine's recorder (decisions and breaker
// trips), takes the approval broker's "approval requested" call, turns them into messages
// (approvals, approvals about to time out, breakers, failing hooks, deny-rate jumps) and
// hands each to the routes that may see it: a route bound to a tenant gets that tenant's
// messages only; a route without one (an operator's) gets every tenant's. The recorder only
// queues what it is given (bounded) and returns the inner recorder's answer untouched: the
// work happens on a later turn of the event loop, never on the decision path.

import { Counter, Gauge, type Registry } from 'prom-client'
import {
  AfterTurnQueue,
  type BreakerTrip,
  type DecisionRecord,
  type HookSpec,
  type Recorder,
  ThrottledCount,
} from '../core/index.js'
import type { OutboundClient } from '../net/index.js'
import { approvalItem, breakerItem, denyRateItem, failingItem, type NotificationItem } from './messages.js'
import { type DropReason, RouteSender } from './sender.js'
import type { NotificationKind, NotificationSettings } from './settings.js'
import { DenyRateWatch, FailureWatch } from './triggers.js'

/** Decisions waiting to be looked at; beyond this they are skipped (and counted). */
export const MAX_PENDING_RECORDS = 10_000
/** Approvals watched for their deadline at once. */
const MAX_DEADLINE_TIMERS = 10_000
/** One drop line per route and reason in the security log at most this often. */
const DROP_LOG_EVERY_MS = 10_000
/** Hook error kinds that count as the hook failing (a breaker refusal or a turn cap do not). */
const FAILURES = new Set(['error', 'timeout', 'invalid-answer'])

/** What a notifier writes its drop lines to. */
export interface DropLog {
  warn(fields: Record<string, unknown>, message: string): void
}

/** Options of {@link Notifier}. */
export interface NotifierOptions {
  settings: NotificationSettings
  client: OutboundClient
  /** Metrics are registered here (sent, dropped, queued). */
  registry?: Registry
  /** The security log (drops). */
  log?: DropLog
  /** Whether an approval is still pending, asked before "about to time out" is sent. */
  isPending?: (approvalId: string) => Promise<boolean>
  now?: () => number
}

/** Sends notifications for one Warden. */
export class Notifier {
  private readonly senders: RouteSender[]
  private readonly failures: FailureWatch
  private readonly denials: DenyRateWatch
  private readonly wanted: Set<NotificationKind>
  private readonly pending = new AfterTurnQueue<DecisionRecord>(MAX_PENDING_RECORDS, (records) => {
    for (const record of records) this.look(record)
  })
  private readonly deadlines = new Map<string, ReturnType<typeof setTimeout>>()
  private readonly dropLog = new ThrottledCount(DROP_LOG_EVERY_MS)
  private readonly sent: Counter<'route'> | undefined
  private readonly dropped: Counter<'route' | 'reason'> | undefined
  private readonly now: () => number
  private closed = false

  constructor(private readonly options: NotifierOptions) {
    const { settings } = options
    this.now = options.now ?? Date.now
    this.failures = new FailureWatch(settings.hookFailures)
    this.denials = new DenyRateWatch(settings.denyRate)
    this.wanted = new Set(settings.routes.flatMap((r) => [...r.kinds]))
    const registers = options.registry ? [options.registry] : undefined
    if (registers) {
      this.sent = new Counter({
        name: 'warden_notifications_sent_total',
        help: 'Notification items delivered, by route.',
        labelNames: ['route'] as const,
        registers,
      })
      this.dropped = new Counter({
        name: 'warden_notifications_dropped_total',
        help: 'Notification items dropped (queue full, endpoint failing after retries, shutdown), by route and reason.',
        labelNames: ['route', 'reason'] as const,
        registers,
      })
      for (const route of settings.routes) {
        this.sent.inc({ route: route.name }, 0)
        for (const reason of ['queue-full', 'failed', 'shutdown'])
          this.dropped.inc({ route: route.name, reason }, 0)
      }
      const senders = () => this.senders
      new Gauge({
        name: 'warden_notifications_queued',
        help: 'Notification items waiting to be sent, by route.',
        labelNames: ['route'] as const,
        registers,
        collect() {
          for (const sender of senders()) this.set({ route: sender.route.name }, sender.depth())
        },
      })
    }
    const events = {
      onSent: (route: string, items: number) => this.sent?.inc({ route }, items),
      onDrop: (route: string, reason: DropReason, items: number, cause: string) =>
        this.drop(route, reason, items, cause),
    }
    this.senders = settings.routes.map(
      (route) => new RouteSender(route, options.client, settings, events, this.now),
    )
  }

  /** Wraps the engine's recorder: its answers pass through unchanged. */
  recorder(inner: Recorder): Recorder {
    return {
      record: (record) => {
        this.take(record)
        return inner.record(record)
      },
      breakerTripped: (trip: BreakerTrip, hook: HookSpec) => {
        if (!this.closed && this.wanted.has('breaker.opened'))
          this.publish(breakerItem(trip, this.options.settings.baseUrl))
        return inner.breakerTripped?.(trip, hook)
      },
    }
  }

  /** The approval broker's notify: a new approval (and, later, its deadline coming up). */
  readonly approvalRequested = async (approval: Record<string, unknown>): Promise<void> => {
    if (this.closed) return
    const now = this.now()
    const { baseUrl, approvals } = this.options.settings
    if (this.wanted.has('approval.requested'))
      this.publish(approvalItem('approval.requested', approval, baseUrl, now))
    const id = typeof approval.id === 'string' ? approval.id : undefined
    const deadline = typeof approval.deadline === 'number' ? approval.deadline : undefined
    if (!id || deadline === undefined || approvals.warnBeforeMs <= 0) return
    if (!this.wanted.has('approval.timing_out') || this.deadlines.size >= MAX_DEADLINE_TIMERS) return
    const warnIn = deadline - approvals.warnBeforeMs - now
    if (warnIn <= 0) return
    const timer = setTimeout(() => {
      this.deadlines.delete(id)
      void this.warnDeadline(id, approval)
    }, warnIn)
    timer.unref?.()
    this.deadlines.set(id, timer)
  }

  private async warnDeadline(id: string, approval: Record<string, unknown>): Promise<void> {
    const still = this.options.isPending ? await this.options.isPending(id).catch(() => true) : true
    if (!still || this.closed) return
    this.publish(approvalItem('approval.timing_out', approval, this.options.settings.baseUrl, this.now()))
  }

  private take(record: DecisionRecord): void {
    if (this.closed || this.pending.push(record)) return
    this.drop('*', 'queue-full', 1, 'decisions arrive faster than the notifier looks at them')
  }

  /** Feeds one decision to the failure and deny-rate watches. */
  private look(record: DecisionRecord): void {
    const { decision, event } = record
    const tenant = typeof event.context.tenantId === 'string' ? event.context.tenantId : ''
    const now = this.now()
    const { baseUrl } = this.options.settings
    const watchFailures = this.wanted.has('hook.failing')
    const watchDenials = this.wanted.has('deny_rate.high') && decision.blocking
    for (const trace of decision.trace) {
      if (watchFailures && trace.error && FAILURES.has(trace.error.kind)) {
        const failing = this.failures.failed(
          tenant,
          trace.id,
          `${trace.error.kind}: ${trace.error.message}`,
          now,
        )
        if (failing) this.publish(failingItem(failing, baseUrl, now))
      }
      if (watchDenials && trace.outcome !== 'skipped' && !trace.shadow) {
        const high = this.denials.decided(tenant, trace.id, trace.outcome === 'deny', now)
        if (high) this.publish(denyRateItem(high, baseUrl, now))
      }
    }
    if (watchDenials) {
      const high = this.denials.decided(tenant, undefined, decision.decision === 'deny', now)
      if (high) this.publish(denyRateItem(high, baseUrl, now))
    }
  }

  /** Hands an item to every route that may see it (its kind, and its tenant or every tenant). */
  publish(item: NotificationItem): void {
    for (const sender of this.senders) {
      const { route } = sender
      if (!route.kinds.has(item.kind)) continue
      if (route.tenant !== undefined && route.tenant !== item.tenant) continue
      sender.push(item)
    }
  }

  private drop(route: string, reason: DropReason, items: number, cause: string): void {
    this.dropped?.inc({ route, reason }, items)
    const total = this.dropLog.add(`${route}\u0000${reason}`, items, this.now())
    if (total === undefined) return
    this.options.log?.warn(
      { event: 'security.notify.dropped', route, reason, count: total },
      `${total} notification item(s) for route ${route} were dropped (${reason}): ${cause}`,
    )
  }

  /** Stops watching, sends what is queued within `deadlineMs`, and drops the rest (counted). */
  async close(deadlineMs = 5_000): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const timer of this.deadlines.values()) clearTimeout(timer)
    this.deadlines.clear()
    await Promise.all(this.senders.map((sender) => sender.close(deadlineMs)))
  }
}
