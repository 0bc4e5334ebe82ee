// The decision on one path (or one word of a command): is it, or could it be (a glob), a
// protected path; and in `mode: allow`, does it stay under one of the allowed roots. A path
// whose target cannot be known — it depends on a variable, goes through a `/proc/<pid>/cwd`
// or `fd` link, climbs out of an unknown working folder, or is a glob that could leave a
// root — is not allowed in `mode: allow`.

import type { WorkBudget } from './budget.js'
import { compilePathGlob, type GlobPattern, globsMeet, pathPattern, protectedPattern } from './paths-glob.js'
import { expandBraces, isGlob, MAX_BRACE_WORDS, type ResolvedPath, resolvePath } from './paths-resolve.js'

/** Why a path is refused. */
export interface PathCheck {
  kind: 'protected-path' | 'path-outside-roots' | 'scan-limit'
  detail: string
}

/** How one word is read. */
export interface WordPlace {
  cwd: string | undefined
  /** True when `*` also matches names opening with `.` (`shopt -s dotglob`). */
  dotglob: boolean
  /** True for a word of a shell command (options such as `-la` are not paths). */
  command: boolean
}

interface Rule {
  glob: string
  re: RegExp
  pattern: GlobPattern
  anchored: boolean
}

/** A word whose brace lists give more paths than are checked: refused, not passed. */
function manyBraces(word: string): PathCheck {
  return {
    kind: 'scan-limit',
    detail: `${word.slice(0, 80)}: brace lists give more than ${MAX_BRACE_WORDS} paths, more than the paths detector checks`,
  }
}

/** Checks paths against protected globs, their exceptions, and (in `mode: allow`) roots. */
export function pathChecker(settings: {
  protectedGlobs: readonly string[]
  allowed: readonly string[]
  roots: readonly string[] | undefined
}) {
  const rules: Rule[] = settings.protectedGlobs.map((glob) => ({
    glob,
    re: compilePathGlob(glob),
    pattern: protectedPattern(glob),
    anchored: glob.startsWith('/'),
  }))
  const allowed = settings.allowed.map(compilePathGlob)
  const union = (list: Rule[]) => new RegExp(list.map((r) => `(?:${r.re.source})`).join('|') || '(?!)', 'i')
  const anyRule = union(rules)
  const anyFloating = union(rules.filter((r) => !r.anchored))
  // `*.pub` style exceptions: a glob whose last name ends with the same literal stays inside.
  const allowedSuffixes = settings.allowed
    .filter((g) => /^\*[^*?[/]+$/.test(g))
    .map((g) => g.slice(1).toLowerCase())
  const roots = settings.roots

  const protectedBy = (
    path: string,
    relative: boolean,
    dotglob: boolean,
    budget: WorkBudget,
  ): string | undefined => {
    budget.charge(path.length + rules.length + allowed.length)
    if (!isGlob(path)) {
      // One pass over all the protected globs first; which one matched only when one did.
      if (!(relative ? anyFloating : anyRule).test(path)) return undefined
      if (allowed.some((re) => re.test(path))) return undefined
      return rules.find((r) => !(relative && r.anchored) && r.re.test(path))?.glob
    }
    const lastName = (path.split('/').at(-1) ?? '').toLowerCase()
    if (
      allowedSuffixes.some((suffix) => lastName.endsWith(suffix) && !isGlob(lastName.slice(-suffix.length)))
    )
      return undefined
    const segments = pathPattern(path)
    return rules.find((r) => !(relative && r.anchored) && globsMeet(segments, r.pattern, dotglob, budget))
      ?.glob
  }

  /** The protected glob `word` (resolved) falls under, if any. */
  const protectedWord = (word: string, place: WordPlace, budget: WorkBudget): PathCheck | undefined => {
    if (word.length === 0 || word.length > 4096) return undefined
    const variants = expandBraces(word)
    if (!variants) return manyBraces(word)
    for (const variant of variants) {
      const resolved = resolvePath(variant, place.cwd)
      let path = resolved.path
      // `/proc/self/cwd/x` is `x` in the working folder.
      if (resolved.link && /cwd$/.test(resolved.link))
        path = resolvePath(path.slice(resolved.link.length + 1) || '.', place.cwd).path
      const relative = !path.startsWith('/') && !path.startsWith('~')
      const candidates = [path]
      // `../../etc/passwd` from an unknown folder: enough `..` reach the root.
      if (relative && resolved.climbs > 0) candidates.push(`/${path.replace(/^(?:\.\.\/)+/, '')}`)
      for (const candidate of candidates) {
        const glob = protectedBy(
          candidate,
          !candidate.startsWith('/') && !candidate.startsWith('~'),
          place.dotglob,
          budget,
        )
        if (glob) return { kind: 'protected-path', detail: `${candidate} (protected by ${glob})` }
      }
    }
    return undefined
  }

  /** The roots resolved in one working folder (the last one asked is kept). */
  let rootsCache: { cwd: string | undefined; roots: ResolvedPath[] } | undefined
  const rootsIn = (cwd: string | undefined): ResolvedPath[] => {
    if (rootsCache?.cwd !== cwd || !rootsCache)
      rootsCache = { cwd, roots: (roots ?? []).map((r) => resolvePath(r.replace(/\/\*\*$/, ''), cwd)) }
    return rootsCache.roots
  }

  /** Why `word` is not under a root, if it is not (`mode: allow`). */
  const outsideRoots = (word: string, place: WordPlace, budget: WorkBudget): PathCheck | undefined => {
    if (!roots) return undefined
    const refuse = (why: string): PathCheck => ({
      kind: 'path-outside-roots',
      detail: `${word.slice(0, 200)}: ${why} (mode: allow)`,
    })
    if (place.command && /^-/.test(word)) return undefined
    if (/[$`]/.test(word)) return refuse('depends on a variable')
    const resolvedRoots = rootsIn(place.cwd)
    const variants = expandBraces(word)
    if (!variants) return manyBraces(word)
    for (const variant of variants) {
      budget.charge(variant.length * (roots.length + 1) + 16)
      const resolved = resolvePath(variant, place.cwd)
      if (resolved.link) return refuse(`goes through ${resolved.link}, whose target cannot be known`)
      const path = resolved.path
      if (resolved.climbs > 0) return refuse('climbs out of a working folder that is not known')
      const relative = !path.startsWith('/') && !path.startsWith('~')
      const inside = resolvedRoots.some((root) => {
        if (root.link || root.climbs > 0) return false
        const r = root.path
        const rootRelative = !r.startsWith('/') && !r.startsWith('~')
        if (relative !== rootRelative) return false
        if (r === '.' || r === '/') return true
        if (path !== r && !path.startsWith(`${r}/`)) return false
        // A glob may only open after the root: `/srv/app/*` stays, `/srv/a*` could leave.
        return !isGlob(path.slice(0, r.length))
      })
      if (!inside)
        return refuse(
          relative ? 'a relative path and the working folder is not known' : 'outside the allowed roots',
        )
    }
    return undefined
  }

  return {
    /** True in `mode: allow`. */
    strict: roots !== undefined,
    /** The reason `word` is refused, or undefined when it may be used. */
    check(word: string, place: WordPlace, budget: WorkBudget): PathCheck | undefined {
      return protectedWord(word, place, budget) ?? outsideRoots(word, place, budget)
    },
  }
}
