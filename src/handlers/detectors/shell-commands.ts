// From a parsed command line to the commands that would really run: wrappers are peeled off
// in a loop that does not count toward the depth (shell-wrappers.ts), `sh -c STRING`,
// `su -c`, `eval`, `trap`, `watch`, here-documents fed to a shell and `find -exec` are
// parsed in turn, and the commands of `$(…)` substitutions join the list. Paths are
// normalised as a shell user means them.

import { type ParsedScript, parseShell, type SimpleCommand } from './shell-parse.js'
import { PLAIN, reach, SHELL_LIMITS, spend, unresolved } from './shell-syntax.js'
import { peelWrapper, WRAPPERS } from './shell-wrappers.js'

/** A command as it would run: `name` is the program's base name. */
export interface RunCommand {
  name: string
  /** The program word as written (`./git`, `/usr/bin/git`, `git`). */
  program: string
  /** The arguments after the program name (for a wrapper: its own options and operands). */
  args: string[]
  /** True when the reader could not know the program's name (a variable, a glob, …). */
  dynamicName: boolean
  /** Per argument: true when the reader could not know its value. */
  dynamicArgs: boolean[]
  command: SimpleCommand
  /** The script the command belongs to (for pipelines). */
  script: ParsedScript
  /** True when its arguments also come from stdin (`xargs`). */
  argsFromStdin: boolean
  /** Set for a wrapper: `transparent` ones only change how the program they run runs. */
  wrapper?: 'transparent' | 'checked'
}

/** Shells and interpreters that run code given as a string or on stdin. */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'mksh', 'busybox-sh'])
export const INTERPRETERS = new Set([
  ...SHELLS,
  'python',
  'python3',
  'perl',
  'ruby',
  'node',
  'php',
  'source',
  '.',
])

/** The program's base name: `/usr/bin/rm` → `rm`. */
export function baseName(word: string): string {
  const at = word.lastIndexOf('/')
  return at >= 0 && at < word.length - 1 ? word.slice(at + 1) : word
}

/** Every command the script would run, wrappers peeled and nested scripts included. */
export function runCommands(script: ParsedScript, depth = 0): RunCommand[] {
  const out: RunCommand[] = []
  collect(script, depth, out)
  return out
}

function collect(script: ParsedScript, depth: number, out: RunCommand[]): void {
  for (const command of script.commands) {
    if (script.reading.budget < 0) return
    for (const sub of command.substitutions) collect(sub, depth + 1, out)
    unwrap(command, command.argv, command.dynamic, script, depth, out)
  }
}

/** Parses a string a command hands to a shell, one level deeper. */
function nestedScript(
  text: string,
  known: boolean,
  what: string,
  from: RunCommand,
  depth: number,
  out: RunCommand[],
): void {
  const reading = from.script.reading
  if (!known) unresolved(reading, `${what} whose text the reader cannot know`)
  if (depth >= SHELL_LIMITS.maxDepth) {
    reach(reading, 'depth')
    return
  }
  collect(parseShell(text, { depth: depth + 1, reading }), depth + 1, out)
}

/** Adds the command of `words[from]` with the arguments up to `to`. */
function record(
  out: RunCommand[],
  name: string,
  words: readonly string[],
  dynamic: readonly boolean[],
  from: number,
  to: number,
  command: SimpleCommand,
  script: ParsedScript,
  argsFromStdin: boolean,
  wrapper?: 'transparent' | 'checked',
): RunCommand {
  const entry: RunCommand = {
    name,
    program: words[from] as string,
    args: words.slice(from + 1, to),
    dynamicName: dynamic[from] === true,
    dynamicArgs: dynamic.slice(from + 1, to),
    command,
    script,
    argsFromStdin,
  }
  if (wrapper) entry.wrapper = wrapper
  out.push(entry)
  return entry
}

