// Public API of the Starlark interpreter: compile files and expressions, run them with
// host globals and limits, call their functions, extend them with host builtins and
// modules, convert values, and run Starlark test files. The interpreter is layered, each
// layer importing only those below it: base, values, ops, lexer, parser, builtins,
// compiler, host.

export {
  DEFAULT_LIMITS,
  type Limits,
  StarlarkError,
  type StarlarkErrorKind,
  type StarlarkFrame,
  Thread,
} from './base/index.js'
export {
  builtin,
  CompiledExpression,
  type CompileOptions,
  compile,
  compileExpression,
  type ExecutionOptions,
  evalExpression,
  fromJs,
  functionParams,
  type HostFunction,
  type HostKwargs,
  Module,
  module,
  opaque,
  type ParamInfo,
  Program,
  type RunOptions,
  runStarlarkTests,
  type TestFailure,
  type TestReport,
  toJs,
} from './host/index.js'
export { repr, str } from './ops/index.js'
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
} from './values/index.js'
