// String conversion of values: str() and repr(), including Starlark's float formatting
// and string quoting. Cyclic and very deep structures are cut off rather than recursed.

import { DEFAULT_LIMITS, limitError } from '../base/index.js'
import {
  Builtin,
  Float,
  HostModule,
  StarDict,
  StarFunction,
  StarList,
  StarRange,
  StarTuple,
  typeName,
  type Value,
} from '../values/index.js'

const MAX_REPR_DEPTH = 200

/** Quotes a string the way Starlark's repr does: double quotes and escapes. */
export function quoteString(s: string): string {
  return `"${s.replace(NEEDS_ESCAPE, escapeChar)}"`
}

// Characters repr escapes: the quote, the backslash and control characters.
const NEEDS_ESCAPE = /["\\\x00-\x1f\x7f]/g

function escapeChar(c: string): string {
  switch (c) {
    case '"':
      return '\\"'
    case '\\':
      return '\\\\'
    case '\n':
      return '\\n'
    case '\t':
      return '\\t'
    case '\r':
      return '\\r'
    default:
      return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`
  }
}

/** Formats a float the way Starlark's str does (shortest, %g style, always with "." or "e"). */
export function formatFloat(f: number): string {
  if (Number.isNaN(f)) return 'nan'
  if (f === Number.POSITIVE_INFINITY) return '+inf'
  if (f === Number.NEGATIVE_INFINITY) return '-inf'
  if (f === 0) return Object.is(f, -0) ? '-0.0' : '0.0'
  const [mantissa, expText] = f.toExponential().split('e') as [string, string]
  const exp = Number(expText)
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+'
    const digits = String(Math.abs(exp)).padStart(2, '0')
    return `${mantissa}e${sign}${digits}`
  }
  const text = String(f)
  return text.includes('.') ? text : `${text}.0`
}

/** Formats a float in %e / %f / %g style with a precision. */
export function formatFloatConversion(f: number, conversion: string, precision = 6): string {
  if (!Number.isFinite(f)) return formatFloat(f)
  const lower = conversion.toLowerCase()
  let out: string
  if (lower === 'f') {
    out = f.toFixed(precision)
  } else if (lower === 'e') {
    out = exponentForm(f.toExponential(precision))
  } else {
    out = formatFloat(f)
  }
  return conversion === lower ? out : out.toUpperCase()
}

function exponentForm(text: string): string {
  const [mantissa, expText] = text.split('e') as [string, string]
  const exp = Number(expText)
  return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
}

/** Longest text an error message quotes from a value before cutting it short. */
const MESSAGE_REPR_LENGTH = 256

/** Collects the parts of a repr and stops once they pass a length budget. */
class ReprWriter {
  readonly parts: string[] = []
  private left: number

  constructor(
    private readonly limit: number,
    private readonly truncate: boolean,
  ) {
    this.left = limit
  }

  /** Characters still allowed. */
  room(): number {
    return this.left
  }

  push(text: string): void {
    this.parts.push(text)
    this.left -= text.length
    if (this.left < 0) {
      if (this.truncate) throw TRUNCATED
      throw limitError(
        `string too long: over ${this.limit} characters (limit maxStringLength = ${this.limit})`,
      )
    }
  }
}

const TRUNCATED = Symbol('truncated')

/**
 * `str(x)`: strings unquoted, everything else as repr. Output longer than `maxLength`
 * (default: the default maxStringLength) is a limit error, raised before it is built.
 */
export function str(value: Value, maxLength: number = DEFAULT_LIMITS.maxStringLength): string {
  return typeof value === 'string' ? value : repr(value, maxLength)
}

/** `repr(x)`; output longer than `maxLength` is a limit error, raised before it is built. */
export function repr(value: Value, maxLength: number = DEFAULT_LIMITS.maxStringLength): string {
  const out = new ReprWriter(maxLength, false)
  writeRepr(value, out, 0, new Set())
  return out.parts.join('')
}

/** repr(x) for a message: cut short with "..." after `maxLength` (default 256) characters. */
export function reprForMessage(value: Value, maxLength: number = MESSAGE_REPR_LENGTH): string {
  const out = new ReprWriter(maxLength, true)
  try {
    writeRepr(value, out, 0, new Set())
  } catch (error) {
    if (error !== TRUNCATED) throw error
    return `${out.parts.join('').slice(0, maxLength)}...`
  }
  return out.parts.join('')
}

function writeSequence(
  items: Value[],
  open: string,
  close: string,
  out: ReprWriter,
  depth: number,
  seen: Set<object>,
) {
  out.push(open)
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out.push(', ')
    writeRepr(items[i]!, out, depth + 1, seen)
  }
  out.push(close)
}

function writeRepr(value: Value, out: ReprWriter, depth: number, seen: Set<object>): void {
  switch (typeof value) {
    case 'string': {
      const room = out.room()
      out.push(quoteString(value.length + 2 > room ? value.slice(0, Math.max(room, 0)) : value))
      return
    }
    case 'number':
    case 'bigint':
      out.push(String(value))
      return
    case 'boolean':
      out.push(value ? 'True' : 'False')
      return
  }
  if (value === null) {
    out.push('None')
    return
  }
  if (depth > MAX_REPR_DEPTH)
    throw limitError(`value nested too deeply to convert to string (limit ${MAX_REPR_DEPTH})`)
  if (value instanceof Float) {
    out.push(formatFloat(value.value))
    return
  }
  if (value instanceof StarList) {
    if (seen.has(value)) {
      out.push('[...]')
      return
    }
    seen.add(value)
    writeSequence(value.items, '[', ']', out, depth, seen)
    seen.delete(value)
    return
  }
  if (value instanceof StarTuple) {
    writeSequence(value.items, '(', value.items.length === 1 ? ',)' : ')', out, depth, seen)
    return
  }
  if (value instanceof StarDict) {
    if (seen.has(value)) {
      out.push('{...}')
      return
    }
    seen.add(value)
    out.push('{')
    let first = true
    for (const [k, v] of value.entries()) {
      if (!first) out.push(', ')
      first = false
      writeRepr(k, out, depth + 1, seen)
      out.push(': ')
      writeRepr(v, out, depth + 1, seen)
    }
    out.push('}')
    seen.delete(value)
    return
  }
  if (value instanceof StarRange) {
    const { start, stop, step } = value
    out.push(
      step === 1
        ? start === 0
          ? `range(${stop})`
          : `range(${start}, ${stop})`
        : `range(${start}, ${stop}, ${step})`,
    )
    return
  }
  if (value instanceof StarFunction) {
    out.push(`<function ${value.name}>`)
    return
  }
  if (value instanceof Builtin) {
    out.push(`<built-in function ${value.name}>`)
    return
  }
  if (value instanceof HostModule) {
    out.push(`<module ${value.name}>`)
    return
  }
  out.push(`<${typeName(value)}>`)
}
