// Builds the notifier of `warden serve` from warden.yaml: `notifications:` resolved (secrets
// opened) and one outbound client with the deployment's `network:` policy, so a route's URL
// is refused exactly as every other outbound call's would be (private and metadata addresses
// unless `network.allow` lists them).

import type { Registry } from 'prom-client'
import { createOutboundClient, networkOptions } from '../net/index.js'
import type { SealedOpener } from '../secrets/index.js'
import { type DropLog, Notifier } from './notifier.js'
import { resolveNotificationSettings } from './settings.js'

/** Options of {@link notifierFromConfig}. */
export interface NotifierSetup {
  /** The config's sections (`notifications`, `network`). */
  raw: Record<string, unknown>
  env: Record<string, string | undefined>
  /** Where file: secret references are read from (warden.yaml's folder). */
  baseDir: string
  /** Opens sealed secrets; asked for only when one is used. */
  box?: () => SealedOpener
  registry?: Registry
  log?: DropLog
  isPending?: (approvalId: string) => Promise<boolean>
}

/**
 * The notifier the config asks for, or undefined without `notifications:`.
 * @throws WardenError `invalid-config` naming the field (a missing secret, a bad route).
 */
export function notifierFromConfig(setup: NotifierSetup): Notifier | undefined {
  const section = setup.raw.notifications
  const sealed = JSON.stringify(section ?? {}).includes('wsec:v1:')
  const settings = resolveNotificationSettings(section, {
    env: setup.env,
    baseDir: setup.baseDir,
    ...(sealed && setup.box ? { box: setup.box() } : {}),
  })
  if (!settings) return undefined
  const client = createOutboundClient({ ...networkOptions(setup.raw.network), timeoutMs: settings.timeoutMs })
  return new Notifier({
    settings,
    client,
    ...(setup.registry ? { registry: setup.registry } : {}),
    ...(setup.log ? { log: setup.log } : {}),
    ...(setup.isPending ? { isPending: setup.isPending } : {}),
  })
}
