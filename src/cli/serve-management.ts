// The management plane of `warden serve`, wired from warden.yaml: `management:` (on by
// default), `approvals.notify` (posted through the SSRF-safe client), `server.auth`, and
// the rule that a non-loopback address needs token auth unless --insecure-no-auth.

import { dirname, join, resolve } from 'node:path'
import type { Persistence } from '../audit/index.js'
import { createEngine, type Engine, errorMessage } from '../core/index.js'
import { createOutboundClient, isLoopbackAddress, networkOptions } from '../net/index.js'
import { createManagementPlane, type ManagementPlane, specDefinition } from '../server/index.js'
import { buildHandlers, type WardenConfig } from '../sources/index.js'

/** The management settings of a config. */
export interface ManagementSection {
  enabled?: boolean
  allowCommandHooks?: boolean
  maxFrameBytes?: number
  requestsPerSecond?: number
  dataDir?: string
}

/**
 * The data folder where hooks made through the management API may write files:
 * `management.dataDir` (relative to warden.yaml's folder), else a `data` folder beside the
 * SQLite file, else `.warden/data` under the working folder (PostgreSQL, in-memory).
 */
export function managementDataDir(
  config: WardenConfig | undefined,
  location: string | undefined,
  cwd: string,
): string {
  const configured = ((config?.raw.management ?? {}) as ManagementSection).dataDir
  if (configured) return resolve(config?.baseDir ?? cwd, configured)
  if (location && !/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return join(dirname(location), 'data')
  return resolve(cwd, '.warden', 'data')
}

interface NotifySection {
  url: string
  headers?: Record<string, string>
  timeoutMs?: number
}

/**
 * Why a server would be open to the network without authentication, or undefined when it is fine.
 */
export function exposureProblem(
  host: string,
  auth: string | undefined,
  insecure: boolean,
): string | undefined {
  if (isLoopbackAddress(host) || auth === 'token' || insecure) return undefined
  return `refusing to listen on ${host} without authentication: anyone who can reach it could call /aos. Set server.auth: token in warden.yaml (and give agents a token from "warden tokens create --role agent"), or pass --insecure-no-auth if something in front of Warden checks callers`
}

/** Options of {@link setupManagement}. */
export interface ManagementSetup {
  config: WardenConfig | undefined
  persistence: Persistence
  env: NodeJS.ProcessEnv
  /** The live engine, once built. */
  engine: () => Engine
  /** The data folder (see {@link managementDataDir}). */
  dataDir: string
  onError: (error: Error) => void
  /** Also told of each new approval (the `notifications:` notifier). */
  onApproval?: (approval: Record<string, unknown>) => Promise<void>
}

/**
 * Creates the management plane (or undefined when `management.enabled: false`).
 * @returns the plane; attach the live engine with `plane.attach` before serving.
 */
export function setupManagement(setup: ManagementSetup): ManagementPlane | undefined {
  const raw = setup.config?.raw ?? {}
  const section = (raw.management ?? {}) as ManagementSection
  if (section.enabled === false) return undefined
  const notify = ((raw.approvals ?? {}) as { notify?: NotifySection }).notify
  const client = notify ? createOutboundClient(networkOptions(raw.network)) : undefined
  const { store } = setup.persistence
  const replayHandlers = () =>
    buildHandlers(setup.config, {
      env: setup.env,
      storedCommandHooks: section.allowCommandHooks === true,
      dataDir: setup.dataDir,
    })
  return createManagementPlane({
    store,
    settings: {
      allowCommandHooks: section.allowCommandHooks === true,
      ...(section.maxFrameBytes ? { maxFrameBytes: section.maxFrameBytes } : {}),
      ...(section.requestsPerSecond ? { requestsPerSecond: section.requestsPerSecond } : {}),
      ...(setup.config?.limits.approvalTimeoutMs
        ? { approvalTimeoutMs: setup.config.limits.approvalTimeoutMs }
        : {}),
    },
    replayEngine: () =>
      createEngine({
        hooks: setup.engine().hooks().map(specDefinition),
        handlers: replayHandlers(),
        limits: setup.config?.limits ?? {},
      }),
    syncHooks: async () => {
      for (const sync of setup.persistence.syncs()) await sync.refresh()
    },
    expireAllAtStart: store.dialect === 'sqlite',
    storeTimeoutMs: setup.persistence.writer.syncTimeoutMs,
    ...(store.dialect === 'postgres' && setup.persistence.location
      ? { clusterUrl: setup.persistence.location }
      : {}),
    onError: setup.onError,
    ...(notify && client
      ? {
          notify: async (approval: Record<string, unknown>) => {
            void setup.onApproval?.(approval)
            const response = await client.request({
              url: notify.url,
              method: 'POST',
              headers: { 'content-type': 'application/json', ...(notify.headers ?? {}) },
              body: JSON.stringify({ type: 'approval.requested', approval }),
              timeoutMs: notify.timeoutMs ?? 5000,
            })
            if (response.status >= 300) {
              throw new Error(`the webhook answered HTTP ${response.status}`)
            }
          },
        }
      : setup.onApproval
        ? { notify: setup.onApproval }
        : {}),
  })
}

/** The message for a plane that failed to start. */
export function planeFailure(error: unknown): string {
  return `the management plane could not start: ${errorMessage(error)}`
}
