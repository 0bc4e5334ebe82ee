// Argument helpers for builtins and methods: binding positional and keyword arguments to
// named parameters, and checked extraction of ints and strings.

import { runtimeError } from '../base/index.js'
import { type Kwargs, typeName, type Value } from '../values/index.js'

/**
 * Binds arguments to parameter names; the first `required` are mandatory. Returns one
 * entry per name, undefined when the argument was not given.
 */
export function bindArgs(
  fname: string,
  args: Value[],
  kwargs: Kwargs | null,
  names: readonly string[],
  required: number,
): (Value | undefined)[] {
  if (args.length > names.length) {
    throw runtimeError(`${fname}: got ${args.length} arguments, want at most ${names.length}`)
  }
  const out: (Value | undefined)[] = new Array(names.length)
  for (let i = 0; i < names.length; i++) out[i] = args[i]
  if (kwargs !== null) {
    for (const [key, value] of kwargs) {
      const index = names.indexOf(key)
      if (index < 0) throw runtimeError(`${fname}: unexpected keyword argument ${key}`)
      if (out[index] !== undefined) throw runtimeError(`${fname}: got multiple values for parameter ${key}`)
      out[index] = value
    }
  }
  for (let i = 0; i < required; i++) {
    if (out[i] === undefined) throw runtimeError(`${fname}: missing argument for ${names[i]}`)
  }
  return out
}

/** Checks a positional-only call shape. */
export function checkArgs(
  fname: string,
  args: Value[],
  kwargs: Kwargs | null,
  min: number,
  max: number,
): void {
  if (kwargs !== null && kwargs.size > 0) throw runtimeError(`${fname}: unexpected keyword arguments`)
  if (args.length < min || args.length > max) {
    const want =
      min === max ? `${min}` : max === Number.POSITIVE_INFINITY ? `at least ${min}` : `${min} to ${max}`
    throw runtimeError(`${fname}: got ${args.length} arguments, want ${want}`)
  }
}

/** Extracts an int that fits a JS number. */
export function asInt(value: Value | undefined, what: string): number {
  if (typeof value === 'number') return value
  if (typeof value === 'bigint') throw runtimeError(`${what}: int too large`)
  throw runtimeError(`${what}: got ${typeName(value ?? null)}, want int`)
}

/** Extracts a string. */
export function asString(value: Value | undefined, what: string): string {
  if (typeof value === 'string') return value
  throw runtimeError(`${what}: got ${typeName(value ?? null)}, want string`)
}

/** Extracts an optional int (None or absent → fallback). */
export function optionalInt(value: Value | undefined, what: string, fallback: number): number {
  return value === undefined || value === null ? fallback : asInt(value, what)
}
