// RFC 8785 (JCS) canonical JSON in one walk that appends to a string: keys sorted by UTF-16
// code units, strings and numbers as JSON.stringify writes them (which is what RFC 8785
// prescribes for both). Whatever the walk does not handle (toJSON, lone surrogates, values
// with no JSON form, cycles) goes to the `canonicalize` package, so the output and the errors
// are the package's own; the walk only skips its per-value overhead on plain JSON.

import canonicalize from 'canonicalize'

/** Deeper than this the walk gives up (a cycle, or nesting no request passes the body check with). */
const MAX_DEPTH = 256

/** Any UTF-16 surrogate: the cheap test before the exact one below. */
const SURROGATE = /[\uD800-\uDFFF]/

/** What JSON.stringify escapes in a string (quote, backslash, controls) or may (surrogates). */
const SPECIAL = /["\\\u0000-\u001F\uD800-\uDFFF]/

/** A UTF-16 surrogate without its pair, which has no canonical form. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** The walk's answer for a value it leaves to the package. */
const GIVE_UP = undefined

/** A string as JSON.stringify writes it (its canonical form), or undefined for a lone surrogate. */
export function quote(text: string): string | undefined {
  if (!SPECIAL.test(text)) return `"${text}"`
  return SURROGATE.test(text) && LONE_SURROGATE.test(text) ? GIVE_UP : JSON.stringify(text)
}

function walk(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value)
    case 'number':
      return Number.isFinite(value) ? String(value) : GIVE_UP
    case 'boolean':
      return value ? 'true' : 'false'
    case 'object':
      if (value === null) return 'null'
      if (depth >= MAX_DEPTH) return GIVE_UP
      if (Array.isArray(value)) return walkArray(value, depth + 1)
      return walkObject(value as Record<string, unknown>, depth + 1, NONE)
    default:
      return GIVE_UP
  }
}

function walkArray(array: unknown[], depth: number): string | undefined {
  let out = '['
  for (let i = 0; i < array.length; i++) {
    const item = array[i]
    const text = item === undefined || typeof item === 'symbol' ? 'null' : walk(item, depth)
    if (text === GIVE_UP) return GIVE_UP
    out += i === 0 ? text : `,${text}`
  }
  return `${out}]`
}

const NONE: readonly string[] = []

function walkObject(
  object: Record<string, unknown>,
  depth: number,
  omit: readonly string[],
): string | undefined {
  if (typeof object.toJSON === 'function') return GIVE_UP
  const keys = Object.keys(object).sort()
  let out = '{'
  let first = true
  for (const key of keys) {
    if (omit.length > 0 && omit.includes(key)) continue
    const item = object[key]
    if (item === undefined || typeof item === 'symbol') continue
    const name = quote(key)
    const text = walk(item, depth)
    if (name === GIVE_UP || text === GIVE_UP) return GIVE_UP
    out += `${first ? '' : ','}${name}:${text}`
    first = false
  }
  return `${out}}`
}

/**
 * The RFC 8785 canonical form of a JSON value; the same text as the `canonicalize` package.
 * @throws Error when the value has no canonical form (undefined, a function, NaN, a lone
 * surrogate, a cycle).
 */
export function jcs(value: unknown): string {
  const text = walk(value, 0) ?? canonicalize(value)
  if (text === undefined) throw new Error('the value has no canonical JSON form')
  return text
}

/**
 * The canonical form of an object without some of its own properties (an envelope without
 * its `signature`), with no copy of the object made.
 * @throws Error as {@link jcs} does.
 */
export function jcsWithout(object: Record<string, unknown>, ...omit: string[]): string {
  const text = walkObject(object, 1, omit)
  if (text !== GIVE_UP) return text
  const rest = { ...object }
  for (const key of omit) delete rest[key]
  return jcs(rest)
}
