// Public API of the Starlark interpreter: compile files and expressions, run them with
// host globals and limits, call their functions, extend them with host builtins and
// modules, convert values, and run Starlark test files.

export { StarlarkError, type StarlarkErrorKind, type StarlarkFrame } from './errors.js'
export { builtin, type HostFunction, type HostKwargs, module, opaque } from './host.js'
export { fromJs, toJs } from './interop.js'
export { DEFAULT_LIMITS, type Limits, Thread } from './limits.js'
export {
  CompiledExpression,
  type CompileOptions,
  compile,
  compileExpression,
  type ExecutionOptions,
  evalExpression,
  functionParams,
  Module,
  type ParamInfo,
  Program,
  type RunOptions,
} from './program.js'
export { repr, str } from './repr.js'
export { runStarlarkTests, type TestFailure, type TestReport } from './testing.js'
export {
  Builtin,
  type BuiltinImpl,
  Float,
  HostModule,
  type Kwargs,
  STARLARK_TYPE,
  StarDict,
  StarFunction,
  StarList,
  StarRange,
  StarTuple,
  typeName,
  type Value,
} from './values.js'
