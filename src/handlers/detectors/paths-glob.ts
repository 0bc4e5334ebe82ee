// Globs as sets of paths. A glob such as `~/.s*/i*` or `/e?c/sh*` is matched against a
// protected glob by asking whether the two can match one same path (a product of the two
// patterns, segment by segment), the way a shell expands it: a wildcard does not match a
// leading `.` unless told to (`dotglob`). Protected globs also compile to one expression
// for plain paths.

import type { WorkBudget } from './budget.js'

/**
 * Compiles a path glob: `/…` is anchored at the root; any other glob matches the end of a
 * path at a segment boundary (`~/.ssh/**` also matches `/home/ann/.ssh/id_rsa`); a
 * trailing `/**` matches the folder itself too. Case-insensitive (macOS, Windows).
 */
export function compilePathGlob(glob: string): RegExp {
  const absolute = glob.startsWith('/')
  let body = glob.replace(/^~\//, '').replace(/^\/+/, '')
  const subtree = body.endsWith('/**')
  if (subtree) body = body.slice(0, -3)
  let source = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string
    if (c === '*' && body[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`${absolute ? '^/' : '(?:^|/)'}${source}${subtree ? '(?:/.*)?' : ''}$`, 'i')
}

/** One character position of a segment pattern: `*`, `?`, a literal or a `[…]` class. */
interface Element {
  star?: true
  /** The character, for a literal. */
  literal?: string
  /** For a class: pairs of characters, each the low and high end of a range. */
  ranges?: string
  negate?: boolean
}

/** A segment pattern, or `**` (any number of segments). */
type Segment = Element[] | '**'

const ANY: Element = {}
const STAR: Element = { star: true }

/** Parsed segments by their text (bounded; cleared when full), so compiled forms are reused. */
const parsedSegments = new Map<string, Segment>()

function parseSegment(text: string): Segment {
  const known = parsedSegments.get(text)
  if (known) return known
  const segment = readSegment(text)
  if (parsedSegments.size >= 4096) parsedSegments.clear()
  parsedSegments.set(text, segment)
  return segment
}

function readSegment(text: string): Segment {
  if (text === '**') return '**'
  const out: Element[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (c === '*') {
      if (out.at(-1)?.star) continue
      out.push(STAR)
    } else if (c === '?') out.push(ANY)
    else if (c === '[' && text.indexOf(']', i + 2) > i) {
      const close = text.indexOf(']', i + 2)
      let body = text.slice(i + 1, close).toLowerCase()
      const negate = body[0] === '!' || body[0] === '^'
      if (negate) body = body.slice(1)
      let ranges = ''
      for (let k = 0; k < body.length; k++)
        if (body[k + 1] === '-' && k + 2 < body.length) {
          ranges += (body[k] as string) + (body[k + 2] as string)
          k += 2
        } else ranges += (body[k] as string) + (body[k] as string)
      out.push({ ranges, negate })
      i = close
    } else out.push({ literal: c.toLowerCase() })
  }
  return out
}

/** True when a non-star element matches character `ch`. */
function has(e: Element, ch: string): boolean {
  if (e.literal !== undefined) return e.literal === ch
  if (e.ranges === undefined) return true
  let inside = false
  for (let k = 0; k + 1 < e.ranges.length && !inside; k += 2)
    inside = ch >= (e.ranges[k] as string) && ch <= (e.ranges[k + 1] as string)
  return inside !== (e.negate === true)
}

const PROBE = ' !"#$%&\'()+,-.0123456789:;<=>@[]^_`abcdefghijklmnopqrstuvwxyz{|}~'

function overlap(a: Element, b: Element): boolean {
  if (a.literal !== undefined) return has(b, a.literal)
  if (b.literal !== undefined) return has(a, b.literal)
  for (const c of PROBE) if (has(a, c) && has(b, c)) return true
  return false
}

/** The text of a segment made of literals only, else undefined. */
function literalText(segment: Element[]): string | undefined {
  let out = ''
  for (const e of segment) {
    if (e.literal === undefined) return undefined
    out += e.literal
  }
  return out
}

const compiled = new WeakMap<Element[], RegExp>()
const escapeRegex = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')

/** A segment pattern as a regular expression over one name (cached per segment). */
function segmentRegex(segment: Element[]): RegExp {
  let re = compiled.get(segment)
  if (re) return re
  let source = ''
  for (const e of segment) {
    if (e.star) source += '.*'
    else if (e.literal !== undefined) source += escapeRegex(e.literal)
    else if (e.ranges === undefined) source += '.'
    else {
      let set = ''
      for (let k = 0; k + 1 < e.ranges.length; k += 2)
        set += `${escapeRegex(e.ranges[k] as string)}-${escapeRegex(e.ranges[k + 1] as string)}`
      source += `[${e.negate ? '^' : ''}${set}]`
    }
  }
  re = new RegExp(`^${source}$`, 's')
  compiled.set(segment, re)
  return re
}

/** True when a regular expression of `segment` runs in linear time on a name of `length`. */
function fewStars(segment: Element[], length: number): boolean {
  let stars = 0
  for (const e of segment) if (e.star) stars++
  return stars <= 1 || (stars === 2 && length <= 256)
}

/** False when the literal characters both patterns open or end with already differ. */
function endsAgree(a: Element[], b: Element[]): boolean {
  for (let k = 0; k < a.length && k < b.length; k++) {
    const x = a[k] as Element
    const y = b[k] as Element
    if (x.literal === undefined || y.literal === undefined) break
    if (x.literal !== y.literal) return false
  }
  for (let k = 1; k <= a.length && k <= b.length; k++) {
    const x = a[a.length - k] as Element
    const y = b[b.length - k] as Element
    if (x.literal === undefined || y.literal === undefined) break
    if (x.literal !== y.literal) return false
  }
  return true
}

/** True when segment patterns `a` and `b` can match one same name. */
function segmentsMeet(a: Element[], b: Element[], budget: WorkBudget): boolean {
  if (!endsAgree(a, b)) return false
  // A plain name on either side: match it with the other pattern (the usual case).
  const plainB = literalText(b)
  if (plainB !== undefined && fewStars(a, plainB.length)) {
    budget.charge(a.length + b.length)
    return segmentRegex(a).test(plainB)
  }
  const plainA = literalText(a)
  if (plainA !== undefined && fewStars(b, plainA.length)) {
    budget.charge(a.length + b.length)
    return segmentRegex(b).test(plainA)
  }
  budget.charge((a.length + 1) * (b.length + 1))
  const width = b.length + 1
  const seen = new Uint8Array((a.length + 1) * width)
  const stack: number[] = [0]
  seen[0] = 1
  const push = (ni: number, nj: number) => {
    const k = ni * width + nj
    if (!seen[k]) {
      seen[k] = 1
      stack.push(k)
    }
  }
  while (stack.length > 0) {
    const at = stack.pop() as number
    const i = Math.floor(at / width)
    const j = at % width
    if (i === a.length && j === b.length) return true
    const x = a[i]
    const y = b[j]
    if (x?.star) {
      push(i + 1, j)
      if (y) push(i, j + 1)
    }
    if (y?.star) {
      push(i, j + 1)
      if (x) push(i + 1, j)
    }
    if (x && y && !x.star && !y.star && overlap(x, y)) push(i + 1, j + 1)
  }
  return false
}

/** A glob split into segment patterns, and whether it is anchored at the root. */
export interface GlobPattern {
  segments: Segment[]
  /** True for a protected glob that names a file anywhere (`id_rsa*`, `*.pem`, `.env`). */
  nameOnly: boolean
}

/** Reads a protected glob the way {@link compilePathGlob} does: `/…` anchored, else any depth. */
export function protectedPattern(glob: string): GlobPattern {
  const absolute = glob.startsWith('/')
  const body = glob.replace(/^~\//, '').replace(/^\/+/, '')
  const segments: Segment[] = body.split('/').map(parseSegment)
  const nameOnly = !absolute && segments.length === 1
  return { segments: absolute ? segments : ['**', ...segments], nameOnly }
}

/** Reads a resolved path or glob (absolute, `~/…` or relative) as segment patterns. */
export function pathPattern(path: string): Segment[] {
  const parts = path.split('/').filter((p) => p !== '')
  return parts.map((p) => (p === '~' ? [{ literal: '~' }] : parseSegment(p)))
}

function startsWithWildcard(segment: Element[]): boolean {
  const first = segment[0]
  return first !== undefined && first.literal === undefined
}

/** True when user segment `u` can name what protected segment `t` names (see {@link globsMeet}). */
function segmentPair(
  u: Element[],
  t: Element[],
  lastName: boolean,
  guarded: GlobPattern,
  dotglob: boolean,
  budget: WorkBudget,
): boolean {
  if (!dotglob && startsWithWildcard(u) && t[0]?.literal === '.') return false
  // A name-anywhere rule is met only by a segment that commits to its name: the same
  // literal opening (`i*` for `id_rsa*`) or, for `*.pem`, the same kind of literal ending.
  if (guarded.nameOnly && lastName) {
    if (startsWithWildcard(t)) {
      const end = u.at(-1)
      if (end === undefined || end.literal === undefined) return false
      if (!u.some((e) => e.literal !== undefined && /[a-z0-9]/.test(e.literal))) return false
    } else if (startsWithWildcard(u)) return false
  }
  return segmentsMeet(u, t, budget)
}

/**
 * True when the user's glob (segments of a resolved path) can match a path the protected
 * pattern covers. A user segment that opens with a wildcard does not match a name opening
 * with `.` unless `dotglob` is on, and it only meets the name of a name-anywhere rule when it
 * commits to that name (`i*` for `id_rsa*`, `*.pem` for `*.pem`; not `*` or `*.js`).
 */
export function globsMeet(
  user: Segment[],
  guarded: GlobPattern,
  dotglob: boolean,
  budget: WorkBudget,
): boolean {
  const target = guarded.segments
  const last = target.length - 1
  const pairs = (u: Element[], t: Element[], j: number) =>
    segmentPair(u, t, j === last, guarded, dotglob, budget)
  // The last names must meet whatever comes before them: check that first (it mostly fails).
  const lastTarget = target[last]
  const lastUser = user[user.length - 1]
  if (lastTarget !== undefined && lastTarget !== '**' && lastUser !== undefined && lastUser !== '**')
    if (!pairs(lastUser, lastTarget, last)) return false
  const width = target.length + 1
  const seen = new Uint8Array((user.length + 1) * width)
  const stack: number[] = [0]
  seen[0] = 1
  const push = (ni: number, nj: number) => {
    const k = ni * width + nj
    if (!seen[k]) {
      seen[k] = 1
      stack.push(k)
    }
  }
  while (stack.length > 0) {
    if (budget.exhausted) return true
    const at = stack.pop() as number
    const i = Math.floor(at / width)
    const j = at % width
    if (i === user.length && j === target.length) return true
    const u = user[i]
    const t = target[j]
    if (u === '**') {
      push(i + 1, j)
      // Like `*`, a shell's `**` does not enter hidden folders unless `dotglob` is on.
      if (t !== undefined && (dotglob || t === '**' || t[0]?.literal !== '.')) push(i, j + 1)
    }
    if (t === '**') {
      push(i, j + 1)
      if (u !== undefined) push(i + 1, j)
    }
    if (u !== undefined && t !== undefined && u !== '**' && t !== '**' && pairs(u, t, j)) push(i + 1, j + 1)
  }
  return false
}
