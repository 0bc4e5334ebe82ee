// The methods of Starlark strings (s.split(), s.format(), ...), with Python semantics and
// the string-length limit checked before any result that can grow is built.

import { runtimeError, type Thread } from '../base/index.js'
import { formatBraces, iterate } from '../ops/index.js'
import { type Kwargs, StarList, StarTuple, typeName, type Value } from '../values/index.js'
import { asString, bindArgs, checkArgs, optionalInt } from './args.js'

/** A method implementation: receiver, positional args, keyword args, thread. */
export type StringMethod = (s: string, args: Value[], kwargs: Kwargs | null, thread: Thread) => Value

function clampIndex(i: number, length: number): number {
  if (i < 0) return Math.max(0, i + length)
  return Math.min(i, length)
}

/** Resolves optional start/end arguments the way Python slices do. */
function span(s: string, start: Value | undefined, end: Value | undefined, fname: string): [number, number] {
  const lo = clampIndex(optionalInt(start, `${fname}: start`, 0), s.length)
  const hi = clampIndex(optionalInt(end, `${fname}: end`, s.length), s.length)
  return [lo, hi]
}

function find(s: string, args: Value[], kwargs: Kwargs | null, fname: string, last: boolean): number {
  const [sub, start, end] = bindArgs(fname, args, kwargs, ['sub', 'start', 'end'], 1)
  const needle = asString(sub, `${fname}: sub`)
  const [lo, hi] = span(s, start, end, fname)
  if (hi - lo < needle.length) return -1
  const region = s.slice(lo, hi)
  const at = last ? region.lastIndexOf(needle) : region.indexOf(needle)
  return at < 0 ? -1 : at + lo
}

function affixes(value: Value | undefined, fname: string): string[] {
  if (value instanceof StarTuple) return value.items.map((item) => asString(item, fname))
  return [asString(value, fname)]
}

function isCased(c: string): boolean {
  return c.toLowerCase() !== c.toUpperCase()
}

function stripChars(s: string, chars: Value | undefined, left: boolean, right: boolean): string {
  if (chars === undefined || chars === null) {
    if (left && right) return s.trim()
    return left ? s.trimStart() : s.trimEnd()
  }
  const set = asString(chars, 'strip: chars')
  let lo = 0
  let hi = s.length
  if (left) while (lo < hi && set.includes(s[lo]!)) lo++
  if (right) while (hi > lo && set.includes(s[hi - 1]!)) hi--
  return s.slice(lo, hi)
}

// The characters JavaScript's \s matches (the whitespace split() without a separator uses).
const SPACES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
])

function isSpace(code: number): boolean {
  return code === 0x20 || SPACES.has(code)
}

// One linear scan from the chosen end; the unsplit remainder keeps its far-side spaces.
function splitWhitespace(s: string, maxsplit: number, fromRight: boolean, thread: Thread): string[] {
  const out: string[] = []
  const most = maxsplit < 0 ? Number.POSITIVE_INFINITY : maxsplit
  if (!fromRight) {
    let i = 0
    for (;;) {
      while (i < s.length && isSpace(s.charCodeAt(i))) i++
      if (i >= s.length) break
      if (out.length === most) {
        out.push(s.slice(i))
        break
      }
      let j = i
      while (j < s.length && !isSpace(s.charCodeAt(j))) j++
      out.push(s.slice(i, j))
      thread.checkCollection(out.length)
      i = j
    }
    return out
  }
  let j = s.length
  for (;;) {
    while (j > 0 && isSpace(s.charCodeAt(j - 1))) j--
    if (j <= 0) break
    if (out.length === most) {
      out.push(s.slice(0, j))
      break
    }
    let i = j
    while (i > 0 && !isSpace(s.charCodeAt(i - 1))) i--
    out.push(s.slice(i, j))
    thread.checkCollection(out.length)
    j = i
  }
  return out.reverse()
}

// Counts the pieces a split by `sep` yields, stopping once past the collection limit.
function checkPieces(s: string, sep: string, maxsplit: number, thread: Thread): void {
  const limit = thread.limits.maxCollectionLength
  if (maxsplit >= 0 && maxsplit < limit) return
  let pieces = 1
  for (let at = s.indexOf(sep); at >= 0 && pieces <= limit; at = s.indexOf(sep, at + sep.length)) pieces++
  thread.checkCollection(pieces)
}

