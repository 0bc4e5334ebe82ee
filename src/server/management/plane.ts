// The management plane put together for `warden serve`: access tokens, the `/ws` API,
// the approval broker (the engine's approver), decision and breaker pushes (the engine's
// recorder is wrapped), toggles of file hooks kept in the store, and `hook.changed`
// pushes whenever the live engine's hooks change, here or on another instance. On
// PostgreSQL every push also reaches the `/ws` clients of the other instances.

import type { FastifyInstance } from 'fastify'
import type { Approver, Engine, Recorder } from '../../core/index.js'
import { errorMessage } from '../../core/index.js'
import { BUILTIN_SOURCE_PREFIX } from '../../sources/index.js'
import type { Store } from '../../store/index.js'
import { ApprovalBroker } from './approvals.js'
import { type ClusterBus, startClusterBus } from './cluster-bus.js'
import { MANAGEMENT_DEFAULTS, type ManagementSettings, type PlaneContext } from './context.js'
import { withGoclawShapes } from './goclaw-compat.js'
import { PushHub } from './hub.js'
import { hookMethods } from './methods-hooks.js'
import { insightMethods } from './methods-insight.js'
import { lifecycleMethods } from './methods-lifecycle.js'
import { otherMethods } from './methods-other.js'
import { overviewMethods } from './methods-overview.js'
import type { MethodDef } from './protocol.js'
import { SignInLinks, signInRoute } from './signin.js'
import { type Principal, TokenAuthority, tokenFromRequest } from './tokens.js'
import { isStoredSpec, specDefinition } from './views.js'
import { managementSocket } from './ws.js'

/** Options of {@link createManagementPlane}. */
export interface ManagementPlaneOptions {
  store: Store
  settings?: Partial<ManagementSettings>
  /** Builds an engine with today's hooks and no recorder (for replays). */
  replayEngine(): Engine
  /** Refreshes the stored hooks in the live engine (the persistence's hook sync). */
  syncHooks(): Promise<void>
  /** Posts a new approval to the notify webhook. */
  notify?: (approval: Record<string, unknown>) => Promise<void>
  /** Expire every pending approval at start (SQLite: this is the only instance). */
  expireAllAtStart?: boolean
  /** The PostgreSQL URL the instances share: pushes are relayed between them through it. */
  clusterUrl?: string
  /** Longest wait for the store to take a new approval, in ms (`audit.syncTimeoutMs`). */
  storeTimeoutMs?: number
  onError?: (error: Error) => void
}

/** What `/aos` authentication decided. */
export type AosAuth = { principal: Principal } | { error: string }

/** A running management plane. */
export interface ManagementPlane {
  hub: PushHub
  broker: ApprovalBroker
  authority: TokenAuthority
  /** One-time sign-in links for the UI (`POST /signin`). */
  signInLinks: SignInLinks
  /** The engine's approver. */
  approver: Approver
  /** Wraps the engine's recorder so decisions and trips are pushed too. */
  recorder(inner: Recorder): Recorder
  /** Attaches the live engine (after it is built) and starts the broker. */
  attach(engine: Engine, handlerTypes: string[]): Promise<void>
  /** Registers `/ws`. */
  plugin(app: FastifyInstance): Promise<void>
  /** Checks a request's token for `/aos`. */
  authenticate(authorization: string | undefined, query?: unknown): Promise<AosAuth>
  close(): Promise<void>
}

