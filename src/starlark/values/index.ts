// The value model: the Value type, the value classes, frames and function code, calling a
// callable value, and freezing. Depends only on base.

export { callValue } from './call.js'
export { BREAK, CONTINUE, type Exec, Frame, type FunctionCode, NORMAL, RETURN } from './frame.js'
export { freeze } from './freeze.js'
export { type BuiltinImpl, type Kwargs, STARLARK_TYPE, type Value } from './value.js'
export {
  Builtin,
  Float,
  HostModule,
  isInt,
  normalizeInt,
  StarDict,
  StarFunction,
  StarList,
  StarRange,
  StarTuple,
  toFloat,
  truth,
  typeName,
} from './values.js'
export { workOf, workOfArgs } from './work.js'
