// The host API for extending Starlark from JS: builtin functions, namespaced modules
// (e.g. `metrics.incr`), and naming the Starlark type of opaque host values.

import type { Thread } from '../base/index.js'
import { Builtin, HostModule, STARLARK_TYPE, type Value } from '../values/index.js'
import { fromJs } from './interop.js'

/** Keyword arguments as a host builtin receives them (a null-prototype record). */
export type HostKwargs = Record<string, Value>

/**
 * Implementation of a host builtin: receives Starlark values (see toJs to convert) and the
 * executing thread; returns a Starlark value or any JS value (converted with fromJs, so
 * instances of host classes pass through as opaque values). Throwing an Error makes the
 * Starlark call fail with its message.
 */
export type HostFunction = (args: Value[], kwargs: HostKwargs, thread: Thread) => unknown

const NO_KWARGS: HostKwargs = Object.freeze(Object.create(null) as HostKwargs)

/** Defines a builtin function to pass to a program in `globals` or inside a {@link module}. */
export function builtin(name: string, impl: HostFunction): Builtin {
  return new Builtin(name, (args, kwargs, thread) => {
    let named = NO_KWARGS
    if (kwargs !== null && kwargs.size > 0) {
      named = Object.create(null) as HostKwargs
      for (const [key, value] of kwargs) named[key] = value
    }
    return fromJs(impl(args, named, thread))
  })
}

/**
 * Defines a namespace such as `metrics` whose attributes (`metrics.incr`) are builtins or
 * values. Members are converted with fromJs; JS functions become builtins.
 */
export function module(name: string, members: Record<string, unknown>): HostModule {
  const map = new Map<string, Value>()
  for (const key of Object.keys(members)) map.set(key, fromJs(members[key]))
  return new HostModule(name, map)
}

/**
 * Marks a host object as an opaque Starlark value with the given type name (what `type(x)`
 * returns) and returns it. Opaque values cross Starlark untouched: the host gets the very
 * same object back from Module.call, so `result instanceof Decision` works.
 */
export function opaque<T extends object>(value: T, typeName: string): T {
  Object.defineProperty(value, STARLARK_TYPE, { value: typeName, enumerable: false })
  return value
}