function unwrap(
  command: SimpleCommand,
  words: string[],
  dynamic: boolean[],
  script: ParsedScript,
  depth: number,
  out: RunCommand[],
  fromStdin = false,
): void {
  const reading = script.reading
  let argsFromStdin = fromStdin
  let at = 0
  let plainFrom: Int32Array | undefined
  // Wrappers are peeled in a loop: each takes at least its own name, so this ends.
  while (at < words.length) {
    if (!spend(reading, 1)) return
    const name = baseName(words[at] as string)
    // `eval eval … CMD` of plain words reads as CMD: peeled like a wrapper, not nested.
    if (name === 'eval' && !dynamic[at]) {
      plainFrom ??= plainSuffix(words, dynamic)
      if ((plainFrom[at + 1] as number) === 1 && at + 1 < words.length) {
        record(out, name, words, dynamic, at, at + 1, command, script, argsFromStdin, 'transparent')
        at++
        continue
      }
    }
    const wrapper = dynamic[at] ? undefined : Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined
    if (!wrapper) break
    const peeled = peelWrapper(name, wrapper, words, at)
    const kind = wrapper.transparent ? 'transparent' : 'checked'
    const entry = record(out, name, words, dynamic, at, peeled.end, command, script, argsFromStdin, kind)
    if (wrapper.stdin) argsFromStdin = true
    if (peeled.script !== undefined) nestedScript(peeled.script, true, `${name} -c`, entry, depth, out)
    if (peeled.stops) return
    if (name === 'env' && (words[peeled.end] === '-S' || words[peeled.end] === '--split-string')) {
      const split = (words[peeled.end + 1] ?? '').split(/\s+/).filter(Boolean)
      const splitDynamic = dynamic[peeled.end + 1] === true
      // The split words are env's own again (assignments, then the command).
      words = ['env', ...split, ...words.slice(peeled.end + 2)]
      dynamic = [false, ...split.map(() => splitDynamic), ...dynamic.slice(peeled.end + 2)]
      if (!spend(reading, words.length)) return
      at = 0
      continue
    }
    if (wrapper.joins) {
      const rest = words.slice(peeled.end)
      if (rest.length > 0)
        nestedScript(rest.join(' '), !dynamic.slice(peeled.end).some(Boolean), name, entry, depth, out)
      return
    }
    if (peeled.end >= words.length && name === 'parallel')
      unresolved(reading, 'parallel with no command (it runs the lines of its input)')
    at = peeled.end
  }
  if (at >= words.length) return
  const name = baseName(words[at] as string)
  const entry = record(out, name, words, dynamic, at, words.length, command, script, argsFromStdin)
  const args = entry.args
  const known = !entry.dynamicArgs.some(Boolean)
  // sh -c STRING, bash -lc STRING: the string is a script of its own.
  if (SHELLS.has(name)) {
    const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/i.test(a))
    if (c >= 0 && args[c + 1] !== undefined)
      nestedScript(args[c + 1] as string, entry.dynamicArgs[c + 1] !== true, `${name} -c`, entry, depth, out)
    for (const redirect of command.redirects)
      if (redirect.body !== undefined) nestedScript(redirect.body, true, `${name} <<`, entry, depth, out)
  }
  if (name === 'eval' && args.length > 0) nestedScript(args.join(' '), known, 'eval', entry, depth, out)
  // alias NAME='…': the text runs wherever NAME is used (aliases may be on in agents' shells).
  if (name === 'alias')
    for (const [i, arg] of args.entries()) {
      const at = arg.indexOf('=')
      if (at > 0) nestedScript(arg.slice(at + 1), entry.dynamicArgs[i] !== true, 'alias', entry, depth, out)
    }
  if (name === 'trap' && args.length > 1 && !args[0]?.startsWith('-'))
    nestedScript(args[0] as string, entry.dynamicArgs[0] !== true, 'trap', entry, depth, out)
  // find … -exec CMD … ; and -execdir / -ok: CMD runs once per file found.
  if (name === 'find') {
    for (let i = 0; i < args.length; i++) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(args[i] as string)) continue
      let stop = i + 1
      while (stop < args.length && args[stop] !== ';' && args[stop] !== '+') stop++
      if (depth >= SHELL_LIMITS.maxDepth) {
        reach(reading, 'depth')
        return
      }
      unwrap(command, args.slice(i + 1, stop), entry.dynamicArgs.slice(i + 1, stop), script, depth + 1, out)
      i = stop
    }
  }
}

/** Per index: 1 when every word from there on is plain (re-reading it by `eval` changes nothing). */
function plainSuffix(words: readonly string[], dynamic: readonly boolean[]): Int32Array {
  const out = new Int32Array(words.length + 1)
  out[words.length] = 1
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i] as string
    let plain = !dynamic[i] && word.length > 0
    for (let k = 0; plain && k < word.length; k++)
      plain = PLAIN[word.charCodeAt(k)] === 1 && word[k] !== '{' && word[k] !== '#'
    out[i] = plain && out[i + 1] === 1 ? 1 : 0
  }
  return out
}

/**
 * A path as a shell user means it: `$HOME`/`${HOME}` and `~user` become `~`, `//` and `.`
 * collapse, `..` resolves, a trailing `/` or `/*` goes (`/tmp/../*` → `/`). Relative paths
 * stay relative.
 */
export function normalisePath(path: string): string {
  if (/^[A-Za-z0-9_@%+=:,-][A-Za-z0-9_@%+=:,/-]*$/.test(path) && !path.includes('//') && !path.endsWith('/'))
    return path
  if (/^\/[A-Za-z0-9_@%+=:,-]+(?:\/[A-Za-z0-9_@%+=:,-]+)*$/.test(path)) return path
  let p = path.trim()
  p = p.replace(/^(?:\$HOME|\$\{HOME\})(?=\/|$)/, '~')
  p = p.replace(/^~[A-Za-z0-9_.-]+(?=\/|$)/, '~')
  p = p.replace(/^\/root(?=\/|$)/, '~')
  const absolute = p.startsWith('/')
  const home = p === '~' || p.startsWith('~/')
  const parts: string[] = []
  for (const part of (home ? p.slice(1) : p).split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop()
      else if (!absolute && !home) parts.push('..')
      continue
    }
    parts.push(part)
  }
  while (parts.length > 0 && /^(\*|\.\*|\{[^}]*\})$/.test(parts[parts.length - 1] as string)) parts.pop()
  const joined = parts.join('/')
  if (home) return joined ? `~/${joined}` : '~'
  if (absolute) return `/${joined}`
  return joined || '.'
}
