// Equality and ordering of Starlark values: exact int/float comparison, NaN equal to itself
// and greater than every other number, lexicographic order for strings, lists and tuples.

import { limitError, runtimeError } from '../base/index.js'
import { Float, StarDict, StarList, StarRange, StarTuple, typeName, type Value } from '../values/index.js'

const MAX_COMPARE_DEPTH = 200

/** Compares two numbers (ints or floats); NaN equals NaN and is greater than everything else. */
export function compareNumbers(a: number | bigint | Float, b: number | bigint | Float): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
  if (a instanceof Float) {
    if (b instanceof Float) return compareFloats(a.value, b.value)
    return -compareIntFloat(b as number | bigint, a.value)
  }
  if (b instanceof Float) return compareIntFloat(a, b.value)
  return a < b ? -1 : a > b ? 1 : 0
}

function compareFloats(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1
  if (Number.isNaN(b)) return -1
  return a < b ? -1 : a > b ? 1 : 0
}

function compareIntFloat(a: number | bigint, f: number): number {
  if (Number.isNaN(f)) return -1
  if (typeof a === 'number') return a < f ? -1 : a > f ? 1 : 0
  if (!Number.isFinite(f)) return f > 0 ? -1 : 1
  const floor = BigInt(Math.floor(f))
  if (a < floor) return -1
  if (a > floor) return 1
  return Number.isInteger(f) ? 0 : -1
}

function isNumber(v: Value): v is number | bigint | Float {
  return typeof v === 'number' || typeof v === 'bigint' || v instanceof Float
}

function sequenceEquals(a: Value[], b: Value[], depth: number): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    if (!equals(a[i]!, b[i]!, depth + 1)) return false
  }
  return true
}

/** Starlark `==`. */
export function equals(a: Value, b: Value, depth = 0): boolean {
  if (a === b) return true
  switch (typeof a) {
    case 'string':
    case 'boolean':
      return false
    case 'number':
    case 'bigint':
      return b instanceof Float ? compareNumbers(a, b) === 0 : false
  }
  if (a === null || b === null || typeof b !== 'object') {
    return isNumber(a) && isNumber(b) ? compareNumbers(a, b) === 0 : false
  }
  if (depth > MAX_COMPARE_DEPTH) throw limitError('values nested too deeply to compare')
  if (a instanceof Float) return isNumber(b) && compareNumbers(a, b) === 0
  if (a instanceof StarList) return b instanceof StarList && sequenceEquals(a.items, b.items, depth)
  if (a instanceof StarTuple) return b instanceof StarTuple && sequenceEquals(a.items, b.items, depth)
  if (a instanceof StarDict) {
    if (!(b instanceof StarDict) || a.size !== b.size) return false
    for (const [key, value] of a.entries()) {
      const other = b.get(key)
      if (other === undefined || !equals(value, other, depth + 1)) return false
    }
    return true
  }
  if (a instanceof StarRange) {
    if (!(b instanceof StarRange) || a.length !== b.length) return false
    if (a.length === 0) return true
    return a.start === b.start && (a.length === 1 || a.step === b.step)
  }
  return false
}

function compareSequences(a: Value[], b: Value[], op: string, depth: number): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a[i]!
    const y = b[i]!
    if (!equals(x, y, depth + 1)) return compare(x, y, op, depth + 1)
  }
  return a.length - b.length
}

/** Three-way comparison for `<`, `<=`, `>`, `>=` and sorting; throws for unordered types. */
export function compare(a: Value, b: Value, op = '<', depth = 0): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b)
  if (depth > MAX_COMPARE_DEPTH) throw limitError('values nested too deeply to compare')
  if (a instanceof StarList && b instanceof StarList) return compareSequences(a.items, b.items, op, depth)
  if (a instanceof StarTuple && b instanceof StarTuple) return compareSequences(a.items, b.items, op, depth)
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1
  throw runtimeError(`unsupported comparison: ${typeName(a)} ${op} ${typeName(b)}`)
}
