// loom's lifecycle hook API under loom's names, over Warden's engine: `HookRegistry`
// (`register(event, spec)` in loom's shapes, run in registration order) and `HookRuntime`
// (`run(ctx, signal)` never throws; the first block stops the chain; outcomes go to the
// `ReminderInjector` as "hook X blocked the action: reason", hook output and added context).
// Every hook runs through Warden's engine, so it is traced, bounded and audited like any other.

import type { Decision, Engine } from '../../core/index.js'
import { observedAnswer } from '../../core/index.js'
import type { LoomHookContext } from '../../handlers/index.js'
import { type CreateEngineOptions, createEngine } from '../../index.js'
import { failClosed, type WardenBackend } from '../backend.js'
import { canonicalEvent, contextOf, type LoomFields, payloadOf } from './payload.js'
import type { ReminderInjector } from './reminders.js'
import {
  abortableCommandHandler,
  definitionOf,
  type LoomHookOutcome,
  type LoomSpec,
  type RunScope,
  uniqueHookName,
  withRunScope,
} from './specs.js'

/** loom's lifecycle events. */
export type HookEvent =
  | 'session.start'
  | 'user.prompt.submit'
  | 'tool.pre'
  | 'tool.post'
  | 'model.pre'
  | 'model.post'
  | 'session.end'
  | 'error'

/** What a loom hook function receives. */
export type HookContext = LoomHookContext

/** What a loom hook returns (all optional; `{}` allows and says nothing). */
export interface HookResult {
  readonly continue?: boolean
  readonly reason?: string
  readonly output?: string
  readonly additionalContext?: string
}

/** A hook spec as loom writes it. */
export type HookSpec = LoomSpec

/** The outcome of {@link HookRuntime.run}. */
export interface HookRunResult {
  /** False when a hook blocked the action. */
  readonly continue: boolean
  readonly blockedReason?: string
  readonly blockedHook?: string
  /** Warden's decision, with every hook's trace. */
  readonly decision?: Decision
}

/** Options of {@link HookRegistry}: as `createEngine`'s, or an engine to register in. */
export type HookRegistryOptions = CreateEngineOptions & {
  engine?: Engine
  /**
   * On `tool.post` and `model.pre` (where hooks only observe), a block also ends the chain
   * and the hooks after it do not run, as loom's runner does. Default false: every observer
   * sees the event.
   */
  observedBlockEndsChain?: boolean
}

/** Hook bindings by event, registered in a Warden engine that runs them in registration order. */
export class HookRegistry {
  /** The engine the hooks are registered in. */
  readonly engine: Engine
  private readonly byEvent = new Map<string, { spec: HookSpec; id: string }[]>()
  private readonly loomNames = new Map<string, string>()
  private readonly observedBlockEndsChain: boolean

  constructor(options: HookRegistryOptions = {}) {
    const { engine, handlers = [], observedBlockEndsChain = false, ...rest } = options
    this.observedBlockEndsChain = observedBlockEndsChain
    this.engine =
      engine ??
      createEngine({
        order: 'registration',
        ...rest,
        handlers: [abortableCommandHandler, ...handlers.filter((h) => h.type !== 'command')],
      })
  }

  /**
   * Registers a hook for a lifecycle event: `{type: 'fn', name, fn, timeoutMs?}` or
   * `{type: 'command', name, command, timeoutMs?}`. Several hooks may share a name.
   * @throws Error naming the field when the spec or event is not one loom accepts.
   */
  register(event: HookEvent | string, hook: HookSpec): this {
    const canonical = canonicalEvent(event)
    const list = this.byEvent.get(canonical) ?? []
    const taken = new Set(this.engine.hooks().map((h) => h.id))
    const id = uniqueHookName(hook.name, (name) => taken.has(name))
    const spec = this.engine.register(definitionOf(event, hook, id, this.observedBlockEndsChain))
    this.loomNames.set(spec.id, hook.name)
    list.push({ spec: hook, id: spec.id })
    this.byEvent.set(canonical, list)
    return this
  }

