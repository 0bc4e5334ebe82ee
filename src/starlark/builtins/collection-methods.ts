// The methods of lists (append, extend, pop, ...) and dicts (get, items, update, ...),
// enforcing frozenness, the no-mutation-during-iteration rule and the collection limit.

import { runtimeError, type Thread } from '../base/index.js'
import { equals, iterate, length, reprForMessage } from '../ops/index.js'
import { type Kwargs, StarDict, StarList, StarTuple, typeName, type Value } from '../values/index.js'
import { asInt, bindArgs, checkArgs } from './args.js'

/** A method implementation: receiver, positional args, keyword args, thread. */
export type Method<T> = (receiver: T, args: Value[], kwargs: Kwargs | null, thread: Thread) => Value

/** Appends every element of `iterable` to `list` (used by extend and `+=`). */
export function extendList(list: StarList, iterable: Value, thread: Thread): void {
  list.checkMutable('extend')
  const source = iterable === list ? list.items.slice() : iterate(iterable, thread)
  thread.checkCollection(list.items.length + source.length)
  for (let i = 0; i < source.length; i++) list.items.push(source[i]!)
}

function indexOfValue(items: Value[], x: Value, start: number, end: number): number {
  for (let i = start; i < end; i++) if (equals(items[i]!, x)) return i
  return -1
}

function clamp(i: number, n: number): number {
  return i < 0 ? Math.max(0, i + n) : Math.min(i, n)
}

/** The list method table. */
export const LIST_METHODS: ReadonlyMap<string, Method<StarList>> = new Map<string, Method<StarList>>([
  [
    'append',
    (list, args, kwargs, thread) => {
      checkArgs('append', args, kwargs, 1, 1)
      list.checkMutable('append to')
      thread.checkCollection(list.items.length + 1)
      list.items.push(args[0]!)
      return null
    },
  ],
  [
    'clear',
    (list, args, kwargs) => {
      checkArgs('clear', args, kwargs, 0, 0)
      list.checkMutable('clear')
      list.items.length = 0
      return null
    },
  ],
  [
    'extend',
    (list, args, kwargs, thread) => {
      checkArgs('extend', args, kwargs, 1, 1)
      extendList(list, args[0]!, thread)
      return null
    },
  ],
  [
    'index',
    (list, args, kwargs) => {
      const [x, start, end] = bindArgs('index', args, kwargs, ['x', 'start', 'end'], 1)
      const n = list.items.length
      const lo = start === undefined || start === null ? 0 : clamp(asInt(start, 'index: start'), n)
      const hi = end === undefined || end === null ? n : clamp(asInt(end, 'index: end'), n)
      const at = indexOfValue(list.items, x!, lo, hi)
      if (at < 0) throw runtimeError(`index: value ${reprForMessage(x!)} not in list`)
      return at
    },
  ],
  [
    'insert',
    (list, args, kwargs, thread) => {
      checkArgs('insert', args, kwargs, 2, 2)
      list.checkMutable('insert into')
      thread.checkCollection(list.items.length + 1)
      const at = clamp(asInt(args[0], 'insert: index'), list.items.length)
      list.items.splice(at, 0, args[1]!)
      return null
    },
  ],
  [
    'pop',
    (list, args, kwargs) => {
      checkArgs('pop', args, kwargs, 0, 1)
      list.checkMutable('pop from')
      const n = list.items.length
      const requested = args.length > 0 ? asInt(args[0], 'pop: index') : -1
      const at = requested < 0 ? requested + n : requested
      if (at < 0 || at >= n)
        throw runtimeError(`pop: index ${requested} out of range: list has ${n} elements`)
      return list.items.splice(at, 1)[0]!
    },
  ],
  [
    'remove',
    (list, args, kwargs) => {
      checkArgs('remove', args, kwargs, 1, 1)
      list.checkMutable('remove from')
      const at = indexOfValue(list.items, args[0]!, 0, list.items.length)
      if (at < 0) throw runtimeError(`remove: element ${reprForMessage(args[0]!)} not found`)
      list.items.splice(at, 1)
      return null
    },
  ],
])

/** Adds the entries of a dict or an iterable of pairs, then keyword arguments, to `dict`. */
export function updateDict(
  dict: StarDict,
  source: Value | undefined,
  kwargs: Kwargs | null,
  thread: Thread,
): void {
  if (source !== undefined && source !== null) {
    if (source instanceof StarDict) {
      for (const [k, v] of source.entries()) dict.set(k, v, thread)
    } else {
      const items = iterate(source, thread)
      for (let i = 0; i < items.length; i++) {
        const pair = items[i]!
        if (!(pair instanceof StarTuple || pair instanceof StarList) || length(pair) !== 2) {
          throw runtimeError(`dictionary update sequence element #${i} is not a pair (got ${typeName(pair)})`)
        }
        dict.set(pair.items[0]!, pair.items[1]!, thread)
      }
    }
  }
  if (kwargs !== null) for (const [k, v] of kwargs) dict.set(k, v, thread)
}

/** The dict method table. */
export const DICT_METHODS: ReadonlyMap<string, Method<StarDict>> = new Map<string, Method<StarDict>>([
  [
    'clear',
    (dict, args, kwargs) => {
      checkArgs('clear', args, kwargs, 0, 0)
      dict.clear()
      return null
    },
  ],
  [
    'get',
    (dict, args, kwargs) => {
      const [key, fallback] = bindArgs('get', args, kwargs, ['key', 'default'], 1)
      return dict.get(key!) ?? fallback ?? null
    },
  ],
  [
    'items',
    (dict, args, kwargs) =>
      listOf(
        args,
        kwargs,
        'items',
        dict.entries().map((e) => new StarTuple(e)),
      ),
  ],
  ['keys', (dict, args, kwargs) => listOf(args, kwargs, 'keys', dict.keys())],
  ['values', (dict, args, kwargs) => listOf(args, kwargs, 'values', dict.values())],
  [
    'pop',
    (dict, args, kwargs) => {
      const [key, fallback] = bindArgs('pop', args, kwargs, ['key', 'default'], 1)
      const value = dict.remove(key!)
      if (value !== undefined) return value
      if (fallback !== undefined) return fallback
      throw runtimeError(`pop: missing key ${reprForMessage(key!)}`)
    },
  ],
  [
    'popitem',
    (dict, args, kwargs) => {
      checkArgs('popitem', args, kwargs, 0, 0)
      dict.checkMutable('pop from')
      const first = dict.entries()[0]
      if (first === undefined) throw runtimeError('popitem: empty dict')
      dict.remove(first[0])
      return new StarTuple(first)
    },
  ],
  [
    'setdefault',
    (dict, args, kwargs, thread) => {
      const [key, fallback] = bindArgs('setdefault', args, kwargs, ['key', 'default'], 1)
      const existing = dict.get(key!)
      if (existing !== undefined) return existing
      const value = fallback ?? null
      dict.set(key!, value, thread)
      return value
    },
  ],
  [
    'update',
    (dict, args, kwargs, thread) => {
      if (args.length > 1) throw runtimeError(`update: got ${args.length} arguments, want at most 1`)
      dict.checkMutable('update')
      updateDict(dict, args[0], kwargs, thread)
      return null
    },
  ],
])

function listOf(args: Value[], kwargs: Kwargs | null, fname: string, items: Value[]): Value {
  checkArgs(fname, args, kwargs, 0, 0)
  return new StarList(items)
}