function split(s: string, args: Value[], kwargs: Kwargs | null, fromRight: boolean, thread: Thread): Value {
  const fname = fromRight ? 'rsplit' : 'split'
  const [sepArg, maxArg] = bindArgs(fname, args, kwargs, ['sep', 'maxsplit'], 0)
  const maxsplit = optionalInt(maxArg, `${fname}: maxsplit`, -1)
  if (sepArg === undefined || sepArg === null)
    return new StarList(splitWhitespace(s, maxsplit, fromRight, thread))
  const sep = asString(sepArg, `${fname}: sep`)
  if (sep === '') throw runtimeError(`${fname}: empty separator`)
  checkPieces(s, sep, maxsplit, thread)
  const parts = s.split(sep)
  if (maxsplit < 0 || parts.length <= maxsplit + 1) return new StarList(parts)
  if (fromRight) {
    const keep = parts.length - maxsplit
    return new StarList([parts.slice(0, keep).join(sep), ...parts.slice(keep)])
  }
  return new StarList([...parts.slice(0, maxsplit), parts.slice(maxsplit).join(sep)])
}

function partition(s: string, args: Value[], kwargs: Kwargs | null, fromRight: boolean): Value {
  checkArgs(fromRight ? 'rpartition' : 'partition', args, kwargs, 1, 1)
  const sep = asString(args[0], 'partition: sep')
  if (sep === '') throw runtimeError('partition: empty separator')
  const at = fromRight ? s.lastIndexOf(sep) : s.indexOf(sep)
  if (at < 0) return new StarTuple(fromRight ? ['', '', s] : [s, '', ''])
  return new StarTuple([s.slice(0, at), sep, s.slice(at + sep.length)])
}

function predicate(name: string, test: (s: string) => boolean): StringMethod {
  return (s, args, kwargs) => {
    checkArgs(name, args, kwargs, 0, 0)
    return test(s)
  }
}

function caseCheck(s: string, upper: boolean): boolean {
  let cased = false
  for (const c of s) {
    if (!isCased(c)) continue
    cased = true
    if (upper ? c !== c.toUpperCase() : c !== c.toLowerCase()) return false
  }
  return cased
}

function isTitle(s: string): boolean {
  let cased = false
  let previousCased = false
  for (const c of s) {
    if (isCased(c)) {
      const upper = c === c.toUpperCase()
      if (upper === previousCased) return false
      previousCased = true
      cased = true
    } else {
      previousCased = false
    }
  }
  return cased
}

function title(s: string): string {
  // ASCII text: the cased characters are exactly the letters.
  if (/^[\x00-\x7f]*$/.test(s))
    return s.replace(/[A-Za-z]+/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase())
  let out = ''
  let previousCased = false
  for (const c of s) {
    out += previousCased ? c.toLowerCase() : c.toUpperCase()
    previousCased = isCased(c)
  }
  return out
}

function replace(s: string, args: Value[], kwargs: Kwargs | null, thread: Thread): Value {
  const [oldArg, newArg, countArg] = bindArgs('replace', args, kwargs, ['old', 'new', 'count'], 2)
  const from = asString(oldArg, 'replace: old')
  const to = asString(newArg, 'replace: new')
  let count = optionalInt(countArg, 'replace: count', -1)
  const parts = from === '' ? ['', ...Array.from(s), ''] : s.split(from)
  const occurrences = from === '' ? s.length + 1 : parts.length - 1
  if (count < 0 || count > occurrences) count = occurrences
  if (count === 0) return s
  thread.checkString(s.length + count * (to.length - from.length))
  if (from === '') {
    const chars = Array.from(s)
    let out = ''
    for (let i = 0; i < chars.length; i++) out += (i < count ? to : '') + chars[i]
    return count > chars.length ? out + to : out
  }
  if (count === occurrences) return parts.join(to)
  return parts.slice(0, count + 1).join(to) + from + parts.slice(count + 1).join(from)
}

function join(s: string, args: Value[], kwargs: Kwargs | null, thread: Thread): Value {
  checkArgs('join', args, kwargs, 1, 1)
  const items = iterate(args[0]!, thread)
  let size = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (typeof item !== 'string') {
      throw runtimeError(`join: in list, want string, got ${typeName(item ?? null)}`)
    }
    size += item.length + (i > 0 ? s.length : 0)
  }
  thread.checkString(size)
  return (items as string[]).join(s)
}

function splitlines(s: string, args: Value[], kwargs: Kwargs | null, thread: Thread): Value {
  const [keepArg] = bindArgs('splitlines', args, kwargs, ['keepends'], 0)
  const keep = keepArg === true
  const out: string[] = []
  const re = /\r\n|\r|\n/g
  let last = 0
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    out.push(s.slice(last, keep ? m.index + m[0].length : m.index))
    thread.checkCollection(out.length + 1)
    last = m.index + m[0].length
  }
  if (last < s.length) out.push(s.slice(last))
  return new StarList(out)
}

function capitalize(s: string): string {
  const first = s.codePointAt(0)
  if (first === undefined) return s
  const head = String.fromCodePoint(first)
  return head.toUpperCase() + s.slice(head.length).toLowerCase()
}

