// Paths as the file system will read them: resolved against the working folder (`cwd`),
// with `~`/`$HOME`/`/root`/`%USERPROFILE%` as the home folder, `\` as `/`, `..` and `.`
// collapsed, and `/proc/<pid>/root/` links followed to `/`; and the shell's brace lists
// expanded before globbing.

/** A path after resolution. */
export interface ResolvedPath {
  /** `/…` absolute, `~/…` under home, otherwise relative (the cwd was not known). */
  path: string
  /** Leading `..` segments a relative path could not resolve. */
  climbs: number
  /** Why the path's real target cannot be known (a `/proc/<pid>/cwd` or `fd` link). */
  link?: string
}

const PROC_ROOT = /^\/proc\/(?:self|thread-self|\d{1,10})\/root(?=\/|$)/
const PROC_LINK = /^\/(?:proc\/(?:self|thread-self|\d{1,10})\/(?:cwd|fd|map_files)|dev\/fd)(?=\/|$)/

/** Collapses `.`, `..` and `//`; `~` (home) and `/` (root) are kept as the first segment. */
function collapse(path: string): { path: string; climbs: number } {
  const home = path === '~' || path.startsWith('~/')
  const absolute = path.startsWith('/')
  const parts: string[] = []
  let climbs = 0
  for (const part of (home ? path.slice(1) : path).split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (parts.length > 0) parts.pop()
      else if (!absolute && !home) climbs++
      continue
    }
    parts.push(part)
  }
  const joined = parts.join('/')
  const prefix = home ? '~' : absolute ? '' : '../'.repeat(climbs)
  if (home) return { path: joined ? `~/${joined}` : '~', climbs: 0 }
  if (absolute) return { path: `/${joined}`, climbs: 0 }
  return { path: `${prefix}${joined}` || '.', climbs }
}

/** The home folder spelled as `~`: `$HOME`, `${HOME}`, `~user`, `/root`, `%USERPROFILE%`. */
function homeSpelled(path: string): string {
  return path
    .replace(/^(?:\$HOME|\$\{HOME\}|%USERPROFILE%|%HOMEPATH%|\$env:USERPROFILE)(?=[\\/]|$)/i, '~')
    .replace(/^~[A-Za-z0-9_.-]+(?=\/|$)/, '~')
    .replace(/^\/root(?=\/|$)/, '~')
}

/** A path with nothing to resolve: plain names, no `.`/`..`, no home or /proc spelling. */
const PLAIN_PATH = /^\/?(?:[A-Za-z0-9_@+=:,-][A-Za-z0-9_@+=:,.-]*\/)*[A-Za-z0-9_@+=:,-][A-Za-z0-9_@+=:,.-]*$/

/** Resolves `raw` as the file system would, against `cwd` when it is relative. */
export function resolvePath(raw: string, cwd?: string): ResolvedPath {
  if (
    PLAIN_PATH.test(raw) &&
    !raw.startsWith('/proc') &&
    !raw.startsWith('/root') &&
    !raw.startsWith('/dev') &&
    (raw.startsWith('/') || !cwd)
  )
    return { path: raw, climbs: 0 }
  let p = raw.trim()
  if (/^file:\/\//i.test(p)) {
    p = p.slice(7)
    try {
      p = decodeURIComponent(p)
    } catch {
      // kept as written
    }
  }
  if (/^[A-Za-z]:[\\/]/.test(p)) p = `/${p[0]?.toLowerCase()}${p.slice(2).replace(/\\/g, '/')}`
  else if (p.includes('\\') && !p.includes('/')) p = p.replace(/\\/g, '/')
  p = homeSpelled(p)
  if (!p.startsWith('/') && !p.startsWith('~') && cwd) {
    const base = homeSpelled(cwd.trim())
    if (base.startsWith('/') || base.startsWith('~')) p = `${base}/${p}`
  }
  let { path, climbs } = collapse(p)
  // `/proc/self/root/etc/shadow` is `/etc/shadow`; links through cwd or fd cannot be followed.
  for (let hops = 0; hops < 16 && PROC_ROOT.test(path); hops++)
    path = collapse(path.replace(PROC_ROOT, '')).path
  const link = PROC_LINK.exec(path)
  return link ? { path, climbs, link: link[0] } : { path, climbs }
}

/** True when the word has glob characters a shell (or `find -name`) would expand. */
export function isGlob(word: string): boolean {
  return /[*?]|\[[^\]]+\]/.test(word)
}

/** The most words one brace expansion may give; more is a bound of its own. */
export const MAX_BRACE_WORDS = 64

/**
 * `{a,b}` lists expanded, as a shell does before globbing; more than
 * {@link MAX_BRACE_WORDS} words answers undefined (the caller treats that as a bound).
 */
export function expandBraces(word: string): string[] | undefined {
  if (!word.includes('{')) return [word]
  const out: string[] = []
  let over = false
  const visit = (w: string) => {
    if (out.length >= MAX_BRACE_WORDS) {
      over = true
      return
    }
    const open = w.indexOf('{')
    const close = open >= 0 ? w.indexOf('}', open) : -1
    const body = close > open ? w.slice(open + 1, close) : ''
    if (open < 0 || close < 0 || !body.includes(',')) {
      out.push(w)
      return
    }
    for (const choice of body.split(',')) visit(w.slice(0, open) + choice + w.slice(close + 1))
  }
  visit(word)
  return over ? undefined : out
}
