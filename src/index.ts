// Warden's package root: the embedding API. `createEngine` comes with the built-in
// handler types; everything from the core (events, decisions, factories) is re-exported.

import { createEngine as createCoreEngine, type Engine, type EngineOptions } from './core/index.js'
import { defaultHandlers } from './handlers/index.js'

export * from './core/index.js'
export type { HookFunction } from './handlers/index.js'
export { commandHandler, defaultHandlers, fnHandler } from './handlers/index.js'

/** Options of {@link createEngine}: as the core's, with the handler list optional. */
export type CreateEngineOptions = Omit<EngineOptions, 'handlers'> & { handlers?: EngineOptions['handlers'] }

/**
 * Creates an engine with the built-in handlers (fn, command) plus any passed in.
 * @throws WardenError when a hook definition is invalid.
 */
export function createEngine(options: CreateEngineOptions = {}): Engine {
  const extra = options.handlers ?? []
  const extraTypes = new Set(extra.map((h) => h.type))
  const handlers = [...defaultHandlers().filter((h) => !extraTypes.has(h.type)), ...extra]
  return createCoreEngine({ ...options, handlers })
}