/** The string method table. */
export const STRING_METHODS: ReadonlyMap<string, StringMethod> = new Map<string, StringMethod>([
  ['capitalize', predicateFree('capitalize', capitalize)],
  [
    'count',
    (s, args, kwargs) => {
      const [sub, start, end] = bindArgs('count', args, kwargs, ['sub', 'start', 'end'], 1)
      const needle = asString(sub, 'count: sub')
      const [lo, hi] = span(s, start, end, 'count')
      const region = s.slice(lo, hi)
      if (needle === '') return region.length + 1
      return region.split(needle).length - 1
    },
  ],
  [
    'endswith',
    (s, args, kwargs) => {
      const [suffix, start, end] = bindArgs('endswith', args, kwargs, ['suffix', 'start', 'end'], 1)
      const [lo, hi] = span(s, start, end, 'endswith')
      const region = s.slice(lo, hi)
      return affixes(suffix, 'endswith: suffix').some((x) => region.endsWith(x))
    },
  ],
  [
    'startswith',
    (s, args, kwargs) => {
      const [prefix, start, end] = bindArgs('startswith', args, kwargs, ['prefix', 'start', 'end'], 1)
      const [lo, hi] = span(s, start, end, 'startswith')
      const region = s.slice(lo, hi)
      return affixes(prefix, 'startswith: prefix').some((x) => region.startsWith(x))
    },
  ],
  ['find', (s, args, kwargs) => find(s, args, kwargs, 'find', false)],
  ['rfind', (s, args, kwargs) => find(s, args, kwargs, 'rfind', true)],
  [
    'index',
    (s, args, kwargs) => {
      const at = find(s, args, kwargs, 'index', false)
      if (at < 0) throw runtimeError('index: substring not found')
      return at
    },
  ],
  [
    'rindex',
    (s, args, kwargs) => {
      const at = find(s, args, kwargs, 'rindex', true)
      if (at < 0) throw runtimeError('rindex: substring not found')
      return at
    },
  ],
  ['format', (s, args, kwargs, thread) => formatBraces(s, args, kwargs, thread)],
  ['isalnum', predicate('isalnum', (s) => /^[\p{L}\p{N}]+$/u.test(s))],
  ['isalpha', predicate('isalpha', (s) => /^\p{L}+$/u.test(s))],
  ['isdigit', predicate('isdigit', (s) => /^\p{Nd}+$/u.test(s))],
  ['isspace', predicate('isspace', (s) => /^\s+$/.test(s))],
  ['islower', predicate('islower', (s) => caseCheck(s, false))],
  ['isupper', predicate('isupper', (s) => caseCheck(s, true))],
  ['istitle', predicate('istitle', isTitle)],
  ['join', join],
  ['lower', predicateFree('lower', (s) => s.toLowerCase())],
  ['upper', predicateFree('upper', (s) => s.toUpperCase())],
  ['title', predicateFree('title', title)],
  [
    'lstrip',
    (s, args, kwargs) => stripChars(s, bindArgs('lstrip', args, kwargs, ['chars'], 0)[0], true, false),
  ],
  [
    'rstrip',
    (s, args, kwargs) => stripChars(s, bindArgs('rstrip', args, kwargs, ['chars'], 0)[0], false, true),
  ],
  ['strip', (s, args, kwargs) => stripChars(s, bindArgs('strip', args, kwargs, ['chars'], 0)[0], true, true)],
  ['partition', (s, args, kwargs) => partition(s, args, kwargs, false)],
  ['rpartition', (s, args, kwargs) => partition(s, args, kwargs, true)],
  [
    'removeprefix',
    (s, args, kwargs) => {
      checkArgs('removeprefix', args, kwargs, 1, 1)
      const prefix = asString(args[0], 'removeprefix: prefix')
      return s.startsWith(prefix) ? s.slice(prefix.length) : s
    },
  ],
  [
    'removesuffix',
    (s, args, kwargs) => {
      checkArgs('removesuffix', args, kwargs, 1, 1)
      const suffix = asString(args[0], 'removesuffix: suffix')
      return suffix.length > 0 && s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s
    },
  ],
  ['replace', replace],
  ['split', (s, args, kwargs, thread) => split(s, args, kwargs, false, thread)],
  ['rsplit', (s, args, kwargs, thread) => split(s, args, kwargs, true, thread)],
  ['splitlines', splitlines],
  [
    'elems',
    (s, args, kwargs, thread) => {
      checkArgs('elems', args, kwargs, 0, 0)
      thread.checkCollection(s.length)
      return new StarList(Array.from(s))
    },
  ],
])

function predicateFree(name: string, transform: (s: string) => string): StringMethod {
  return (s, args, kwargs) => {
    checkArgs(name, args, kwargs, 0, 0)
    return transform(s)
  }
}
