// What the management methods share: the store, the live engine, the push hub, the
// approval broker, the settings, and the means to record each change made through the API.

import { randomUUID } from 'node:crypto'
import type { Engine } from '../../core/index.js'
import type { Store } from '../../store/index.js'
import type { ApprovalBroker } from './approvals.js'
import type { PushHub } from './hub.js'
import type { Principal } from './tokens.js'

/** Settings of the management plane (warden.yaml `management:`). */
export interface ManagementSettings {
  /** Whether `hooks.create` / `hooks.update` may make `command` hooks. Default false. */
  allowCommandHooks: boolean
  /** Largest frame accepted, in bytes. Default 1 MiB. */
  maxFrameBytes: number
  /** Requests per second a connection may send (a burst of twice this is allowed). Default 50. */
  requestsPerSecond: number
  /** How long a held `ask` waits, in ms (for display; the engine enforces it). */
  approvalTimeoutMs: number
  /** Warden's version, for `server.info`. */
  version: string
}

export const MANAGEMENT_DEFAULTS: Omit<ManagementSettings, 'approvalTimeoutMs' | 'version'> = {
  allowCommandHooks: false,
  maxFrameBytes: 1024 * 1024,
  requestsPerSecond: 50,
}

/** Everything a method can reach. */
export interface PlaneContext {
  store: Store
  engine: Engine
  hub: PushHub
  broker: ApprovalBroker
  settings: ManagementSettings
  /** A fresh engine with today's hooks and no recorder, for replays; closed by the caller. */
  replayEngine(): Engine
  /** The handler types hooks can use here. */
  handlerTypes: string[]
  /** Brings the live engine in step with the store now (after a change made here). */
  refresh(): Promise<void>
}

/** Records a change made through the API (who, what, before/after, when). */
export async function recordChange(
  plane: PlaneContext,
  principal: Principal,
  change: {
    action: string
    target: string
    tenant: string
    before?: unknown
    after?: unknown
    reason?: string
  },
): Promise<void> {
  await plane.store.recordChange({
    id: randomUUID(),
    at: Date.now(),
    actor: principal.tokenId,
    actorName: principal.name,
    tenant: change.tenant,
    action: change.action,
    target: change.target,
    ...(change.before !== undefined ? { before: change.before } : {}),
    ...(change.after !== undefined ? { after: change.after } : {}),
    ...(change.reason !== undefined ? { reason: change.reason } : {}),
  })
}
