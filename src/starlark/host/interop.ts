// Conversion between host (JS) values and Starlark values. Host objects become read-only
// dict views converted lazily on access; arrays become frozen lists; JS functions become
// builtins; instances of host classes stay opaque and pass through Starlark untouched.

import { DEFAULT_LIMITS, limitError } from '../base/index.js'
import {
  Builtin,
  Float,
  HostModule,
  normalizeInt,
  StarDict,
  StarFunction,
  StarList,
  StarRange,
  StarTuple,
  type Value,
} from '../values/index.js'

const MAX_CONVERSION_DEPTH = 500

function isStarlarkObject(value: object): boolean {
  return (
    value instanceof StarDict ||
    value instanceof StarList ||
    value instanceof Float ||
    value instanceof StarTuple ||
    value instanceof StarFunction ||
    value instanceof Builtin ||
    value instanceof HostModule ||
    value instanceof StarRange
  )
}

/** Whether a value is a plain JS object (object literal or null-prototype object). */
export function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function wrapFunction(fn: (...args: unknown[]) => unknown): Builtin {
  const name = fn.name || 'host_function'
  return new Builtin(name, (args, kwargs) => {
    const jsArgs = args.map((a) => toJs(a))
    if (kwargs !== null && kwargs.size > 0) {
      const named: Record<string, unknown> = {}
      for (const [key, value] of kwargs)
        Object.defineProperty(named, key, { value: toJs(value), enumerable: true })
      jsArgs.push(named)
    }
    return fromJs(fn(...jsArgs))
  })
}

/**
 * Converts a host value into a Starlark value: undefined/null → None, integral numbers →
 * int, other numbers → float, bigint → int, strings and booleans as they are, arrays and
 * Sets → frozen lists, plain objects → frozen dict views (converted on access), Maps →
 * frozen dicts, JS functions → builtins (called with JS-converted arguments). Starlark
 * values pass through; any other object is an opaque host value, kept as the same object.
 */
export function fromJs(value: unknown): Value {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (Number.isInteger(value))
        return Number.isSafeInteger(value) ? value + 0 : normalizeInt(BigInt(value))
      return new Float(value)
    case 'bigint':
      return normalizeInt(value)
    case 'undefined':
      return null
    case 'function':
      return wrapFunction(value as (...args: unknown[]) => unknown)
    case 'symbol':
      return String(value)
  }
  if (value === null) return null
  const object = value as object
  const proto = Object.getPrototypeOf(object)
  if (proto === Object.prototype || proto === null)
    return StarDict.view(object as Record<string, unknown>, fromJs)
  if (isStarlarkObject(object)) return object
  if (Array.isArray(object)) {
    const list = new StarList(object.map(fromJs))
    list.frozen = true
    return list
  }
  if (object instanceof Map) {
    const dict = new StarDict()
    for (const [k, v] of object) dict.store(fromJs(k), fromJs(v))
    dict.frozen = true
    return dict
  }
  if (object instanceof Set) {
    const list = new StarList(Array.from(object, fromJs))
    list.frozen = true
    return list
  }
  return object
}

function setProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

function convert(value: Value, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
    case 'bigint':
      return value
  }
  if (value === null) return null
  if (depth > MAX_CONVERSION_DEPTH) throw limitError('value nested too deeply to convert to a JS value')
  if (value instanceof Float) return value.value
  if (value instanceof StarList || value instanceof StarTuple)
    return value.items.map((item) => convert(item, depth + 1))
  if (value instanceof StarDict) {
    const source = value.hostSource
    if (source !== null) return source
    const entries = value.entries()
    if (entries.every(([key]) => typeof key === 'string')) {
      const out: Record<string, unknown> = {}
      for (const [key, item] of entries) setProperty(out, key as string, convert(item, depth + 1))
      return out
    }
    const map = new Map<unknown, unknown>()
    for (const [key, item] of entries) map.set(convert(key, depth + 1), convert(item, depth + 1))
    return map
  }
  if (value instanceof StarRange) {
    if (value.length > DEFAULT_LIMITS.maxCollectionLength) {
      throw limitError(
        `range too large to convert (limit maxCollectionLength = ${DEFAULT_LIMITS.maxCollectionLength})`,
      )
    }
    const out: number[] = []
    for (let i = 0; i < value.length; i++) out.push(value.at(i))
    return out
  }
  return value
}

/**
 * Converts a Starlark value to a host value: None → null, int → number (bigint beyond
 * 2^53), float → number, list/tuple → array, dict → object (string keys) or Map, a dict
 * view of a host object → that same object. Functions, builtins, modules and opaque host
 * values are returned as they are.
 */
export function toJs(value: Value): unknown {
  return convert(value, 0)
}
