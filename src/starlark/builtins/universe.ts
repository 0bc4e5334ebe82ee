// The universe: Starlark's predeclared names (None, True, False, len, str, sorted, ...),
// available to every program unless the host overrides them.

import { runtimeError, type Thread } from '../base/index.js'
import { parseIntDigits } from '../lexer/index.js'
import { compare, iterate, length, repr, reprForMessage, str } from '../ops/index.js'
import {
  Builtin,
  type BuiltinImpl,
  callValue,
  Float,
  isInt,
  type Kwargs,
  normalizeInt,
  StarDict,
  StarList,
  StarRange,
  StarTuple,
  toFloat,
  truth,
  typeName,
  type Value,
} from '../values/index.js'
import { asInt, asString, bindArgs, checkArgs } from './args.js'
import { attributeNames, findAttribute } from './attrs.js'
import { updateDict } from './collection-methods.js'

function parseIntString(text: string, baseArg: number): number | bigint {
  const invalid = () =>
    runtimeError(`invalid literal for int() with base ${baseArg}: ${reprForMessage(text)}`)
  let s = text
  let sign = 1
  if (s.startsWith('+') || s.startsWith('-')) {
    sign = s[0] === '-' ? -1 : 1
    s = s.slice(1)
  }
  let base = baseArg
  const prefix = s.slice(0, 2).toLowerCase()
  const prefixBase = prefix === '0x' ? 16 : prefix === '0o' ? 8 : prefix === '0b' ? 2 : 0
  if (prefixBase !== 0 && (base === 0 || base === prefixBase)) {
    base = prefixBase
    s = s.slice(2)
  } else if (base === 0) {
    if (s.length > 1 && s[0] === '0' && !/^0+$/.test(s)) throw invalid()
    base = 10
  }
  if (base < 2 || base > 36) throw runtimeError(`int: base must be 0 or between 2 and 36, got ${baseArg}`)
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base)
  if (s.length === 0) throw invalid()
  for (const ch of s.toLowerCase()) if (!digits.includes(ch)) throw invalid()
  let value: number | bigint
  if (base === 2 || base === 8 || base === 10 || base === 16) value = parseIntDigits(s, base)
  else {
    let big = 0n
    for (const ch of s.toLowerCase()) big = big * BigInt(base) + BigInt(digits.indexOf(ch))
    value = normalizeInt(big)
  }
  if (sign < 0) return typeof value === 'number' ? (value === 0 ? 0 : -value) : normalizeInt(-value)
  return value
}

function toInt(args: Value[], kwargs: Kwargs | null): Value {
  const [x, baseArg] = bindArgs('int', args, kwargs, ['x', 'base'], 0)
  if (x === undefined) return 0
  if (baseArg !== undefined) {
    if (typeof x !== 'string') throw runtimeError("int: can't convert non-string with explicit base")
    return parseIntString(x, asInt(baseArg, 'int: base'))
  }
  if (typeof x === 'string') return parseIntString(x, 10)
  if (typeof x === 'boolean') return x ? 1 : 0
  if (isInt(x)) return x
  if (x instanceof Float) {
    const f = x.value
    if (Number.isNaN(f)) throw runtimeError('int: cannot convert float NaN to integer')
    if (!Number.isFinite(f)) throw runtimeError('int: cannot convert float infinity to integer')
    const t = Math.trunc(f)
    return Number.isSafeInteger(t) ? t + 0 : normalizeInt(BigInt(t))
  }
  throw runtimeError(`int: cannot convert ${typeName(x)} to int`)
}

function toFloatValue(args: Value[], kwargs: Kwargs | null): Value {
  checkArgs('float', args, kwargs, 0, 1)
  const x = args[0]
  if (x === undefined) return new Float(0)
  if (typeof x === 'boolean') return new Float(x ? 1 : 0)
  if (isInt(x) || x instanceof Float) return x instanceof Float ? x : new Float(toFloat(x))
  if (typeof x === 'string') {
    const s = x.toLowerCase()
    const body = s.replace(/^[+-]/, '')
    const negative = s.startsWith('-')
    if (body === 'inf' || body === 'infinity') return new Float(negative ? -Infinity : Infinity)
    if (body === 'nan') return new Float(Number.NaN)
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(s)) throw runtimeError(`invalid float literal: ${x}`)
    const f = Number(s)
    if (!Number.isFinite(f)) throw runtimeError(`floating-point number too large: ${x}`)
    return new Float(f)
  }
  throw runtimeError(`float: got ${typeName(x)}, want number or string`)
}

