// From a loaded warden.yaml to what a gateway session needs: the engine (every engine has
// the static `deny` handler the tool filter understands), the tool visibility rules, the pins,
// and the unknown types the operator lets through (`mcp.allowUnknownTypes`), whose use each
// decision record names in its reason codes.

import {
  type Approver,
  type EventContext,
  errorMessage,
  type HandlerFactory,
  type HookDefinition,
  type Recorder,
  WardenError,
} from '../../core/index.js'
import { buildEngine, type WardenConfig } from '../../sources/index.js'
import { letThroughRecorder, listedKeys, type UnknownTypePolicy, unknownTypePolicy } from '../kit/index.js'
import type { McpChecksOptions } from './checks.js'
import { ToolPins } from './pins.js'
import { MCP_TABLES, MCP_UNKNOWN_TYPES_SETTING } from './tables.js'
import { hiddenToolPatterns, ToolVisibility } from './tools.js'

/** The reason code a decision record carries when its message held a type let through. */

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
  /** Keys to let through besides `mcp.allowUnknownTypes` in the config (for embedders). */
  allowUnknownTypes?: readonly string[]
}

/** The checks' options, plus the means to release the engine. */
export type GatewaySetup = McpChecksOptions & { close(): Promise<void> }

/**
 * Builds the engine, visibility rules and pins of a gateway.
 * @throws WardenError when a hook, `tools.hide` or the pin file is invalid.
 */
export async function prepareGateway(options: GatewaySetupOptions): Promise<GatewaySetup> {
  const unknownTypes = unknownTypesOf(options)
  const engine = buildEngine(options.config, {
    ...(options.extraHandlers ? { extraHandlers: options.extraHandlers } : {}),
    ...(options.extraHooks ? { extraHooks: options.extraHooks } : {}),
    ...(options.approver ? { approver: options.approver } : {}),
    ...(options.recorder ? { recorder: mcpLetThroughRecorder(options.recorder) } : {}),
  })
  try {
    const context = options.context ?? {}
    const visibility = ToolVisibility.from(hiddenToolPatterns(options.config?.raw), engine.hooks(), context)
    const setup: GatewaySetup = { engine, visibility, context, unknownTypes, close: () => engine.close() }
    if (options.pinPath) setup.pins = await ToolPins.load(options.pinPath)
    if (options.log) setup.log = options.log
    return setup
  } catch (error) {
    await engine.close()
    throw error
  }
}

/**
 * The policy of `mcp.allowUnknownTypes` (config and options together).
 * @throws WardenError `invalid-config` naming an entry that is no MCP place or a refused type.
 */
function unknownTypesOf(options: GatewaySetupOptions): UnknownTypePolicy {
  const mcp = options.config?.raw?.mcp as { allowUnknownTypes?: string[] } | undefined
  const entries = [...(mcp?.allowUnknownTypes ?? []), ...(options.allowUnknownTypes ?? [])]
  try {
    return unknownTypePolicy(MCP_UNKNOWN_TYPES_SETTING, entries, MCP_TABLES)
  } catch (error) {
    throw new WardenError('invalid-config', errorMessage(error))
  }
}

/** A recorder that adds the let-through reason codes to the records of `mcp.*` calls listing such types. */
export function mcpLetThroughRecorder(inner: Recorder): Recorder {
  return letThroughRecorder(inner, (record) => listedKeys(record, 'mcp', 'letThrough'))
}
