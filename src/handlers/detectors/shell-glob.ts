// Shell globs (`*`, `?`, `[abc]`, `[!a-z]`) matched the way a shell would match them against
// file and program names, in time bounded by the product of the two lengths after runs of
// `*` collapse (no regular expressions, so no backtracking blow-up on hostile patterns).

type Part =
  | { kind: 'star' }
  | { kind: 'one' }
  | { kind: 'char'; char: string }
  | { kind: 'set'; negate: boolean; ranges: [string, string][] }

/** A glob read once, ready to be matched against many names. */
export interface CompiledGlob {
  parts: Part[]
  /** Characters a match needs at least (every part but `*` takes one). */
  minLength: number
}

/** True when the word has glob characters a shell would expand (`[` only with a later `]`: `[ -f x ]` is a test). */
export function hasGlob(word: string): boolean {
  if (word.includes('*') || word.includes('?')) return true
  const open = word.indexOf('[')
  return open >= 0 && word.indexOf(']', open + 2) > 0
}

function readSet(glob: string, open: number): { part: Part; end: number } | undefined {
  let i = open + 1
  let negate = false
  if (glob[i] === '!' || glob[i] === '^') {
    negate = true
    i++
  }
  const ranges: [string, string][] = []
  let first = true
  while (i < glob.length && (glob[i] !== ']' || first)) {
    const from = glob[i] as string
    if (glob[i + 1] === '-' && glob[i + 2] !== undefined && glob[i + 2] !== ']') {
      ranges.push([from, glob[i + 2] as string])
      i += 3
    } else {
      ranges.push([from, from])
      i++
    }
    first = false
  }
  if (i >= glob.length) return undefined
  return { part: { kind: 'set', negate, ranges }, end: i }
}

/** Reads a glob; runs of `*` become one. */
export function compileGlob(glob: string): CompiledGlob {
  const parts: Part[] = []
  let minLength = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string
    if (c === '*') {
      if (parts[parts.length - 1]?.kind !== 'star') parts.push({ kind: 'star' })
      continue
    }
    minLength++
    if (c === '?') parts.push({ kind: 'one' })
    else if (c === '[') {
      const set = readSet(glob, i)
      if (set) {
        parts.push(set.part)
        i = set.end
      } else parts.push({ kind: 'char', char: c })
    } else parts.push({ kind: 'char', char: c })
  }
  return { parts, minLength }
}

function partMatches(part: Part, char: string): boolean {
  switch (part.kind) {
    case 'one':
      return true
    case 'char':
      return part.char === char
    case 'set': {
      const inside = part.ranges.some(([from, to]) => char >= from && char <= to)
      return inside !== part.negate
    }
    default:
      return false
  }
}

/** True when the whole of `text` matches the glob. */
export function matchGlob(glob: CompiledGlob, text: string): boolean {
  if (glob.minLength > text.length) return false
  const { parts } = glob
  let p = 0
  let t = 0
  let starP = -1
  let starT = 0
  while (t < text.length) {
    const part = parts[p]
    if (part?.kind === 'star') {
      starP = p++
      starT = t
    } else if (part && partMatches(part, text[t] as string)) {
      p++
      t++
    } else if (starP >= 0) {
      p = starP + 1
      t = ++starT
    } else return false
  }
  while (parts[p]?.kind === 'star') p++
  return p === parts.length
}

/** True when `text` matches the glob text `glob`. */
export function globMatches(glob: string, text: string): boolean {
  return matchGlob(compileGlob(glob), text)
}

/**
 * True when `text` matches a pattern whose only wildcard is `*` (any run of characters);
 * every other character is literal. Greedy with one step back per `*`, so linear-ish.
 */
export function starMatches(pattern: string, text: string): boolean {
  if (!pattern.includes('*')) return pattern === text
  const [head, ...tail] = pattern.split('*')
  if (!text.startsWith(head as string)) return false
  let at = (head as string).length
  for (const [i, part] of tail.entries()) {
    if (i === tail.length - 1) return text.length - at >= part.length && text.endsWith(part)
    const found = text.indexOf(part, at)
    if (found < 0) return false
    at = found + part.length
  }
  return true
}
