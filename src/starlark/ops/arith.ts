// Arithmetic, bitwise and unary operators with Starlark semantics: exact ints that move
// from number to bigint on overflow, Python-style floored division and modulo, int/float
// mixing, and string/list/tuple concatenation and repetition with size limits.

import { ITEM_WORK, limitError, runtimeError, type Thread } from '../base/index.js'
import {
  Float,
  isInt,
  normalizeInt,
  StarDict,
  StarList,
  StarTuple,
  toFloat,
  typeName,
  type Value,
} from '../values/index.js'
import { formatPercent } from './format.js'

function unsupported(op: string, a: Value, b: Value): never {
  throw runtimeError(`unsupported binary operation: ${typeName(a)} ${op} ${typeName(b)}`)
}

/** Approximate bit length of an int (exact enough for limit checks). */
export function bitLength(value: number | bigint): number {
  if (typeof value === 'number') return value === 0 ? 0 : Math.floor(Math.log2(Math.abs(value))) + 1
  return (value < 0n ? -value : value).toString(16).length * 4
}

function checkBits(bits: number, thread: Thread): void {
  if (bits > thread.limits.maxIntBits) {
    throw limitError(`integer too large: about ${bits} bits (limit maxIntBits = ${thread.limits.maxIntBits})`)
  }
}

function big(value: number | bigint): bigint {
  return typeof value === 'bigint' ? value : BigInt(value)
}

function isNumeric(value: Value): value is number | bigint | Float {
  return typeof value === 'number' || typeof value === 'bigint' || value instanceof Float
}

/** `a + b`. */
export function add(a: Value, b: Value, thread: Thread): Value {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b
    return Number.isSafeInteger(r) ? r : normalizeInt(BigInt(a) + BigInt(b))
  }
  if (typeof a === 'string' && typeof b === 'string') {
    thread.checkString(a.length + b.length)
    thread.charge(a.length + b.length)
    return a + b
  }
  if (isInt(a) && isInt(b)) {
    const r = big(a) + big(b)
    checkBits(bitLength(r), thread)
    return normalizeInt(r)
  }
  if (isNumeric(a) && isNumeric(b)) return new Float(toFloat(a) + toFloat(b))
  if (a instanceof StarList && b instanceof StarList) {
    thread.checkCollection(a.items.length + b.items.length)
    thread.charge((a.items.length + b.items.length) * ITEM_WORK)
    return new StarList(a.items.concat(b.items))
  }
  if (a instanceof StarTuple && b instanceof StarTuple) {
    thread.checkCollection(a.items.length + b.items.length)
    thread.charge((a.items.length + b.items.length) * ITEM_WORK)
    return new StarTuple(a.items.concat(b.items))
  }
  return unsupported('+', a, b)
}

/** `a - b`. */
export function sub(a: Value, b: Value, thread: Thread): Value {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b
    return Number.isSafeInteger(r) ? r : normalizeInt(BigInt(a) - BigInt(b))
  }
  if (isInt(a) && isInt(b)) {
    const r = big(a) - big(b)
    checkBits(bitLength(r), thread)
    return normalizeInt(r)
  }
  if (isNumeric(a) && isNumeric(b)) return new Float(toFloat(a) - toFloat(b))
  return unsupported('-', a, b)
}

function repeatCount(n: number | bigint): number {
  if (typeof n === 'bigint') return n < 0n ? 0 : Number.MAX_SAFE_INTEGER
  return n < 0 ? 0 : n
}

function repeat(seq: Value, n: number | bigint, thread: Thread): Value {
  const count = repeatCount(n)
  if (typeof seq === 'string') {
    if (count === 0 || seq.length === 0) return ''
    thread.checkString(seq.length * count)
    thread.charge(seq.length * count)
    return seq.repeat(count)
  }
  const items = (seq as StarList | StarTuple).items
  const out: Value[] = []
  if (count > 0 && items.length > 0) {
    thread.checkCollection(items.length * count)
    thread.charge(items.length * count * ITEM_WORK)
    for (let i = 0; i < count; i++) for (const item of items) out.push(item)
  }
  return seq instanceof StarList ? new StarList(out) : new StarTuple(out)
}

function isRepeatable(value: Value): boolean {
  return typeof value === 'string' || value instanceof StarList || value instanceof StarTuple
}

/** `a * b`. */
export function mul(a: Value, b: Value, thread: Thread): Value {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b
    return Number.isSafeInteger(r) ? r + 0 : normalizeInt(BigInt(a) * BigInt(b))
  }
  if (isInt(a) && isInt(b)) {
    checkBits(bitLength(a) + bitLength(b), thread)
    return normalizeInt(big(a) * big(b))
  }
  if (isNumeric(a) && isNumeric(b)) return new Float(toFloat(a) * toFloat(b))
  if (isInt(b) && isRepeatable(a)) return repeat(a, b, thread)
  if (isInt(a) && isRepeatable(b)) return repeat(b, a, thread)
  return unsupported('*', a, b)
}

