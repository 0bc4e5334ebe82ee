// From a loaded warden.yaml to what a gateway session needs: the engine (every engine has
// the static `deny` handler the tool filter understands), the tool visibility rules and the pins.

import type { Approver, EventContext, HandlerFactory, HookDefinition, Recorder } from '../../core/index.js'
import { buildEngine, type WardenConfig } from '../../sources/index.js'
import type { McpChecksOptions } from './checks.js'
import { ToolPins } from './pins.js'
import { hiddenToolPatterns, ToolVisibility } from './tools.js'

/** What a gateway is built from. */
export interface GatewaySetupOptions {
  config?: WardenConfig
  /** Hooks from other sources (hook files, embedders' fn hooks). */
  extraHooks?: HookDefinition[]
  extraHandlers?: HandlerFactory[]
  /** The pin file; pinning is off without it. */
  pinPath?: string
  context?: EventContext
  approver?: Approver
  recorder?: Recorder
  log?: (line: string) => void
}

/** The checks' options, plus the means to release the engine. */
export type GatewaySetup = McpChecksOptions & { close(): Promise<void> }

/**
 * Builds the engine, visibility rules and pins of a gateway.
 * @throws WardenError when a hook, `tools.hide` or the pin file is invalid.
 */
export async function prepareGateway(options: GatewaySetupOptions): Promise<GatewaySetup> {
  const engine = buildEngine(options.config, {
    ...(options.extraHandlers ? { extraHandlers: options.extraHandlers } : {}),
    ...(options.extraHooks ? { extraHooks: options.extraHooks } : {}),
    ...(options.approver ? { approver: options.approver } : {}),
    ...(options.recorder ? { recorder: options.recorder } : {}),
  })
  try {
    const context = options.context ?? {}
    const visibility = ToolVisibility.from(hiddenToolPatterns(options.config?.raw), engine.hooks(), context)
    const setup: GatewaySetup = { engine, visibility, context, close: () => engine.close() }
    if (options.pinPath) setup.pins = await ToolPins.load(options.pinPath)
    if (options.log) setup.log = options.log
    return setup
  } catch (error) {
    await engine.close()
    throw error
  }
}