  /** The hooks bound to an event, in registration order. */
  for(event: HookEvent | string): readonly HookSpec[] {
    return (this.byEvent.get(canonicalEvent(event)) ?? []).map((entry) => entry.spec)
  }

  /** Whether at least one hook is bound to the event. */
  has(event: HookEvent | string): boolean {
    return (this.byEvent.get(canonicalEvent(event))?.length ?? 0) > 0
  }

  /** Hooks across all events. */
  get size(): number {
    let count = 0
    for (const list of this.byEvent.values()) count += list.length
    return count
  }

  /** Drops every binding. */
  clear(): void {
    for (const id of this.loomNames.keys()) this.engine.unregister(id)
    this.loomNames.clear()
    this.byEvent.clear()
  }

  /** The name a hook was registered under, from its engine id. */
  nameOf(id: string): string {
    return this.loomNames.get(id) ?? id
  }
}

/** Options of {@link HookRuntime}. */
export interface HookRuntimeOptions {
  readonly registry: HookRegistry
  /** Where outcomes go for the model's next turn. */
  readonly reminders?: ReminderInjector
}

/** Runs the hooks of an event; never throws. */
export class HookRuntime {
  readonly registry: HookRegistry
  readonly reminders: ReminderInjector | undefined
  private readonly backend: WardenBackend

  constructor(options: HookRuntimeOptions) {
    this.registry = options.registry
    this.reminders = options.reminders
    this.backend = failClosed(options.registry.engine)
  }

  /** Whether any hook is bound to the event. */
  has(event: HookEvent | string): boolean {
    return this.registry.has(event)
  }

  /**
   * Runs every hook bound to `ctx.event` in order; the first block stops the chain. An
   * abort of `signal` (or a timeout, or a throw) blocks with the cause. Never throws.
   */
  async run(ctx: LoomFields & { event: HookEvent | string }, signal?: AbortSignal): Promise<HookRunResult> {
    if (!this.has(ctx.event)) return { continue: true }
    const event = canonicalEvent(ctx.event)
    const scope: RunScope = { outcomes: new Map() }
    if (signal) scope.signal = signal
    const decision = await withRunScope(scope, () =>
      this.backend.dispatch({ event, payload: payloadOf(event, ctx), context: contextOf(ctx), wait: true }),
    )
    return this.report(event, decision, scope.outcomes)
  }

  /** Emits each hook's outcome, in order, and reads the decision as loom's run result. */
  private report(event: string, decision: Decision, outcomes: Map<string, LoomHookOutcome>): HookRunResult {
    for (const entry of decision.trace) {
      if (entry.outcome === 'skipped') continue
      const hookName = this.registry.nameOf(entry.id)
      const observed = observedAnswer(event, entry.reason)
      if (entry.outcome === 'deny' || observed?.type === 'deny') {
        const reason = (observed?.reason ?? entry.reason) || 'Hook returned continue: false'
        this.reminders?.emit({ type: 'hook.blocked', hookName, reason })
        if (entry.outcome === 'deny')
          return { continue: false, blockedHook: hookName, blockedReason: reason, decision }
        continue
      }
      const said = outcomes.get(entry.id)
      if (said?.output !== undefined)
        this.reminders?.emit({ type: 'hook.success', hookName, output: said.output })
      if (said?.context?.trim())
        this.reminders?.emit({ type: 'hook.context', hookName, context: said.context })
    }
    if (decision.decision === 'deny') {
      // An approval refused, or a denial outside any hook (a bound reached, the backend failing).
      const asked = decision.trace.find((entry) => entry.outcome === 'ask')
      const hookName = asked ? this.registry.nameOf(asked.id) : 'warden'
      this.reminders?.emit({ type: 'hook.blocked', hookName, reason: decision.reason })
      return { continue: false, blockedHook: hookName, blockedReason: decision.reason, decision }
    }
    return { continue: true, decision }
  }
}
