// This instance as the others sharing its database see it: a heartbeat every second (with
// the push topics its `/ws` clients listen to), and a sweep that marks abandoned the pending
// approvals of instances whose heartbeat stopped (killed, host gone). The sweep only runs
// once this instance's own heartbeats have gone through for a while, so that after a
// database outage nobody abandons the approvals of instances that simply could not beat.

import { errorMessage } from '../../core/index.js'
import type { ApprovalRow, InstanceRow, Store } from '../../store/index.js'

/** How often an instance beats, in ms. */
export const HEARTBEAT_MS = 1_000
/** An instance silent this long is taken for dead, in ms. */
export const STALE_MS = 4_000

/** Options of {@link Presence}. */
export interface PresenceOptions {
  store: Store
  instance: string
  /** The push topics this instance's subscribers listen to now. */
  topics: () => string[]
  /** Told of approvals abandoned because their instance died. */
  onAbandoned: (rows: ApprovalRow[]) => void
  onError?: (error: Error) => void
}

/** The heartbeat of one instance and the sweep of dead instances' approvals. */
export class Presence {
  private timer: ReturnType<typeof setInterval> | undefined
  private readonly startedAt = Date.now()
  /** When the heartbeats last failed (0: never). */
  private lastFailure = 0
  private beating = false
  private others: InstanceRow[] = []

  constructor(private readonly options: PresenceOptions) {}

  async start(): Promise<void> {
    await this.beat()
    this.timer = setInterval(() => void this.tick(), HEARTBEAT_MS)
    this.timer.unref?.()
  }

  /** The other live instances at the last heartbeat. */
  peers(): readonly InstanceRow[] {
    return this.others
  }

  /** Stops beating and forgets this instance (its approvals were released by then). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await bounded(this.options.store.removeInstance(this.options.instance)).catch(() => undefined)
  }

  private async beat(): Promise<void> {
    const now = Date.now()
    await bounded(
      this.options.store.beatInstance({
        id: this.options.instance,
        startedAt: this.startedAt,
        heartbeatAt: now,
        topics: this.options.topics(),
      }),
    )
    const live = await bounded(this.options.store.listInstances(now - STALE_MS))
    this.others = live.filter((row) => row.id !== this.options.instance)
  }

  private async tick(): Promise<void> {
    if (this.beating) return
    this.beating = true
    try {
      await this.beat()
      // Every instance needs a few heartbeats after an outage before its silence means death.
      if (Date.now() - this.lastFailure < STALE_MS + HEARTBEAT_MS) return
      const rows = await bounded(
        this.options.store.abandonOrphanedApprovals(
          Date.now() - STALE_MS,
          `the caller is gone: the Warden instance holding it stopped (no heartbeat for ${STALE_MS / 1000} s)`,
        ),
      )
      if (rows.length > 0) this.options.onAbandoned(rows)
    } catch (error) {
      // Reported once per outage, not once a second.
      if (Date.now() - this.lastFailure > 2 * HEARTBEAT_MS + 500) {
        this.options.onError?.(new Error(`instance heartbeat failed: ${errorMessage(error)}`))
      }
      this.lastFailure = Date.now()
    } finally {
      this.beating = false
    }
  }
}

/** A store call bounded by the heartbeat's own period, so a frozen database skips beats. */
function bounded<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the database did not answer within 2 s')), 2 * HEARTBEAT_MS)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}
