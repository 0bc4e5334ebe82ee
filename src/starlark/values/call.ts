// Calling functions: binding arguments to parameters, the run-time recursion ban, the
// call-depth limit, and dispatch to Starlark functions or JS builtins.

import { limitError, runtimeError, StarlarkError, type Thread } from '../base/index.js'
import { Frame } from './frame.js'
import type { Kwargs, Value } from './value.js'
import { Builtin, StarDict, StarFunction, StarTuple, typeName } from './values.js'
import { workOf, workOfArgs } from './work.js'

function bindGeneral(
  fn: StarFunction,
  args: Value[],
  kwargs: Kwargs | null,
  slots: (Value | undefined)[],
): void {
  const code = fn.code
  const name = code.name
  const nPos = code.numPositional
  const nNamed = nPos + code.numKwOnly
  const positional = Math.min(args.length, nPos)
  for (let i = 0; i < positional; i++) slots[i] = args[i]
  if (args.length > nPos) {
    if (code.varargsSlot < 0) {
      throw runtimeError(
        `${name}() accepts at most ${nPos} positional argument${nPos === 1 ? '' : 's'} (${args.length} given)`,
      )
    }
    slots[code.varargsSlot] = new StarTuple(args.slice(nPos))
  } else if (code.varargsSlot >= 0) {
    slots[code.varargsSlot] = new StarTuple([])
  }
  let extra: StarDict | null = null
  if (code.kwargsSlot >= 0) {
    extra = new StarDict()
    slots[code.kwargsSlot] = extra
  }
  if (kwargs !== null) {
    for (const [key, value] of kwargs) {
      const index = code.paramNames.indexOf(key)
      if (index >= 0 && index < nNamed) {
        if (slots[index] !== undefined)
          throw runtimeError(`${name}() got multiple values for parameter ${key}`)
        slots[index] = value
      } else if (extra !== null) {
        extra.store(key, value)
      } else {
        throw runtimeError(`${name}() got an unexpected keyword argument ${key}`)
      }
    }
  }
  for (let i = 0; i < nNamed; i++) {
    if (slots[i] !== undefined) continue
    const fallback = fn.defaults[i]
    if (fallback === undefined) throw runtimeError(`${name}() missing argument for ${code.paramNames[i]}`)
    slots[i] = fallback
  }
}

/** Calls a Starlark function. */
export function callFunction(fn: StarFunction, args: Value[], kwargs: Kwargs | null, thread: Thread): Value {
  const code = fn.code
  if (code.active) throw runtimeError(`recursion is not allowed: ${code.name} calls itself`)
  if (++thread.steps >= thread.nextCheck) thread.checkpoint()
  if (thread.depth >= thread.limits.maxCallDepth) {
    throw limitError(`call depth limit exceeded (limit maxCallDepth = ${thread.limits.maxCallDepth})`)
  }
  const slots: (Value | undefined)[] = new Array(code.numSlots)
  for (let i = 0; i < code.numSlots; i++) slots[i] = undefined
  if (
    kwargs === null &&
    args.length === code.numPositional &&
    code.varargsSlot < 0 &&
    code.kwargsSlot < 0 &&
    code.numKwOnly === 0
  ) {
    for (let i = 0; i < args.length; i++) slots[i] = args[i]
  } else {
    bindGeneral(fn, args, kwargs, slots)
  }
  const frame = new Frame(slots, fn.globals, thread, fn.closure)
  code.active = true
  thread.depth++
  try {
    code.body(frame)
    return frame.ret
  } catch (error) {
    if (error instanceof StarlarkError) error.inFunction(code.name)
    throw error
  } finally {
    code.active = false
    thread.depth--
  }
}

/** Calls any callable value; errors for values that are not callable. */
export function callValue(callee: Value, args: Value[], kwargs: Kwargs | null, thread: Thread): Value {
  if (callee instanceof StarFunction) return callFunction(callee, args, kwargs, thread)
  if (callee instanceof Builtin) {
    if (++thread.steps >= thread.nextCheck) thread.checkpoint()
    const work = workOfArgs(args)
    thread.charge(work)
    const started = thread.beginWork(callee.name, work)
    const result = callee.impl(args, kwargs, thread)
    thread.endWork(callee.name, work, started)
    thread.charge(workOf(result))
    return result
  }
  throw runtimeError(`invalid call of non-function (${typeName(callee)})`)
}
