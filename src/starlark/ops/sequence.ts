// Operations on containers: indexing, slicing, membership (`in`), length and iteration,
// for strings, lists, tuples, dicts and ranges.

import { ITEM_WORK, runtimeError, type Thread } from '../base/index.js'
import {
  HostModule,
  isInt,
  StarDict,
  StarList,
  StarRange,
  StarTuple,
  typeName,
  type Value,
} from '../values/index.js'
import { equals } from './compare.js'
import { reprForMessage } from './repr.js'

/** Resolves a possibly negative index against a length; throws when out of range. */
export function resolveIndex(index: Value, length: number, what: string): number {
  if (typeof index !== 'number') {
    if (typeof index === 'bigint')
      throw runtimeError(`${what} index ${index} out of range: length is ${length}`)
    throw runtimeError(`${what} index: got ${typeName(index)}, want int`)
  }
  const i = index < 0 ? index + length : index
  if (i < 0 || i >= length) throw runtimeError(`${what} index ${index} out of range: length is ${length}`)
  return i
}

/** `x[i]`. */
export function getIndex(object: Value, index: Value): Value {
  if (object instanceof StarDict) {
    const value = object.get(index)
    if (value === undefined) throw runtimeError(`key ${reprForMessage(index)} not in dict`)
    return value
  }
  if (object instanceof StarList) return object.items[resolveIndex(index, object.items.length, 'list')]!
  if (typeof object === 'string') return object[resolveIndex(index, object.length, 'string')]!
  if (object instanceof StarTuple) return object.items[resolveIndex(index, object.items.length, 'tuple')]!
  if (object instanceof StarRange) return object.at(resolveIndex(index, object.length, 'range'))
  throw runtimeError(`${typeName(object)} value is not indexable`)
}

/** `x[i] = v`. */
export function setIndex(object: Value, index: Value, value: Value, thread: Thread): void {
  if (object instanceof StarDict) {
    object.set(index, value, thread)
    return
  }
  if (object instanceof StarList) {
    object.checkMutable('assign to element of')
    object.items[resolveIndex(index, object.items.length, 'list')] = value
    return
  }
  throw runtimeError(`cannot assign to element of ${typeName(object)} value`)
}

function sliceBound(value: Value, name: string): number | null {
  if (value === null) return null
  if (typeof value === 'number') return value
  if (typeof value === 'bigint') return value < 0n ? -Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER
  throw runtimeError(`slice ${name}: got ${typeName(value)}, want int or None`)
}

/** Computes Python slice indices: returns [start, count, step]. */
export function sliceIndices(
  length: number,
  start: Value,
  stop: Value,
  step: Value,
): [number, number, number] {
  const s = sliceBound(step, 'step') ?? 1
  if (s === 0) throw runtimeError('slice step cannot be zero')
  let lo = sliceBound(start, 'start')
  let hi = sliceBound(stop, 'stop')
  if (s > 0) {
    lo = lo === null ? 0 : lo < 0 ? Math.max(0, lo + length) : Math.min(lo, length)
    hi = hi === null ? length : hi < 0 ? Math.max(0, hi + length) : Math.min(hi, length)
    return [lo, hi > lo ? Math.ceil((hi - lo) / s) : 0, s]
  }
  lo = lo === null ? length - 1 : lo < 0 ? Math.max(-1, lo + length) : Math.min(lo, length - 1)
  hi = hi === null ? -1 : hi < 0 ? Math.max(-1, hi + length) : Math.min(hi, length - 1)
  return [lo, lo > hi ? Math.ceil((lo - hi) / -s) : 0, s]
}

/** `x[start:stop:step]`. */
export function getSlice(object: Value, start: Value, stop: Value, step: Value): Value {
  if (typeof object === 'string') {
    const [first, count, s] = sliceIndices(object.length, start, stop, step)
    if (s === 1) return object.slice(first, first + count)
    let out = ''
    for (let i = 0; i < count; i++) out += object[first + i * s]
    return out
  }
  if (object instanceof StarList || object instanceof StarTuple) {
    const items = object.items
    const [first, count, s] = sliceIndices(items.length, start, stop, step)
    const out = s === 1 ? items.slice(first, first + count) : []
    if (s !== 1) for (let i = 0; i < count; i++) out.push(items[first + i * s]!)
    return object instanceof StarList ? new StarList(out) : new StarTuple(out)
  }
  if (object instanceof StarRange) {
    const [first, count, s] = sliceIndices(object.length, start, stop, step)
    const begin = object.at(first)
    const newStep = object.step * s
    return new StarRange(begin, begin + count * newStep, newStep)
  }
  throw runtimeError(`${typeName(object)} value cannot be sliced`)
}

/** `x in container`. */
export function contains(container: Value, x: Value): boolean {
  if (typeof container === 'string') {
    if (typeof x !== 'string')
      throw runtimeError(`'in <string>' requires string as left operand, not ${typeName(x)}`)
    return container.includes(x)
  }
  if (container instanceof StarList || container instanceof StarTuple) {
    const items = container.items
    if (typeof x === 'string') {
      for (let i = 0; i < items.length; i++) if (items[i] === x) return true
      return false
    }
    for (let i = 0; i < items.length; i++) if (equals(items[i]!, x)) return true
    return false
  }
  if (container instanceof StarDict) return container.has(x)
  if (container instanceof StarRange) {
    if (!isInt(x) || typeof x === 'bigint') return false
    const { start, step, length } = container
    const offset = x - start
    return offset % step === 0 && offset / step >= 0 && offset / step < length
  }
  if (container instanceof HostModule) throw runtimeError('unsupported: in module')
  throw runtimeError(`unsupported binary operation: ${typeName(x)} in ${typeName(container)}`)
}

/** `len(x)`. */
export function length(value: Value): number {
  if (typeof value === 'string') return value.length
  if (value instanceof StarList || value instanceof StarTuple) return value.items.length
  if (value instanceof StarDict) return value.size
  if (value instanceof StarRange) return value.length
  throw runtimeError(`value of type ${typeName(value)} has no len`)
}

/**
 * The elements of an iterable as an array. Lists and tuples return their own storage
 * (callers must not mutate it); ranges are materialised within the collection limit.
 */
export function iterate(value: Value, thread: Thread): Value[] {
  if (value instanceof StarList || value instanceof StarTuple) return value.items
  if (value instanceof StarDict) {
    const keys = value.keys()
    thread.charge(keys.length * ITEM_WORK)
    return keys
  }
  if (value instanceof StarRange) {
    thread.checkCollection(value.length)
    thread.charge(value.length * ITEM_WORK)
    const out: Value[] = []
    for (let i = 0; i < value.length; i++) out.push(value.at(i))
    return out
  }
  if (typeof value === 'string')
    throw runtimeError('string value is not iterable; use s.elems() to iterate over characters')
  throw runtimeError(`${typeName(value)} value is not iterable`)
}
