// Approvals under the gateways (`warden llm`, `warden a2a`): a hook's `ask` is held as under `warden serve`, as a pending
// approval in the store, so `warden approvals`, or the UI and `/ws` of a `warden serve` on
// the same database, can resolve it; the gateway hears of the resolution through the
// store's change feed. Without a store others can reach (an in-memory database) or with
// `management.enabled: false`, nobody could resolve an ask: the gateway says so when it
// starts, and every ask is denied with that cause.

import type { Persistence } from '../audit/index.js'
import type { Approver } from '../core/index.js'
import { ApprovalBroker, PushHub } from '../server/index.js'
import type { WardenConfig } from '../sources/index.js'

/** The approver of a gateway, and how to release what it holds. */
export interface GatewayApprovals {
  /** Holds asks; when nobody could resolve one, throws the cause so the engine denies with it. */
  approver: Approver
  close(): Promise<void>
}

/**
 * Holds asks in the store when someone else can resolve them, else says at start-up why
 * asks will be denied.
 */
export async function gatewayApprovals(
  config: WardenConfig | undefined,
  persistence: Persistence,
  log: (line: string) => void,
): Promise<GatewayApprovals> {
  const management = (config?.raw.management ?? {}) as { enabled?: boolean }
  const why =
    management.enabled === false
      ? 'management.enabled is false in the config'
      : persistence.location === undefined
        ? 'the store is in memory, where no other Warden can see it (give --db a file or postgres:// URL)'
        : undefined
  if (why) {
    const cause = `no approver can resolve asks here: ${why}`
    log(`${cause}; a hook that asks is denied`)
    const refuse: Approver = () => {
      throw new Error(cause)
    }
    return { approver: refuse, close: async () => undefined }
  }
  const broker = new ApprovalBroker({
    store: persistence.store,
    // Nobody subscribes here: the pushes of a `warden serve` come from its own broker,
    // which finds the approval in the store.
    hub: new PushHub(),
    onError: (error) => log(error.message),
  })
  await broker.start()
  log(
    `asks are held for approval in the store: resolve them with "warden approvals" or a warden serve on the same database`,
  )
  return { approver: broker.approver, close: () => broker.close() }
}
