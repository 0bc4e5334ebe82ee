// The composition root shared by the CLI commands: from a loaded config to the handler
// list and an engine. Each handler type that needs settings (network, judge, secrets)
// is wired here from its config section.

import type { Approver, Engine, HandlerFactory, HookDefinition, Recorder } from '../core/index.js'
import { createEngine } from '../core/index.js'
import { defaultHandlers } from '../handlers/index.js'
import type { WardenConfig } from './config.js'

/** What a runtime needs besides the config. */
export interface RuntimeOptions {
  recorder?: Recorder
  approver?: Approver
  /** Hooks from other sources (hook files, settings files, the database). */
  extraHooks?: HookDefinition[]
  /** Handlers added by the caller (e.g. fn handlers of an embedder). */
  extraHandlers?: HandlerFactory[]
  env?: NodeJS.ProcessEnv
}

/** The handler types a config enables. */
export function buildHandlers(
  _config: WardenConfig | undefined,
  options: RuntimeOptions = {},
): HandlerFactory[] {
  const handlers = defaultHandlers()
  for (const extra of options.extraHandlers ?? []) {
    const at = handlers.findIndex((h) => h.type === extra.type)
    if (at >= 0) handlers.splice(at, 1)
    handlers.push(extra)
  }
  return handlers
}

/**
 * Creates an engine from a config and the given extras.
 * @throws WardenError when a hook is invalid.
 */
export function buildEngine(config: WardenConfig | undefined, options: RuntimeOptions = {}): Engine {
  return createEngine({
    hooks: [...(config?.hooks ?? []), ...(options.extraHooks ?? [])],
    handlers: buildHandlers(config, options),
    limits: config?.limits ?? {},
    ...(options.recorder ? { recorder: options.recorder } : {}),
    ...(options.approver ? { approver: options.approver } : {}),
  })
}
