// How hooks look through the management API: stored (API) hooks and hooks from files in
// one shape, with secret values masked and URLs shown without their credentials and query
// values (a masked value sent back unchanged keeps the stored one), the breaker state, and
// who may see what.

import type { BreakerTrip, HandlerConfig, HookDefinition, HookSpec } from '../../core/index.js'
import { BUILTIN_SOURCE_PREFIX } from '../../sources/index.js'
import { mapSecretValues, maskUrl, type StoredHook } from '../../store/index.js'
import type { Principal } from './tokens.js'

/** What a secret value is shown as. */
export const MASK = '********'

/**
 * A copy of a handler config with every secret value replaced by {@link MASK}, and every
 * URL with credentials or a query shown masked (`https://***@host/path?key=***`).
 */
export function maskConfig(value: unknown): unknown {
  return mapSecretValues(value, (_path, secret, kind) =>
    kind === 'url' && typeof secret === 'string' ? maskUrl(secret) : MASK,
  )
}

/**
 * A new handler config where every {@link MASK}, and every masked URL, left as it was
 * takes the stored value back.
 */
export function unmaskConfig(next: unknown, stored: unknown): unknown {
  if (next === MASK) return typeof stored === 'string' ? stored : next
  if (typeof next === 'string' && typeof stored === 'string' && next !== stored && next === maskUrl(stored))
    return stored
  if (Array.isArray(next)) {
    return next.map((v, i) => unmaskConfig(v, Array.isArray(stored) ? stored[i] : undefined))
  }
  if (typeof next !== 'object' || next === null) return next
  const before = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {}
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(next)) out[key] = unmaskConfig(inner, before[key])
  return out
}

/** A hook as the API lists it. */
export interface HookView {
  id: string
  name: string
  description?: string
  event: string
  scope: 'global' | 'tenant' | 'agent'
  tenant?: string
  agents: string[]
  handlerType: string
  handler: unknown
  matcher?: string
  if?: string
  priority: number
  timeoutMs: number
  onTimeout: string
  onError: string
  enabled: boolean
  /** `shadow`: its verdicts are recorded, never applied. */
  mode: 'enforce' | 'shadow'
  /** The home system's rule on the event: `false` only observes, `true` blocks. */
  blocks?: boolean
  /** At most this many runs per turn. */
  maxInvocationsPerTurn?: number
  /** Its own blocks count toward its circuit breaker (GoClaw's rule). */
  breakerCountsBlocks?: boolean
  /** Runs in the background: the caller does not wait for it. */
  background?: boolean
  /** The system whose format the hook was written in. */
  home?: string
  version: number
  policy?: unknown
  /**
   * `api`: created through the management API; `file`: from a file or the config;
   * `builtin`: from a pack (`packs:` in warden.yaml), `origin` naming the pack.
   */
  source: 'api' | 'file' | 'builtin'
  /** Where a file hook comes from. */
  origin?: string
  /** File hooks can only be toggled. */
  readOnly: boolean
  createdAt?: number
  updatedAt?: number
  /**
   * The open circuit breaker: the latest trip, and every tenant it is open for ('' = events
   * without a tenant). A global hook's breaker opens per tenant.
   */
  breaker?: { open: true; openedAt: number; failures: number; lastError: string; tenants: string[] }
}

/** Open trips grouped by hook id. */
export function tripsByHook(trips: readonly BreakerTrip[]): Map<string, BreakerTrip[]> {
  const out = new Map<string, BreakerTrip[]>()
  for (const trip of trips) {
    const list = out.get(trip.hookId)
    if (list) list.push(trip)
    else out.set(trip.hookId, [trip])
  }
  return out
}

function scopeKind(tenant: string | undefined, agents: readonly string[]): HookView['scope'] {
  return agents.length > 0 ? 'agent' : tenant ? 'tenant' : 'global'
}

function withBreaker(view: HookView, trips: readonly BreakerTrip[] | undefined): HookView {
  if (!trips || trips.length === 0) return view
  const latest = trips.reduce((a, b) => (b.openedAt > a.openedAt ? b : a))
  view.breaker = {
    open: true,
    openedAt: latest.openedAt,
    failures: latest.failures,
    lastError: latest.lastError,
    tenants: trips.map((t) => t.tenant).sort(),
  }
  return view
}

