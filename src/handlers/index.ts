// Handler types: one module each. `defaultHandlers()` is what engines get unless an
// embedder passes its own list.

import type { HandlerFactory } from '../core/index.js'
import { commandHandler } from './command.js'
import { fnHandler } from './fn.js'

export type { CommandConfig, ProcessResult } from './command.js'
export {
  commandHandler,
  hookEnvironment,
  interpretProcess,
  OUTPUT_CAP_BYTES,
  runProcess,
  splitCommand,
} from './command.js'
export type { HookFunction } from './fn.js'
export { fnHandler } from './fn.js'

/** The handler types available without extra configuration. */
export function defaultHandlers(): HandlerFactory[] {
  return [fnHandler, commandHandler]
}