function rangeValue(args: Value[], kwargs: Kwargs | null): Value {
  checkArgs('range', args, kwargs, 1, 3)
  const ints = args.map((a, i) => asInt(a, `range: argument ${i + 1}`))
  const [start, stop, step] = ints.length === 1 ? [0, ints[0]!, 1] : [ints[0]!, ints[1]!, ints[2] ?? 1]
  if (step === 0) throw runtimeError('range: step argument must not be zero')
  return new StarRange(start, stop, step)
}

function sortedValue(args: Value[], kwargs: Kwargs | null, thread: Thread): Value {
  const [iterable, key, reverse] = bindArgs('sorted', args, kwargs, ['iterable', 'key', 'reverse'], 1)
  const items = iterate(iterable!, thread).slice()
  const descending = reverse !== undefined && truth(reverse)
  const sign = descending ? -1 : 1
  if (key === undefined || key === null) {
    items.sort((a, b) => sign * compare(a, b))
    return new StarList(items)
  }
  const keyed = items.map((item) => ({ item, key: callValue(key, [item], null, thread) }))
  keyed.sort((a, b) => sign * compare(a.key, b.key))
  return new StarList(keyed.map((k) => k.item))
}

function extreme(fname: string, want: number): BuiltinImpl {
  return (args, kwargs, thread) => {
    let key: Value | undefined
    let defaultValue: Value | undefined
    if (kwargs !== null) {
      for (const [k, v] of kwargs) {
        if (k === 'key') key = v
        else if (k === 'default') defaultValue = v
        else throw runtimeError(`${fname}: unexpected keyword argument ${k}`)
      }
    }
    if (args.length === 0) throw runtimeError(`${fname}: got 0 arguments, want at least 1`)
    const items = args.length === 1 ? iterate(args[0]!, thread) : args
    if (items.length === 0) {
      if (defaultValue !== undefined) return defaultValue
      throw runtimeError(`${fname}: argument is an empty sequence`)
    }
    const keyOf = (v: Value) => (key === undefined || key === null ? v : callValue(key, [v], null, thread))
    let best = items[0]!
    let bestKey = keyOf(best)
    for (let i = 1; i < items.length; i++) {
      const k = keyOf(items[i]!)
      if (Math.sign(compare(k, bestKey)) === want) {
        best = items[i]!
        bestKey = k
      }
    }
    return best
  }
}

function joinArgs(fname: string, args: Value[], kwargs: Kwargs | null, thread: Thread): string {
  let sep = ' '
  if (kwargs !== null) {
    for (const [k, v] of kwargs) {
      if (k !== 'sep') throw runtimeError(`${fname}: unexpected keyword argument ${k}`)
      sep = asString(v, `${fname}: sep`)
    }
  }
  const max = thread.limits.maxStringLength
  let size = 0
  const parts = args.map((a) => {
    const text = str(a, max - size)
    size += text.length + sep.length
    return text
  })
  thread.checkString(size - sep.length)
  return parts.join(sep)
}

/** Java's String.hashCode, as the Starlark spec defines hash() for strings. */
function stringHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/** A builtin taking exactly one positional argument. */
function oneArg(fname: string, fn: (x: Value, thread: Thread) => Value): BuiltinImpl {
  return (args, kwargs, thread) => {
    checkArgs(fname, args, kwargs, 1, 1)
    return fn(args[0]!, thread)
  }
}