/** A stored hook as the API shows it. */
export function storedView(hook: StoredHook, trips?: readonly BreakerTrip[]): HookView {
  const view: HookView = {
    id: hook.id,
    name: hook.name,
    event: hook.event,
    scope: scopeKind(hook.tenant, hook.agents),
    agents: hook.agents,
    handlerType: hook.handlerType,
    handler: maskConfig(hook.handler),
    priority: hook.priority,
    timeoutMs: hook.timeoutMs,
    onTimeout: hook.onTimeout,
    onError: hook.onError,
    enabled: hook.enabled,
    mode: hook.mode ?? 'enforce',
    version: hook.version,
    source: 'api',
    readOnly: false,
    createdAt: hook.createdAt,
    updatedAt: hook.updatedAt,
  }
  if (hook.tenant) view.tenant = hook.tenant
  if (hook.matcher !== undefined) view.matcher = hook.matcher
  if (hook.if !== undefined) view.if = hook.if
  if (hook.policy) view.policy = hook.policy
  if (hook.description) view.description = hook.description
  if (hook.blocks !== undefined) view.blocks = hook.blocks
  if (hook.maxInvocationsPerTurn !== undefined) view.maxInvocationsPerTurn = hook.maxInvocationsPerTurn
  if (hook.breakerCountsBlocks) view.breakerCountsBlocks = true
  if (hook.background) view.background = true
  if (hook.home) view.home = hook.home
  return withBreaker(view, trips)
}

/** A hook from a file or the config as the API shows it. */
export function fileView(spec: HookSpec, trips?: readonly BreakerTrip[]): HookView {
  const agents = spec.scope.agents ?? []
  const handler = { ...spec.handler }
  delete (handler as { baseDir?: unknown }).baseDir
  const view: HookView = {
    id: spec.id,
    name: spec.name,
    event: spec.event,
    scope: scopeKind(spec.scope.tenant, agents),
    agents,
    handlerType: spec.handler.type,
    handler: maskConfig(handler),
    priority: spec.priority,
    timeoutMs: spec.timeoutMs,
    onTimeout: spec.onTimeout,
    onError: spec.onError,
    enabled: spec.enabled,
    mode: spec.mode ?? 'enforce',
    version: spec.version,
    source: spec.source?.startsWith(BUILTIN_SOURCE_PREFIX) ? 'builtin' : 'file',
    origin: spec.source ?? 'config',
    readOnly: true,
  }
  if (spec.scope.tenant) view.tenant = spec.scope.tenant
  if (spec.matcher !== undefined) view.matcher = spec.matcher
  if (spec.if !== undefined) view.if = spec.if
  if (spec.policy) view.policy = spec.policy
  if (spec.description) view.description = spec.description
  if (spec.blocks !== undefined) view.blocks = spec.blocks
  if (spec.maxInvocationsPerTurn !== undefined) view.maxInvocationsPerTurn = spec.maxInvocationsPerTurn
  if (spec.breakerCountsBlocks) view.breakerCountsBlocks = true
  if (spec.background) view.background = true
  if (spec.home) view.home = spec.home
  return withBreaker(view, trips)
}

/** True when a hook spec came from the database rather than a file or the config. */
export function isStoredSpec(spec: HookSpec): boolean {
  return spec.source?.startsWith('database:') === true
}

/** A registered hook spec as a definition again (to re-register it, or dry-run it). */
export function specDefinition(spec: HookSpec): HookDefinition {
  const definition: HookDefinition = {
    name: spec.name,
    event: spec.event,
    priority: spec.priority,
    timeoutMs: spec.timeoutMs,
    onTimeout: spec.onTimeout,
    onError: spec.onError,
    enabled: spec.enabled,
    version: spec.version,
    handler: spec.handler as HandlerConfig,
  }
  if (spec.scope.tenant || spec.scope.agents) definition.scope = { ...spec.scope }
  if (spec.matcher !== undefined) definition.matcher = spec.matcher
  if (spec.if !== undefined) definition.if = spec.if
  if (spec.policy) definition.policy = spec.policy
  if (spec.source !== undefined) definition.source = spec.source
  if (spec.description) definition.description = spec.description
  if (spec.maxInvocationsPerTurn !== undefined) definition.maxInvocationsPerTurn = spec.maxInvocationsPerTurn
  if (spec.breakerCountsBlocks) definition.breakerCountsBlocks = true
  if (spec.blocks !== undefined) definition.blocks = spec.blocks
  if (spec.background) definition.background = true
  if (spec.home) definition.home = spec.home
  if (spec.mode) definition.mode = spec.mode
  return definition
}

/** True when the principal may see a hook of this tenant ("" or undefined = global). */
export function visibleTo(principal: Principal, tenant: string | undefined): boolean {
  return principal.tenant === undefined || principal.tenant === (tenant ?? '')
}
