// loom's reminder channel under loom's names: hook outcomes (and any event a host emits)
// queue in a `ReminderInjector`, and `drain()` renders them through the templates of a
// `ReminderRegistry` as `<system-reminder>` fragments for the model's next request. The
// default templates say what loom's say: a block ("Hook "X" blocked the action: reason"),
// hook output and added context.

/** What queues a reminder: loom's hook outcomes, or any event a host defines. */
export type ReminderEvent =
  | { readonly type: 'hook.success'; readonly hookName: string; readonly output: string }
  | { readonly type: 'hook.blocked'; readonly hookName: string; readonly reason: string }
  | { readonly type: 'hook.context'; readonly hookName: string; readonly context: string }
  | { readonly type: 'tool.denied'; readonly toolName: string; readonly reason: string }

/** The type names of {@link ReminderEvent}. */
export type ReminderEventType = ReminderEvent['type']

/** What every template is told when it renders. */
export interface ReminderRenderContext {
  readonly turnIndex: number
}

/** A template: renders one event type into reminder text ('' says nothing). */
export interface ReminderTemplate {
  readonly id: string
  readonly eventType: ReminderEventType
  /** When true, an injector may silence it by id. */
  readonly suppressible: boolean
  render(event: ReminderEvent, ctx: ReminderRenderContext): string
}

/** Builds a template whose `render` sees its own event type. */
export function defineTemplate<T extends ReminderEventType>(spec: {
  readonly id: string
  readonly eventType: T
  readonly suppressible: boolean
  render(event: Extract<ReminderEvent, { type: T }>, ctx: ReminderRenderContext): string
}): ReminderTemplate {
  return {
    id: spec.id,
    eventType: spec.eventType,
    suppressible: spec.suppressible,
    render(event, ctx) {
      if (event.type !== spec.eventType)
        throw new Error(`reminder template "${spec.id}" cannot render a "${event.type}" event`)
      return spec.render(event as Extract<ReminderEvent, { type: T }>, ctx)
    },
  }
}

/** Templates by event type, ids unique. */
export class ReminderRegistry {
  private readonly byType = new Map<ReminderEventType, ReminderTemplate[]>()
  private readonly byId = new Map<string, ReminderTemplate>()

  /** Adds a template. @throws Error when its id is taken. */
  register(template: ReminderTemplate): this {
    if (this.byId.has(template.id))
      throw new Error(`reminder template id "${template.id}" is already registered`)
    this.byId.set(template.id, template)
    const list = this.byType.get(template.eventType)
    if (list) list.push(template)
    else this.byType.set(template.eventType, [template])
    return this
  }

  /** Removes a template by id; returns it, or null when there was none. */
  unregister(id: string): ReminderTemplate | null {
    const found = this.byId.get(id)
    if (!found) return null
    this.byId.delete(id)
    const rest = (this.byType.get(found.eventType) ?? []).filter((t) => t.id !== id)
    if (rest.length > 0) this.byType.set(found.eventType, rest)
    else this.byType.delete(found.eventType)
    return found
  }

  /** The templates of an event type, in registration order. */
  templatesFor(type: ReminderEventType): readonly ReminderTemplate[] {
    return this.byType.get(type) ?? []
  }

  has(id: string): boolean {
    return this.byId.has(id)
  }

  get size(): number {
    return this.byId.size
  }
}

/** The default templates: hook outcomes and denied tools, worded as loom words them. */
export const defaultTemplates: readonly ReminderTemplate[] = [
  defineTemplate({
    id: 'reminders.hook.success',
    eventType: 'hook.success',
    suppressible: true,
    render: (e) =>
      e.output.trim()
        ? `Hook "${e.hookName}" completed.\n\n${e.output.trim()}`
        : `Hook "${e.hookName}" completed.`,
  }),
  defineTemplate({
    id: 'reminders.hook.blocked',
    eventType: 'hook.blocked',
    suppressible: false,
    render: (e) =>
      `Hook "${e.hookName}" blocked the action: ${e.reason}. Adjust your approach; do not retry the exact same call.`,
  }),
  defineTemplate({
    id: 'reminders.hook.context',
    eventType: 'hook.context',
    suppressible: true,
    render: (e) =>
      e.context.trim() ? `Additional context from hook "${e.hookName}":\n\n${e.context.trim()}` : '',
  }),
  defineTemplate({
    id: 'reminders.tool.denied',
    eventType: 'tool.denied',
    suppressible: false,
    render: (e) => `The tool "${e.toolName}" was denied: ${e.reason}. Do not retry the same call.`,
  }),
]

/** A registry holding {@link defaultTemplates}. */
export function createDefaultRegistry(): ReminderRegistry {
  const registry = new ReminderRegistry()
  for (const template of defaultTemplates) registry.register(template)
  return registry
}

/** Options of {@link ReminderInjector}. */
export interface ReminderInjectorOptions {
  /** Ids of suppressible templates to silence. */
  readonly suppress?: readonly string[]
}

/** The per-session queue of reminder events, rendered and emptied by {@link drain}. */
export class ReminderInjector {
  private readonly queue: { event: ReminderEvent; enqueuedAt: number }[] = []
  private readonly suppressed: ReadonlySet<string>

  constructor(
    private readonly registry: ReminderRegistry = createDefaultRegistry(),
    options: ReminderInjectorOptions = {},
  ) {
    this.suppressed = new Set(options.suppress ?? [])
  }

  /** Queues an event (rendered on the next {@link drain}). */
  emit(event: ReminderEvent): void {
    this.queue.push({ event, enqueuedAt: Date.now() })
  }

  /** Renders every queued event as `<system-reminder>` fragments and empties the queue. */
  drain(ctx: ReminderRenderContext = { turnIndex: 0 }): readonly string[] {
    const out: string[] = []
    for (const { event } of this.queue) {
      for (const template of this.registry.templatesFor(event.type)) {
        if (template.suppressible && this.suppressed.has(template.id)) continue
        const body = template.render(event, ctx).trim()
        if (body) out.push(`<system-reminder>\n${body}\n</system-reminder>`)
      }
    }
    this.queue.length = 0
    return out
  }

  /** The queued events, without draining. */
  pending(): readonly { event: ReminderEvent; enqueuedAt: number }[] {
    return [...this.queue]
  }

  /** Drops every queued event. */
  clear(): void {
    this.queue.length = 0
  }

  get size(): number {
    return this.queue.length
  }

  isSuppressed(id: string): boolean {
    return this.suppressed.has(id)
  }
}
