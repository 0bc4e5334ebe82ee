// Which registered hooks an event reaches, found through an index rather than a scan: hooks
// are filed by event, then by scope (everywhere, one tenant, named agents), each file kept
// in run order. A dispatch merges the few files that apply to its tenant and agent, and the
// merge is cached per event, tenant and agent until a hook of that event changes. Adding,
// replacing or removing one hook touches only its own files: nothing is rebuilt.

import { type EventName, isOpenEventName } from './catalog.js'
import type { RegisteredHook } from './chain.js'
import type { EventContext } from './events.js'

/**
 * How two hooks of one event are ordered: negative when `a` runs first. Hooks it calls equal
 * run in the order they were first registered (replacing a hook keeps its place).
 */
export type HookOrder = (a: RegisteredHook, b: RegisteredHook) => number

/** Priority ascending, then name: the engine's run order. */
export const byPriorityThenName: HookOrder = (a, b) =>
  a.spec.priority - b.spec.priority || (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0)

/** Registration order alone (a replaced hook keeps its place). */
export const inRegistrationOrder: HookOrder = () => 0

/** A hook with its registration rank, the final tie-break. */
interface Slot {
  entry: RegisteredHook
  seq: number
}

/** The most merged selections kept per event (one per tenant and agent seen). */
const MAX_CACHED = 4096

/** The hooks of one event name, filed by scope. */
class EventFile {
  /** Hooks with no scope. */
  readonly everywhere: Slot[] = []
  /** Hooks scoped to one tenant and no agents, by tenant. */
  readonly byTenant = new Map<string, Slot[]>()
  /** Hooks scoped to agents (maybe within a tenant), under each agent they name. */
  readonly byAgent = new Map<string, Slot[]>()
  size = 0
}

/** The selections of one event name as dispatch asks for it (its own hooks and wildcard ones). */
export class EventView {
  /** When no hook of the event is scoped: the one selection, for every context. */
  readonly unscoped: readonly RegisteredHook[] | undefined
  private readonly cache = new Map<string, readonly RegisteredHook[]>()
  /** Whether some hook is scoped to agents: then the agent is part of the cache key. */
  private readonly byAgent: boolean

  constructor(
    private readonly files: readonly EventFile[],
    private readonly compare: (a: Slot, b: Slot) => number,
    private readonly order: HookOrder,
  ) {
    if (files.every((f) => f.byTenant.size === 0 && f.byAgent.size === 0)) {
      this.unscoped = this.merge(files.map((f) => f.everywhere))
    }
    this.byAgent = files.some((f) => f.byAgent.size > 0)
  }

  /** The hooks whose scope covers the context, in run order. */
  select(context: EventContext): readonly RegisteredHook[] {
    if (this.unscoped) return this.unscoped
    const key = this.byAgent ? agentKey(context) : tenantKey(context.tenantId)
    const known = this.cache.get(key)
    if (known) return known
    const parts = this.files.map((file) => this.within(file, context))
    const selected = this.merge(parts)
    if (this.cache.size >= MAX_CACHED) this.cache.clear()
    this.cache.set(key, selected)
    return selected
  }

  /** One file's hooks for the context, in run order. */
  private within(file: EventFile, context: EventContext): readonly Slot[] {
    const lists: (readonly Slot[])[] = []
    if (file.everywhere.length > 0) lists.push(file.everywhere)
    const tenant = context.tenantId
    const forTenant = tenant === undefined ? undefined : file.byTenant.get(tenant)
    if (forTenant) lists.push(forTenant)
    if (file.byAgent.size > 0) {
      const agent = context.agent
      const found = new Set<Slot>()
      for (const name of [agent?.id, agent?.name]) {
        if (typeof name !== 'string') continue
        for (const slot of file.byAgent.get(name) ?? []) {
          const scoped = slot.entry.spec.scope.tenant
          if (scoped === undefined || scoped === tenant) found.add(slot)
        }
      }
      if (found.size > 0) lists.push([...found].sort(this.compare))
    }
    if (lists.length <= 1) return lists[0] ?? []
    return lists.reduce((merged, list) => mergeSlots(merged, list, this.compare))
  }

  /** Merges the event's own hooks with wildcard ones: on a tie, the event's own run first. */
  private merge(parts: readonly (readonly Slot[])[]): readonly RegisteredHook[] {
    const own = parts[0] ?? []
    const wildcard = parts[1]
    if (!wildcard || wildcard.length === 0) return Object.freeze(own.map((s) => s.entry))
    const order = this.order
    const out: RegisteredHook[] = []
    let i = 0
    let j = 0
    while (i < own.length && j < wildcard.length) {
      const a = (own[i] as Slot).entry
      const b = (wildcard[j] as Slot).entry
      if (order(a, b) <= 0) {
        out.push(a)
        i++
      } else {
        out.push(b)
        j++
      }
    }
    while (i < own.length) out.push((own[i++] as Slot).entry)
    while (j < wildcard.length) out.push((wildcard[j++] as Slot).entry)
    return Object.freeze(out)
  }
}

/** A cache key naming a tenant (lengths keep keys of different contexts apart). */
function tenantKey(tenant: string | undefined): string {
  return tenant === undefined ? '-' : `${tenant.length}:${tenant}`
}

/** A cache key naming a tenant and an agent's id and name. */
function agentKey(context: EventContext): string {
  const agent = context.agent
  const id = agent?.id
  const name = agent?.name
  return `${tenantKey(context.tenantId)}|${typeof id === 'string' ? tenantKey(id) : '-'}|${typeof name === 'string' ? tenantKey(name) : '-'}`
}