/** Creates the management plane (attach the engine before serving). */
export function createManagementPlane(options: ManagementPlaneOptions): ManagementPlane {
  const { store } = options
  const settings: ManagementSettings = {
    ...MANAGEMENT_DEFAULTS,
    approvalTimeoutMs: 30_000,
    version: '0.1.0',
    ...options.settings,
  }
  const hub = new PushHub()
  const authority = new TokenAuthority(store)
  const signInLinks = new SignInLinks(store)
  const broker = new ApprovalBroker({
    store,
    hub,
    ...(options.notify ? { notify: options.notify } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.expireAllAtStart ? { expireAllAtStart: true } : {}),
    ...(options.storeTimeoutMs ? { storeTimeoutMs: options.storeTimeoutMs } : {}),
  })
  let bus: ClusterBus | undefined
  let engine: Engine | undefined
  let handlerTypes: string[] = []
  let snapshot = new Map<string, string>()
  let unwatch: (() => void) | undefined
  let stopSocket: (() => void) | undefined
  let refreshing: Promise<void> | undefined
  let again = false

  const live = (): Engine => {
    if (!engine) throw new Error('the management plane has no engine yet')
    return engine
  }

  /** File hooks toggled through the API keep their state in the store. */
  async function applyOverrides(target: Engine): Promise<void> {
    const overrides = await store.listHookOverrides()
    if (overrides.size === 0) return
    for (const spec of target.hooks()) {
      const enabled = overrides.get(spec.id)
      if (enabled === undefined || isStoredSpec(spec) || spec.enabled === enabled) continue
      target.register({ ...specDefinition(spec), enabled }, { replace: true })
    }
  }

  /** Pushes `hook.changed` for every hook whose version or state moved. */
  function announceChanges(target: Engine): void {
    const next = new Map(target.hooks().map((h) => [h.id, `${h.version}:${h.enabled}:${h.source ?? ''}`]))
    const specs = new Map(target.hooks().map((h) => [h.id, h]))
    for (const [id, state] of next) {
      if (snapshot.get(id) === state) continue
      const spec = specs.get(id)
      if (!spec) continue
      const change = snapshot.has(id) ? 'updated' : 'created'
      const source = isStoredSpec(spec)
        ? 'api'
        : spec.source?.startsWith(BUILTIN_SOURCE_PREFIX)
          ? 'builtin'
          : 'file'
      hub.publish('hook.changed', spec.scope.tenant ?? '', {
        id,
        change,
        event: spec.event,
        version: spec.version,
        enabled: spec.enabled,
        source,
      })
    }
    for (const id of snapshot.keys()) {
      if (next.has(id)) continue
      const tenant = id.includes('/') ? (id.split('/')[0] ?? '') : ''
      hub.publish('hook.changed', tenant, { id, change: 'deleted' })
    }
    snapshot = next
  }

  async function refreshOnce(): Promise<void> {
    const target = live()
    await options.syncHooks()
    await applyOverrides(target)
    announceChanges(target)
  }

  function refresh(): Promise<void> {
    if (refreshing) {
      again = true
      return refreshing
    }
    refreshing = (async () => {
      do {
        again = false
        try {
          await refreshOnce()
        } catch (error) {
          options.onError?.(new Error(`cannot refresh hooks: ${errorMessage(error)}`))
        }
      } while (again)
    })().finally(() => {
      refreshing = undefined
    })
    return refreshing
  }

  const methods: Record<string, MethodDef> = {}
  const context: PlaneContext = {
    store,
    get engine() {
      return live()
    },
    hub,
    broker,
    settings,
    get handlerTypes() {
      return handlerTypes
    },
    replayEngine: options.replayEngine,
    refresh,
  }
  Object.assign(
    methods,
    withGoclawShapes(context, hookMethods(context)),
    lifecycleMethods(context),
    insightMethods(context),
    overviewMethods(context),
    otherMethods(context, () => methods),
  )

  return {
    hub,
    broker,
    authority,
    signInLinks,
    approver: broker.approver,
    recorder(inner) {
      return {
        record(record) {
          const written = inner.record(record)
          if (!hub.wantedAnywhere('decision')) return written
          if (written) return written.then(() => hub.publishDecision(record))
          hub.publishDecision(record)
          return undefined
        },
        breakerTripped(trip, hook) {
          hub.publish('breaker.tripped', trip.tenant, { ...trip, hook: hook.name })
          return inner.breakerTripped?.(trip, hook)
        },
      }
    },
    async attach(target, types) {
      engine = target
      handlerTypes = types
      snapshot = new Map(target.hooks().map((h) => [h.id, `${h.version}:${h.enabled}:${h.source ?? ''}`]))
      await applyOverrides(target)
      announceChanges(target)
      unwatch = store.watch((kind) => {
        if (kind === 'hooks') void refresh()
      })
      await broker.start()
      if (options.clusterUrl) {
        bus = await startClusterBus({
          url: options.clusterUrl,
          instance: broker.instance,
          hub,
          wanted: (topic) => broker.presence.peers().some((peer) => peer.topics.includes(topic)),
          ...(options.onError ? { onError: options.onError } : {}),
        })
      }
    },
    async plugin(app) {
      stopSocket = await managementSocket(app, {
        authority,
        hub,
        methods,
        maxFrameBytes: settings.maxFrameBytes,
        requestsPerSecond: settings.requestsPerSecond,
        ...(options.onError
          ? {
              onInternalError: (e: unknown) =>
                options.onError?.(e instanceof Error ? e : new Error(String(e))),
            }
          : {}),
      })
      signInRoute(app, signInLinks)
      // Held asks are released (denied, marked expired) before the server waits for them.
      app.addHook('preClose', async () => {
        await broker.close()
      })
    },
    async authenticate(authorization, query) {
      return authority.verify(tokenFromRequest(authorization, query))
    },
    async close() {
      unwatch?.()
      stopSocket?.()
      await broker.close()
      await bus?.stop()
      authority.close()
    },
  }
}