const definitions: [string, BuiltinImpl][] = [
  ['len', oneArg('len', length)],
  ['str', oneArg('str', (x, thread) => str(x, thread.limits.maxStringLength))],
  ['repr', oneArg('repr', (x, thread) => repr(x, thread.limits.maxStringLength))],
  [
    'bool',
    (args, kwargs) => {
      checkArgs('bool', args, kwargs, 0, 1)
      return args.length > 0 && truth(args[0]!)
    },
  ],
  ['int', toInt],
  ['float', toFloatValue],
  ['range', rangeValue],
  ['sorted', sortedValue],
  ['min', extreme('min', -1)],
  ['max', extreme('max', 1)],
  ['type', oneArg('type', typeName)],
  [
    'list',
    (args, kwargs, thread) => {
      checkArgs('list', args, kwargs, 0, 1)
      return new StarList(args.length === 0 ? [] : iterate(args[0]!, thread).slice())
    },
  ],
  [
    'tuple',
    (args, kwargs, thread) => {
      checkArgs('tuple', args, kwargs, 0, 1)
      const x = args[0]
      if (x instanceof StarTuple) return x
      return new StarTuple(x === undefined ? [] : iterate(x, thread).slice())
    },
  ],
  [
    'dict',
    (args, kwargs, thread) => {
      if (args.length > 1) throw runtimeError(`dict: got ${args.length} positional arguments, want at most 1`)
      const dict = new StarDict()
      updateDict(dict, args[0], kwargs, thread)
      return dict
    },
  ],
  [
    'reversed',
    (args, kwargs, thread) => {
      checkArgs('reversed', args, kwargs, 1, 1)
      return new StarList(iterate(args[0]!, thread).slice().reverse())
    },
  ],
  [
    'enumerate',
    (args, kwargs, thread) => {
      const [iterable, startArg] = bindArgs('enumerate', args, kwargs, ['iterable', 'start'], 1)
      const start = startArg === undefined ? 0 : asInt(startArg, 'enumerate: start')
      return new StarList(iterate(iterable!, thread).map((v, i) => new StarTuple([start + i, v])))
    },
  ],
  [
    'zip',
    (args, kwargs, thread) => {
      checkArgs('zip', args, kwargs, 0, Number.POSITIVE_INFINITY)
      const lists = args.map((a) => iterate(a, thread))
      const n = lists.length === 0 ? 0 : Math.min(...lists.map((l) => l.length))
      const out: Value[] = []
      for (let i = 0; i < n; i++) out.push(new StarTuple(lists.map((l) => l[i]!)))
      return new StarList(out)
    },
  ],
  ['any', oneArg('any', (x, thread) => iterate(x, thread).some((v) => truth(v)))],
  ['all', oneArg('all', (x, thread) => iterate(x, thread).every((v) => truth(v)))],
  [
    'abs',
    (args, kwargs) => {
      checkArgs('abs', args, kwargs, 1, 1)
      const x = args[0]!
      if (typeof x === 'number') return Math.abs(x)
      if (typeof x === 'bigint') return x < 0n ? -x : x
      if (x instanceof Float) return new Float(Math.abs(x.value))
      throw runtimeError(`abs: got ${typeName(x)}, want int or float`)
    },
  ],
  [
    'hash',
    (args, kwargs) => {
      checkArgs('hash', args, kwargs, 1, 1)
      return stringHash(asString(args[0], 'hash'))
    },
  ],
  [
    'hasattr',
    (args, kwargs) => {
      checkArgs('hasattr', args, kwargs, 2, 2)
      return findAttribute(args[0]!, asString(args[1], 'hasattr: name')) !== undefined
    },
  ],
  [
    'getattr',
    (args, kwargs) => {
      checkArgs('getattr', args, kwargs, 2, 3)
      const name = asString(args[1], 'getattr: name')
      const value = findAttribute(args[0]!, name)
      if (value !== undefined) return value
      if (args.length === 3) return args[2]!
      throw runtimeError(`getattr: ${typeName(args[0]!)} has no .${name} field or method`)
    },
  ],
  ['dir', oneArg('dir', (x) => new StarList(attributeNames(x)))],
  [
    'print',
    (args, kwargs, thread) => {
      thread.print(joinArgs('print', args, kwargs, thread))
      return null
    },
  ],
  [
    'fail',
    (args, kwargs, thread) => {
      throw runtimeError(joinArgs('fail', args, kwargs, thread))
    },
  ],
]

/** The predeclared names every program sees, by name. */
export const UNIVERSE: ReadonlyMap<string, Value> = new Map<string, Value>([
  ['None', null],
  ['True', true],
  ['False', false],
  ...definitions.map(([name, impl]): [string, Value] => [name, new Builtin(name, impl)]),
])