/** Merges two lists already in order into a new one. */
function mergeSlots(a: readonly Slot[], b: readonly Slot[], compare: (x: Slot, y: Slot) => number): Slot[] {
  const out: Slot[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (compare(a[i] as Slot, b[j] as Slot) <= 0) out.push(a[i++] as Slot)
    else out.push(b[j++] as Slot)
  }
  while (i < a.length) out.push(a[i++] as Slot)
  while (j < b.length) out.push(b[j++] as Slot)
  return out
}

/** Inserts a slot at its place in a list kept in order (binary search). */
function insertSlot(list: Slot[], slot: Slot, compare: (a: Slot, b: Slot) => number): void {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (compare(list[mid] as Slot, slot) < 0) low = mid + 1
    else high = mid
  }
  list.splice(low, 0, slot)
}

function removeSlot(list: Slot[], slot: Slot): void {
  const at = list.indexOf(slot)
  if (at >= 0) list.splice(at, 1)
}

/** The wildcard name whose hooks an open event also runs. */
function wildcardOf(name: EventName): EventName | undefined {
  if (!isOpenEventName(name)) return undefined
  return name.startsWith('custom.') ? 'custom.*' : 'meta.*'
}

/** The registered hooks, indexed for selection. */
export class HookIndex {
  private readonly slots = new Map<string, Slot>()
  private readonly files = new Map<EventName, EventFile>()
  private readonly views = new Map<EventName, EventView>()
  private readonly compare: (a: Slot, b: Slot) => number
  private nextSeq = 0

  /** @param order how hooks of one event run (ties: registration order). */
  constructor(private readonly order: HookOrder = byPriorityThenName) {
    this.compare = (a, b) => order(a.entry, b.entry) || a.seq - b.seq
  }

  get size(): number {
    return this.slots.size
  }

  has(id: string): boolean {
    return this.slots.has(id)
  }

  /** The hooks in registration order (a replaced hook keeps its place). */
  *values(): IterableIterator<RegisteredHook> {
    for (const slot of this.slots.values()) yield slot.entry
  }

  /** Adds a hook, or replaces the one with the same id in place. */
  set(entry: RegisteredHook): void {
    const id = entry.spec.id
    const old = this.slots.get(id)
    if (old) this.unfile(old)
    const slot: Slot = { entry, seq: old ? old.seq : this.nextSeq++ }
    this.slots.set(id, slot)
    this.file(slot)
  }

  /** Removes a hook by id; true when it was there. */
  delete(id: string): boolean {
    const slot = this.slots.get(id)
    if (!slot) return false
    this.slots.delete(id)
    this.unfile(slot)
    return true
  }

  /**
   * The hooks an event reaches for a context, in run order; undefined when no hook at all
   * (in any scope) is registered for the event.
   */
  select(name: EventName, context: EventContext): readonly RegisteredHook[] | undefined {
    return this.view(name)?.select(context)
  }

  /** The selection view of an event name, or undefined when it has no hook in any scope. */
  view(name: EventName): EventView | undefined {
    const known = this.views.get(name)
    if (known) return known
    const own = this.files.get(name)
    const wildcardName = wildcardOf(name)
    const wildcard = wildcardName === undefined ? undefined : this.files.get(wildcardName)
    if (!own && !wildcard) return undefined
    const view = new EventView(
      wildcard ? [own ?? new EventFile(), wildcard] : [own as EventFile],
      this.compare,
      this.order,
    )
    if (this.views.size >= MAX_CACHED) this.views.clear()
    this.views.set(name, view)
    return view
  }

  /** How many hooks are registered per event name (as written: wildcards stay wildcards). */
  countsByEvent(): Map<EventName, number> {
    const counts = new Map<EventName, number>()
    for (const [name, file] of this.files) counts.set(name, file.size)
    return counts
  }

  private file(slot: Slot): void {
    const spec = slot.entry.spec
    let file = this.files.get(spec.event)
    if (!file) {
      file = new EventFile()
      this.files.set(spec.event, file)
    }
    const compare = this.compare
    const everywhere = file.everywhere
    eachBucket(file, slot, (map, key) => {
      if (!map) return insertSlot(everywhere, slot, compare)
      const list = map.get(key)
      if (list) insertSlot(list, slot, compare)
      else map.set(key, [slot])
    })
    file.size++
    this.forget(spec.event)
  }

  private unfile(slot: Slot): void {
    const spec = slot.entry.spec
    const file = this.files.get(spec.event)
    if (!file) return
    const everywhere = file.everywhere
    eachBucket(file, slot, (map, key) => {
      const list = map ? map.get(key) : everywhere
      if (!list) return
      removeSlot(list, slot)
      if (map && list.length === 0) map.delete(key)
    })
    file.size--
    if (file.size === 0) this.files.delete(spec.event)
    this.forget(spec.event)
  }

  /** Drops the cached views that a change to this event's hooks makes stale. */
  private forget(name: EventName): void {
    this.views.delete(name)
    if (name === 'custom.*' || name === 'meta.*') {
      const prefix = name.slice(0, -1)
      for (const viewed of this.views.keys()) if (viewed.startsWith(prefix)) this.views.delete(viewed)
    }
  }
}

/** Calls `visit` with each keyed bucket a slot belongs in (or the unscoped list). */
function eachBucket(
  file: EventFile,
  slot: Slot,
  visit: (map: Map<string, Slot[]> | undefined, key: string) => void,
): void {
  const scope = slot.entry.spec.scope
  if (scope.agents !== undefined) for (const agent of new Set(scope.agents)) visit(file.byAgent, agent)
  else if (scope.tenant !== undefined) visit(file.byTenant, scope.tenant)
  else visit(undefined, '')
}
