// Hooks stored in the database join the hooks from files and config in a running engine:
// loaded at start, then kept in step with the store's change feed (added, updated by
// version, removed). A stored hook whose id is already taken by a config hook is skipped
// and reported, never silently replaces it.

import { type Engine, errorMessage, type HookDefinition } from '../core/index.js'
import type { Store, StoredHook } from './types.js'

/** A stored hook as an engine hook definition. */
export function toHookDefinition(hook: StoredHook): HookDefinition {
  const definition: HookDefinition = {
    name: hook.name,
    event: hook.event,
    priority: hook.priority,
    timeoutMs: hook.timeoutMs,
    onTimeout: hook.onTimeout,
    onError: hook.onError,
    enabled: hook.enabled,
    version: hook.version,
    source: `database:${hook.source}`,
    handler: hook.handler,
  }
  if (hook.tenant || hook.agents.length > 0) {
    definition.scope = {
      ...(hook.tenant ? { tenant: hook.tenant } : {}),
      ...(hook.agents.length > 0 ? { agents: hook.agents } : {}),
    }
  }
  if (hook.matcher !== undefined) definition.matcher = hook.matcher
  if (hook.if !== undefined) definition.if = hook.if
  if (hook.policy) definition.policy = hook.policy
  if (hook.mode === 'shadow') definition.mode = 'shadow'
  if (hook.description) definition.description = hook.description
  if (hook.blocks !== undefined) definition.blocks = hook.blocks
  if (hook.maxInvocationsPerTurn !== undefined) definition.maxInvocationsPerTurn = hook.maxInvocationsPerTurn
  if (hook.breakerCountsBlocks) definition.breakerCountsBlocks = true
  if (hook.background) definition.background = true
  if (hook.home) definition.home = hook.home
  return definition
}

/**
 * The stored hooks as definitions: with a tenant, that tenant's hooks and the global ones.
 */
export async function loadHooksFromStore(store: Store, tenant?: string): Promise<HookDefinition[]> {
  return (await store.listHooks(tenant)).map(toHookDefinition)
}

/** A running sync between a store and an engine. */
export interface HookSync {
  /** Brings the engine up to date now. */
  refresh(): Promise<void>
  /** Ids of the hooks that came from the store, with their versions. */
  loaded(): Map<string, number>
  stop(): void
}

/**
 * Registers the stored hooks in an engine and keeps them in step with the store.
 * @param onError told about hooks that could not be registered (invalid, id taken).
 */
export async function syncHooksFromStore(
  engine: Engine,
  store: Store,
  options: { tenant?: string; onError?: (error: Error) => void } = {},
): Promise<HookSync> {
  const known = new Map<string, number>()
  let running: Promise<void> | undefined
  let again = false

  const apply = async (): Promise<void> => {
    const stored = await store.listHooks(options.tenant)
    const present = new Set<string>()
    const taken = new Set(engine.hooks().map((h) => h.id))
    for (const hook of stored) {
      present.add(hook.id)
      if (known.get(hook.id) === hook.version) continue
      if (!known.has(hook.id) && taken.has(hook.id)) {
        options.onError?.(
          new Error(
            `stored hook "${hook.id}" is skipped: a hook with that id is already defined in the config`,
          ),
        )
        continue
      }
      try {
        engine.register(toHookDefinition(hook), { replace: true })
        known.set(hook.id, hook.version)
      } catch (error) {
        if (known.delete(hook.id)) engine.unregister(hook.id)
        options.onError?.(new Error(`stored hook "${hook.id}" cannot be used: ${errorMessage(error)}`))
      }
    }
    for (const id of [...known.keys()]) {
      if (present.has(id)) continue
      engine.unregister(id)
      known.delete(id)
    }
  }

  const refresh = (): Promise<void> => {
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      do {
        again = false
        try {
          await apply()
        } catch (error) {
          options.onError?.(new Error(`could not load hooks from the database: ${errorMessage(error)}`))
        }
      } while (again)
    })().finally(() => {
      running = undefined
    })
    return running
  }

  await refresh()
  const unwatch = store.watch((kind) => {
    if (kind === 'hooks') void refresh()
  })
  return { refresh, loaded: () => new Map(known), stop: unwatch }
}
