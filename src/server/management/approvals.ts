// Approvals that a human resolves: an `ask` becomes a pending row in the store (event,
// asking hooks, deadline, holding instance), is pushed as `approval.requested` (and to the
// optional notify webhook), and the request is held until someone resolves it on any
// instance or the deadline passes. Resolution is an atomic update in the store, so of two
// approvers one wins; the holding instance hears of it through the change feed
// (LISTEN/NOTIFY on PostgreSQL) or at once when it resolved it itself. A row that cannot be
// stored in time denies naming the cause; a caller whose connection closes has its approval
// marked abandoned at once, and the instances' heartbeats (see presence.ts) abandon the
// approvals of an instance that died.

import { randomBytes } from 'node:crypto'
import type { ApprovalAnswer, ApprovalRequest, Approver, JsonObject } from '../../core/index.js'
import { errorMessage } from '../../core/index.js'
import type { ApprovalResolution, ApprovalRow, Store } from '../../store/index.js'
import type { PushHub } from './hub.js'
import { Presence } from './presence.js'

/** How often pending approvals past their deadline are expired (any instance's). */
const SWEEP_MS = 5_000
/** Grace after a deadline before the sweep expires another instance's approval. */
const SWEEP_GRACE_MS = 2_000

/** What a resolution asks for. */
export interface ResolveInput {
  action: 'approve' | 'reject' | 'edit'
  /** The new payload of an `edit`. */
  payload?: JsonObject
  comment?: string
  by: string
}

/** Options of {@link ApprovalBroker}. */
export interface ApprovalBrokerOptions {
  store: Store
  hub: PushHub
  /** Told of each new approval (e.g. the notify webhook); failures are only reported. */
  notify?: (approval: Record<string, unknown>) => Promise<void>
  onError?: (error: Error) => void
  /** Expire every pending approval at start (one instance owns the database: SQLite). */
  expireAllAtStart?: boolean
  /** Longest wait for the store to take a new approval, in ms (capped by the approval timeout). Default 10 000. */
  storeTimeoutMs?: number
}

/** Runs a store call within `ms`, else rejects naming what did not happen. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the database did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/** An approval as the API shows it. */
export function approvalView(row: ApprovalRow): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: row.id,
    decisionId: row.decisionId,
    tenant: row.tenant,
    status: row.status,
    event: row.event,
    asks: row.asks ?? [],
    requestedAt: row.requestedAt,
    deadline: row.deadline,
    input: row.input,
  }
  if (row.resolution) view.resolution = row.resolution
  if (row.decidedBy) view.decidedBy = row.decidedBy
  if (row.decidedAt !== undefined) view.decidedAt = row.decidedAt
  if (row.reason) view.comment = row.reason
  if (row.editedPayload !== undefined) view.editedPayload = row.editedPayload
  return view
}