/** `a / b` (always a float). */
export function div(a: Value, b: Value): Value {
  if (!isNumeric(a) || !isNumeric(b)) return unsupported('/', a, b)
  const y = toFloat(b)
  if (y === 0) throw runtimeError('floating-point division by zero')
  return new Float(toFloat(a) / y)
}

function floorDivBig(a: bigint, b: bigint): bigint {
  const q = a / b
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q
}

/** `a // b`. */
export function floorDiv(a: Value, b: Value): Value {
  if (typeof a === 'number' && typeof b === 'number') {
    if (b === 0) throw runtimeError('floored division by zero')
    if (Math.abs(a) < 2 ** 31 && Math.abs(b) < 2 ** 31) return Math.floor(a / b) + 0
    return normalizeInt(floorDivBig(BigInt(a), BigInt(b)))
  }
  if (isInt(a) && isInt(b)) {
    if (b === 0) throw runtimeError('floored division by zero')
    return normalizeInt(floorDivBig(big(a), big(b)))
  }
  if (isNumeric(a) && isNumeric(b)) {
    const y = toFloat(b)
    if (y === 0) throw runtimeError('floored division by zero')
    return new Float(Math.floor(toFloat(a) / y))
  }
  return unsupported('//', a, b)
}

/** `a % b`: modulo with the sign of the divisor, or string formatting. */
export function mod(a: Value, b: Value, thread: Thread): Value {
  if (typeof a === 'number' && typeof b === 'number') {
    if (b === 0) throw runtimeError('integer modulo by zero')
    const r = a % b
    return (r !== 0 && r < 0 !== b < 0 ? r + b : r) + 0
  }
  if (typeof a === 'string') return formatPercent(a, b, thread)
  if (isInt(a) && isInt(b)) {
    if (b === 0) throw runtimeError('integer modulo by zero')
    const x = big(a)
    const y = big(b)
    const r = x % y
    return normalizeInt(r !== 0n && r < 0n !== y < 0n ? r + y : r)
  }
  if (isNumeric(a) && isNumeric(b)) {
    const y = toFloat(b)
    if (y === 0) throw runtimeError('floating-point modulo by zero')
    const r = toFloat(a) % y
    return new Float(r !== 0 && r < 0 !== y < 0 ? r + y : r)
  }
  return unsupported('%', a, b)
}

function isInt32(value: Value): value is number {
  return typeof value === 'number' && (value | 0) === value
}

/** `a & b`, `a | b`, `a ^ b` on ints (and `|` union of dicts). */
export function bitwise(op: '&' | '|' | '^', a: Value, b: Value, thread: Thread): Value {
  if (isInt32(a) && isInt32(b)) return op === '&' ? a & b : op === '|' ? a | b : a ^ b
  if (isInt(a) && isInt(b)) {
    const x = big(a)
    const y = big(b)
    return normalizeInt(op === '&' ? x & y : op === '|' ? x | y : x ^ y)
  }
  if (op === '|' && a instanceof StarDict && b instanceof StarDict) {
    const out = new StarDict()
    for (const [k, v] of a.entries()) out.store(k, v)
    for (const [k, v] of b.entries()) out.set(k, v, thread)
    return out
  }
  return unsupported(op, a, b)
}

/** `a << b` and `a >> b`. */
export function shift(op: '<<' | '>>', a: Value, b: Value, thread: Thread): Value {
  if (!isInt(a) || !isInt(b)) return unsupported(op, a, b)
  if (b < 0) throw runtimeError(`negative shift count: ${b}`)
  if (op === '<<') {
    if (a === 0) return 0
    const count = typeof b === 'bigint' ? Number.POSITIVE_INFINITY : b
    checkBits(bitLength(a) + count, thread)
    if (typeof a === 'number' && count < 31) {
      const r = a * 2 ** count
      if (Number.isSafeInteger(r)) return r
    }
    return normalizeInt(big(a) << BigInt(count))
  }
  if (typeof b === 'bigint' || b > 100_000_000) return a < 0 ? -1 : 0
  if (typeof a === 'number') return b >= 53 ? (a < 0 ? -1 : 0) : Math.floor(a / 2 ** b) + 0
  return normalizeInt(a >> BigInt(b))
}

/** Unary `-`, `+`, `~`. */
export function unary(op: '-' | '+' | '~', a: Value): Value {
  if (typeof a === 'number') {
    if (op === '-') return a === 0 ? 0 : -a
    if (op === '+') return a
    const r = -a - 1
    return Number.isSafeInteger(r) ? r : normalizeInt(~BigInt(a))
  }
  if (typeof a === 'bigint') return normalizeInt(op === '-' ? -a : op === '+' ? a : ~a)
  if (a instanceof Float && op !== '~') return op === '-' ? new Float(-a.value) : a
  throw runtimeError(`unsupported unary operation: ${op}${typeName(a)}`)
}
