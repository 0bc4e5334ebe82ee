// The host boundary: converting JS values, host builtins and modules, compiling and running
// programs and expressions, and the Starlark test runner. The top layer.

export { builtin, type HostFunction, type HostKwargs, module, opaque } from './host.js'
export { fromJs, toJs } from './interop.js'
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
export { runStarlarkTests, type TestFailure, type TestReport } from './testing.js'
