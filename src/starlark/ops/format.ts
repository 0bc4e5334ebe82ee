// String formatting: the `%` operator ("%s %d %r ..." % args) and str.format ("{} {0} {name}").
// Output length is checked against the string limit as it grows, so blow-ups stop early.

import { runtimeError, type Thread } from '../base/index.js'
import {
  Float,
  isInt,
  type Kwargs,
  StarDict,
  StarTuple,
  toFloat,
  typeName,
  type Value,
} from '../values/index.js'
import { formatFloatConversion, repr, reprForMessage, str } from './repr.js'

class Output {
  private parts: string[] = []
  private size = 0
  constructor(private readonly thread: Thread) {}

  push(text: string): void {
    this.size += text.length
    this.thread.checkString(this.size)
    this.thread.charge(text.length)
    this.parts.push(text)
  }

  toString(): string {
    return this.parts.join('')
  }
}

function intText(value: Value, conversion: string): string {
  let n: number | bigint
  if (isInt(value)) n = value
  else if (value instanceof Float) {
    const f = value.value
    if (Number.isNaN(f)) throw runtimeError('cannot convert float NaN to integer')
    if (!Number.isFinite(f)) throw runtimeError('cannot convert float infinity to integer')
    n = Number.isSafeInteger(Math.trunc(f)) ? Math.trunc(f) + 0 : BigInt(Math.trunc(f))
  } else {
    throw runtimeError(`%${conversion} format requires integer: ${typeName(value)}`)
  }
  if (conversion === 'o') return n.toString(8)
  if (conversion === 'x') return n.toString(16)
  if (conversion === 'X') return n.toString(16).toUpperCase()
  return n.toString()
}

function convertOne(conversion: string, value: Value, maxLength: number): string {
  switch (conversion) {
    case 's':
      return str(value, maxLength)
    case 'r':
      return repr(value, maxLength)
    case 'd':
    case 'i':
    case 'o':
    case 'x':
    case 'X':
      return intText(value, conversion)
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      if (!isInt(value) && !(value instanceof Float)) {
        throw runtimeError(`%${conversion} format requires float, not ${typeName(value)}`)
      }
      return formatFloatConversion(toFloat(value), conversion)
    case 'c':
      if (typeof value === 'string') {
        if ([...value].length !== 1) throw runtimeError('%c format requires a single-character string')
        return value
      }
      if (typeof value === 'number' && value >= 0 && value <= 0x10ffff) return String.fromCodePoint(value)
      throw runtimeError(`%c format requires int or single-character string, not ${typeName(value)}`)
    default:
      throw runtimeError(`unsupported format character '${conversion}'`)
  }
}

/** `format % args`. */
export function formatPercent(format: string, args: Value, thread: Thread): string {
  const out = new Output(thread)
  const list = args instanceof StarTuple ? args.items : [args]
  let next = 0
  let usedMapping = false
  let i = 0
  while (i < format.length) {
    const percent = format.indexOf('%', i)
    if (percent < 0) {
      out.push(format.slice(i))
      break
    }
    if (percent > i) out.push(format.slice(i, percent))
    i = percent + 1
    if (i >= format.length) throw runtimeError('incomplete format')
    let value: Value | undefined
    if (format[i] === '(') {
      const close = format.indexOf(')', i)
      if (close < 0) throw runtimeError('incomplete format key')
      if (!(args instanceof StarDict)) throw runtimeError('format requires a mapping')
      const key = format.slice(i + 1, close)
      value = args.get(key)
      if (value === undefined) throw runtimeError(`key ${reprForMessage(key)} not in dict`)
      usedMapping = true
      i = close + 1
      if (i >= format.length) throw runtimeError('incomplete format')
    }
    const conversion = format[i]!
    i++
    if (conversion === '%') {
      out.push('%')
      continue
    }
    if (value === undefined) {
      if (args instanceof StarDict && list.length === 1 && conversion !== 's' && conversion !== 'r') {
        throw runtimeError('format requires a mapping key, e.g. %(name)s')
      }
      if (next >= list.length) throw runtimeError('not enough arguments for format string')
      value = list[next++]!
    }
    out.push(convertOne(conversion, value, thread.limits.maxStringLength))
  }
  if (!usedMapping && next < list.length && !(args instanceof StarDict)) {
    throw runtimeError('too many arguments for format string')
  }
  return out.toString()
}

/** `format.format(*args, **kwargs)`. */
export function formatBraces(format: string, args: Value[], kwargs: Kwargs | null, thread: Thread): string {
  const out = new Output(thread)
  let auto = 0
  let mode: 'none' | 'auto' | 'manual' = 'none'
  let i = 0
  while (i < format.length) {
    const c = format[i]!
    if (c === '}') {
      if (format[i + 1] !== '}') throw runtimeError('single "}" in format string')
      out.push('}')
      i += 2
      continue
    }
    if (c !== '{') {
      let j = i
      while (j < format.length && format[j] !== '{' && format[j] !== '}') j++
      out.push(format.slice(i, j))
      i = j
      continue
    }
    if (format[i + 1] === '{') {
      out.push('{')
      i += 2
      continue
    }
    const close = format.indexOf('}', i)
    if (close < 0) throw runtimeError('unmatched "{" in format string')
    let field = format.slice(i + 1, close)
    i = close + 1
    let conversion = 's'
    const colon = field.indexOf(':')
    if (colon >= 0) {
      if (colon < field.length - 1)
        throw runtimeError('format specifications such as "{:x}" are not supported')
      field = field.slice(0, colon)
    }
    const bang = field.indexOf('!')
    if (bang >= 0) {
      conversion = field.slice(bang + 1)
      field = field.slice(0, bang)
      if (conversion !== 's' && conversion !== 'r') throw runtimeError(`unknown conversion "!${conversion}"`)
    }
    let value: Value | undefined
    if (field === '') {
      if (mode === 'manual') throw runtimeError('cannot switch from manual field numbering to automatic')
      mode = 'auto'
      if (auto >= args.length)
        throw runtimeError('tuple index out of range: not enough arguments for format string')
      value = args[auto++]
    } else if (/^\d+$/.test(field)) {
      if (mode === 'auto') throw runtimeError('cannot switch from automatic field numbering to manual')
      mode = 'manual'
      const index = Number(field)
      if (index >= args.length) throw runtimeError(`tuple index out of range: no argument ${index}`)
      value = args[index]
    } else {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) throw runtimeError(`invalid format field name "${field}"`)
      value = kwargs?.get(field)
      if (value === undefined) throw runtimeError(`keyword ${field} not found`)
    }
    out.push(
      conversion === 'r'
        ? repr(value!, thread.limits.maxStringLength)
        : str(value!, thread.limits.maxStringLength),
    )
  }
  return out.toString()
}
