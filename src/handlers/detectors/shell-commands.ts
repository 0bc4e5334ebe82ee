// From a parsed command line to the commands that would really run: wrappers are peeled off
// (`sudo`, `env`, `nohup`, `timeout`, `xargs`, `busybox`, …), `sh -c STRING`, `eval`,
// here-documents fed to a shell and `find -exec` are parsed in turn, and the commands of
// `$(…)` substitutions join the list. Paths are normalised as a shell user means them.

import { type ParsedScript, parseShell, SHELL_LIMITS, type SimpleCommand } from './shell-parse.js'

/** A command as it would run: `name` is the program's base name. */
export interface RunCommand {
  name: string
  /** The arguments after the program name. */
  args: string[]
  command: SimpleCommand
  /** The script the command belongs to (for pipelines). */
  script: ParsedScript
  /** True when its arguments also come from stdin (`xargs`). */
  argsFromStdin: boolean
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

/** Wrapper programs and how many option arguments take a value (so we can skip them). */
const WRAPPERS: Record<string, ReadonlySet<string>> = {
  sudo: new Set(['-u', '-g', '-h', '-p', '-C', '-r', '-t', '-U', '-D', '-R', '-T']),
  doas: new Set(['-u', '-C']),
  env: new Set(['-u', '-C', '--unset', '--chdir']),
  nohup: new Set(),
  time: new Set(['-f', '-o']),
  nice: new Set(['-n']),
  ionice: new Set(['-c', '-n', '-p']),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(['-a']),
  stdbuf: new Set(['-i', '-o', '-e']),
  timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
  chrt: new Set(),
  taskset: new Set(),
  unbuffer: new Set(),
  busybox: new Set(),
  xargs: new Set(['-I', '-n', '-P', '-d', '-L', '-s', '-E', '-a', '-i', '--max-args', '--delimiter']),
  parallel: new Set(['-j', '-S']),
  watch: new Set(['-n', '-d']),
  caffeinate: new Set(),
}

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
    for (const sub of command.substitutions) collect(sub, depth + 1, out)
    unwrap(command, command.argv, script, depth, out, false)
  }
}

function unwrap(
  command: SimpleCommand,
  argv: string[],
  script: ParsedScript,
  depth: number,
  out: RunCommand[],
  fromStdin: boolean,
): void {
  let words = argv
  let argsFromStdin = fromStdin
  for (let peel = 0; peel < 8 && words.length > 0; peel++) {
    const name = baseName(words[0] as string)
    const valued = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined
    if (!valued) break
    if (name === 'xargs' || name === 'parallel') argsFromStdin = true
    let i = 1
    while (i < words.length) {
      const word = words[i] as string
      if (word === '--') {
        i++
        break
      }
      if (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++
      else if (name === 'env' && (word === '-S' || word === '--split-string')) {
        words = [...(words[i + 1] ?? '').split(/\s+/).filter(Boolean), ...words.slice(i + 2)]
        i = 0
        break
      } else if (word.startsWith('-')) i += valued.has(word) ? 2 : 1
      else if (name === 'timeout' && /^\d/.test(word)) {
        i++
        break
      } else break
    }
    if (i === 0) continue
    words = words.slice(i)
  }
  if (words.length === 0) return
  const name = baseName(words[0] as string)
  const args = words.slice(1)
  out.push({ name, args, command, script, argsFromStdin })
  if (depth >= SHELL_LIMITS.maxDepth) return
  // sh -c STRING, bash -lc STRING, eval WORDS: the string is a script of its own.
  if (SHELLS.has(name)) {
    const at = args.findIndex((a) => /^-[a-z]*c[a-z]*$/i.test(a))
    if (at >= 0 && args[at + 1] !== undefined)
      collect(parseShell(args[at + 1] as string, depth + 1), depth + 1, out)
    for (const redirect of command.redirects)
      if (redirect.body !== undefined) collect(parseShell(redirect.body, depth + 1), depth + 1, out)
  }
  if (name === 'eval' && args.length > 0) collect(parseShell(args.join(' '), depth + 1), depth + 1, out)
  // find … -exec CMD … ; and -execdir / -ok: CMD runs once per file found.
  if (name === 'find') {
    for (let i = 0; i < args.length; i++) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(args[i] as string)) continue
      const end = args.findIndex((a, j) => j > i && (a === ';' || a === '+'))
      unwrap(command, args.slice(i + 1, end < 0 ? undefined : end), script, depth + 1, out, false)
    }
  }
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
