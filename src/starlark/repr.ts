// String conversion of values: str() and repr(), including Starlark's float formatting
// and string quoting. Cyclic and very deep structures are cut off rather than recursed.

import { limitError } from './errors.js'
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
} from './values.js'

const MAX_REPR_DEPTH = 200

/** Quotes a string the way Starlark's repr does: double quotes and escapes. */
export function quoteString(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x22) out += '\\"'
    else if (c === 0x5c) out += '\\\\'
    else if (c === 0x0a) out += '\\n'
    else if (c === 0x09) out += '\\t'
    else if (c === 0x0d) out += '\\r'
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`
    else out += s[i]
  }
  return `${out}"`
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

/** `str(x)`: strings unquoted, everything else as repr. */
export function str(value: Value): string {
  return typeof value === 'string' ? value : repr(value)
}

/** `repr(x)`. */
export function repr(value: Value): string {
  const parts: string[] = []
  writeRepr(value, parts, 0, new Set())
  return parts.join('')
}

function writeSequence(
  items: Value[],
  open: string,
  close: string,
  out: string[],
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

function writeRepr(value: Value, out: string[], depth: number, seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
      out.push(quoteString(value))
      return
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