/** The answer a resolved row gives the held request. */
function answerOf(row: ApprovalRow): ApprovalAnswer {
  const by = row.decidedBy
  const base = { ...(by ? { by } : {}), ...(row.reason ? { reason: row.reason } : {}) }
  if (row.status === 'approved' && row.resolution === 'edit' && isObject(row.editedPayload)) {
    return { outcome: 'edit', payload: row.editedPayload, ...base }
  }
  if (row.status === 'approved') return { outcome: 'approve', ...base }
  if (row.status === 'expired') {
    return { outcome: 'reject', reason: `the approval expired: ${row.reason ?? 'no reason given'}` }
  }
  if (row.status === 'abandoned') {
    return { outcome: 'reject', reason: `the approval was abandoned: ${row.reason ?? 'the caller is gone'}` }
  }
  return { outcome: 'reject', ...base }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Holds asks until they are resolved; the engine's approver. */
export class ApprovalBroker {
  readonly instance = randomBytes(8).toString('hex')
  private readonly waiting = new Map<string, (answer: ApprovalAnswer) => void>()
  private readonly unwatch: () => void
  private sweeper: ReturnType<typeof setInterval> | undefined
  private closed = false
  /** This instance's heartbeat, and the sweep of approvals held by instances that died. */
  readonly presence: Presence

  constructor(private readonly options: ApprovalBrokerOptions) {
    this.unwatch = options.store.watch((kind) => {
      if (kind === 'approvals' && this.waiting.size > 0) void this.collect()
    })
    this.presence = new Presence({
      store: options.store,
      instance: this.instance,
      topics: () => options.hub.topics(),
      onAbandoned: (rows) => {
        for (const row of rows) this.settled(row)
      },
      ...(options.onError ? { onError: options.onError } : {}),
    })
  }

  /** Expires what a previous run left pending and starts the sweep. */
  async start(): Promise<void> {
    const { store } = this.options
    const expired = await store.expireApprovals(
      this.options.expireAllAtStart
        ? { deadlineBefore: Number.MAX_SAFE_INTEGER, reason: 'Warden restarted while it was pending' }
        : { deadlineBefore: Date.now(), reason: 'its deadline passed while no Warden held it' },
    )
    for (const row of expired) this.options.hub.publish('approval.resolved', row.tenant, approvalView(row))
    await this.presence.start()
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS)
    this.sweeper.unref?.()
  }

  /** The engine's approver. */
  readonly approver: Approver = (request) => this.hold(request)

  private async hold(request: ApprovalRequest): Promise<ApprovalAnswer> {
    if (this.closed) return { outcome: 'reject', reason: 'Warden is shutting down' }
    const { store, hub } = this.options
    const now = Date.now()
    const event = request.event
    const tenant = typeof event.context.tenantId === 'string' ? event.context.tenantId : ''
    const row: ApprovalRow = {
      id: request.decisionId,
      decisionId: request.decisionId,
      tenant,
      status: 'pending',
      requestedAt: now,
      event: event.event,
      input: { event: event.event, payload: event.payload, context: event.context },
      asks: request.asks,
      deadline: now + request.timeoutMs,
      instance: this.instance,
    }
    const answer = new Promise<ApprovalAnswer>((resolve) => this.waiting.set(row.id, resolve))
    const storing = store.putApproval(row)
    const limit = Math.max(1, Math.min(this.options.storeTimeoutMs ?? 10_000, request.timeoutMs))
    try {
      await within(storing, limit, 'the approval could not be stored')
    } catch (error) {
      // Not recorded, so nobody could resolve it: the engine denies, naming this failure. A
      // row the database takes later is abandoned at once, so no approver sees it pending.
      this.waiting.delete(row.id)
      storing.then(
        () =>
          void this.abandon(
            row.id,
            'it was stored after its caller had been denied (the database was not answering)',
          ),
        () => undefined,
      )
      throw error instanceof Error && error.message.startsWith('the approval could not be stored')
        ? error
        : new Error(`the approval could not be stored (${errorMessage(error)})`)
    }
    const view = approvalView(row)
    hub.publish('approval.requested', tenant, view)
    if (this.options.notify) {
      this.options
        .notify(view)
        .catch((error: unknown) =>
          this.options.onError?.(new Error(`approvals.notify failed: ${errorMessage(error)}`)),
        )
    }
    request.signal.addEventListener(
      'abort',
      () => void this.expire(row.id, `no decision within ${request.timeoutMs} ms`),
      { once: true },
    )
    request.onCallerGone?.(
      () => void this.abandon(row.id, 'the caller closed its connection before a decision'),
    )
    return answer
  }

  /** Marks a pending approval abandoned (its caller is gone), releasing and pushing it. */
  private async abandon(id: string, reason: string): Promise<void> {
    const result = await this.options.store
      .resolveApproval(id, { status: 'abandoned', reason, decidedAt: Date.now() })
      .catch(() => undefined)
    if (result?.resolved) this.settled(result.row)
  }

  /**
   * Resolves a pending approval (any instance's).
   * @returns the row after the call and whether this call resolved it; undefined when not found.
   */
  async resolve(
    id: string,
    input: ResolveInput,
    tenant: string | undefined,
  ): Promise<{ row: ApprovalRow; resolved: boolean } | undefined> {
    const resolution: ApprovalResolution = {
      status: input.action === 'reject' ? 'rejected' : 'approved',
      resolution: input.action,
      decidedBy: input.by,
      decidedAt: Date.now(),
      ...(input.comment ? { reason: input.comment } : {}),
      ...(input.action === 'edit' ? { editedPayload: input.payload } : {}),
    }
    const result = await this.options.store.resolveApproval(id, resolution, tenant)
    if (result?.resolved) this.settled(result.row)
    return result
  }

  /** Releases the held requests of this instance with a deny, and marks them expired. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.unwatch()
    if (this.sweeper) clearInterval(this.sweeper)
    if (this.waiting.size > 0) {
      const expiring = this.options.store.expireApprovals({
        instance: this.instance,
        reason: 'Warden shut down while it was pending',
      })
      const rows = await within(expiring, this.options.storeTimeoutMs ?? 10_000, 'expiring').catch(
        () => [] as ApprovalRow[],
      )
      for (const row of rows) this.settled(row)
      for (const [id, release] of this.waiting) {
        this.waiting.delete(id)
        release({ outcome: 'reject', reason: 'the approval expired: Warden shut down while it was pending' })
      }
    }
    await this.presence.stop()
  }

  /** Pending approvals held here. */
  holding(): number {
    return this.waiting.size
  }

  private async expire(id: string, reason: string): Promise<void> {
    const result = await this.options.store
      .resolveApproval(id, { status: 'expired', reason, decidedAt: Date.now() })
      .catch(() => undefined)
    if (result?.resolved) this.settled(result.row)
    this.waiting.delete(id)
  }

  /** A row left `pending`: release its held request (if here) and push it. */
  private settled(row: ApprovalRow): void {
    const release = this.waiting.get(row.id)
    if (release) {
      this.waiting.delete(row.id)
      release(answerOf(row))
    }
    this.options.hub.publish('approval.resolved', row.tenant, approvalView(row))
  }

  /** Another instance (or the CLI) resolved something: release what is no longer pending. */
  private async collect(): Promise<void> {
    for (const id of [...this.waiting.keys()]) {
      try {
        const row = await this.options.store.getApproval(id)
        if (row && row.status !== 'pending' && this.waiting.has(id)) this.settled(row)
      } catch (error) {
        this.options.onError?.(new Error(`cannot read approval ${id}: ${errorMessage(error)}`))
      }
    }
  }

  private async sweep(): Promise<void> {
    try {
      const rows = await this.options.store.expireApprovals({
        deadlineBefore: Date.now() - SWEEP_GRACE_MS,
        reason: 'its deadline passed',
      })
      for (const row of rows) this.settled(row)
    } catch (error) {
      this.options.onError?.(new Error(`cannot expire old approvals: ${errorMessage(error)}`))
    }
  }
}
