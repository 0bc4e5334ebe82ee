// What every layer of the interpreter shares: the error type, source positions, execution
// limits and the Thread that enforces them. Imports nothing else of the interpreter.

export {
  asStarlarkError,
  limitError,
  runtimeError,
  StarlarkError,
  type StarlarkErrorKind,
  type StarlarkFrame,
  syntaxError,
} from './errors.js'
export { DEFAULT_LIMITS, ITEM_WORK, type Limits, resolveLimits, Thread, WORK_PER_STEP } from './limits.js'
export type { Pos } from './pos.js'
