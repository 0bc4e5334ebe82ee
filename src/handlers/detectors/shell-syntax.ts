// The shapes a parsed command line takes (simple commands, redirections, functions), the
// reader's bounds and work budget, and the word-level helpers of the shell reader:
// assignments, `$'…'` escapes, and what a substitution prints when that can be known
// without running it.

export interface Redirect {
  op: string
  target: string
  /** The body of a here-document (`<<EOF … EOF`) or here-string (`<<<`). */
  body?: string
}

/** A simple command: its words after quote removal and the expansions that can be known. */
export interface SimpleCommand {
  argv: string[]
  /**
   * Per word of `argv`: true when the reader could not know its value (an unset variable, a
   * substitution whose output it cannot know, arithmetic, an unquoted glob).
   */
  dynamic: boolean[]
  redirects: Redirect[]
  /** The pipeline this command is part of (unique per script), and its stage in it. */
  pipeline: number
  stage: number
  /** Run in the background (`&`). */
  background: boolean
  /** Scripts of the `$(…)`, backtick and `<(…)` substitutions in its words. */
  substitutions: ParsedScript[]
}

/** A shell function definition, `name() { body }` or `function name { body }`. */
export interface FunctionDef {
  name: string
  body: ParsedScript
}

/** A bound of the shell reader: each one reached is a finding of its own, never a pass. */
export type ShellBound = 'size' | 'depth' | 'nesting' | 'work'

/**
 * What one reading of a command line shares with every script nested in it: the work it
 * may still spend, the bounds it reached and what it could not make sense of.
 */
export interface ShellReading {
  /** Work units left: characters read, re-read for `sh -c`/`eval`, or produced by expansions. */
  budget: number
  /** The bounds reached, in the order they were. */
  bounds: Set<ShellBound>
  /** What the reader could not resolve (an unterminated quote, …), in its words. */
  unresolved: string[]
  /** Every redirection read, nested scripts' included (commands without a name too). */
  redirects: Redirect[]
  /** The names of the variables the line sets (`A=1 cmd`, `export A=1`, `local A=1`). */
  assigned: Set<string>
}

/** A parsed command line. */
export interface ParsedScript {
  commands: SimpleCommand[]
  functions: FunctionDef[]
  /** The reading this script belongs to (shared by the scripts nested in it). */
  reading: ShellReading
}

/**
 * Bounds: characters read, nesting of substitutions, `sh -c` strings and `eval`, of groups
 * and functions; the work budget is `minWork + workPerChar × length` units.
 */
export const SHELL_LIMITS = {
  maxChars: 64 * 1024,
  maxDepth: 8,
  maxNesting: 64,
  minWork: 64 * 1024,
  workPerChar: 16,
} as const

/** A fresh reading of a text of `length` characters, with its budget. */
export function newReading(length: number, budget?: number): ShellReading {
  return {
    budget: budget ?? SHELL_LIMITS.minWork + SHELL_LIMITS.workPerChar * length,
    bounds: new Set(),
    unresolved: [],
    redirects: [],
    assigned: new Set(),
  }
}

/** An empty script of a reading. */
export function emptyScript(reading: ShellReading): ParsedScript {
  return { commands: [], functions: [], reading }
}

/**
 * Spends `units` of the reading's budget; false (and the `work` bound recorded) once it
 * is spent, after which readers stop.
 */
export function spend(reading: ShellReading, units: number): boolean {
  reading.budget -= units
  if (reading.budget >= 0) return true
  reading.bounds.add('work')
  return false
}

/** Records that a bound was reached. */
export function reach(reading: ShellReading, bound: ShellBound): void {
  reading.bounds.add(bound)
}

/** Records something the reader could not resolve (at most 20 are kept). */
export function unresolved(reading: ShellReading, what: string): void {
  if (reading.unresolved.length < 20 && !reading.unresolved.includes(what)) reading.unresolved.push(what)
}

/** Operators that end a simple command. */
export const SEPARATORS = new Set([';', '&&', '||', '&', '\n', ';;', '|', '|&'])
/** Reserved words the reader steps over (the commands inside still count). */
export const PASS_THROUGH = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '!',
  'esac',
])

/** 1 for ASCII characters with no meaning to the shell inside a word. */
export const PLAIN = new Uint8Array(128)
for (let c = 33; c < 127; c++) if (!'\\\'"`$;&|()<>'.includes(String.fromCharCode(c))) PLAIN[c] = 1

/** The control or redirection operator at `pos`, if one starts there. */
export function operatorAt(src: string, pos: number): string | undefined {
  const c = src[pos]
  const n1 = src[pos + 1]
  const n2 = src[pos + 2]
  switch (c) {
    case '<':
      if (n1 === '<') return n2 === '<' ? '<<<' : n2 === '-' ? '<<-' : '<<'
      return n1 === '>' ? '<>' : '<'
    case '>':
      return n1 === '>' ? '>>' : n1 === '&' ? '>&' : n1 === '|' ? '>|' : '>'
    case '&':
      if (n1 === '>') return n2 === '>' ? '&>>' : '&>'
      return n1 === '&' ? '&&' : '&'
    case '|':
      return n1 === '|' ? '||' : n1 === '&' ? '|&' : '|'
    case ';':
      return n1 === ';' ? ';;' : ';'
    case '(':
    case ')':
      return c
  }
  return undefined
}

/** What an unquoted `$IFS` expands to: a word break. */
export const IFS_BREAK = Symbol('ifs')

/** True for `NAME=value`. */
export function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)
}

export function findAnsiEnd(src: string, from: number): number {
  let i = from
  while (i < src.length && src[i] !== "'") i += src[i] === '\\' ? 2 : 1
  return Math.min(i, src.length)
}

const ANSI: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  '\\': '\\',
  "'": "'",
}

/** Decodes the body of `$'…'`: `\n`, `\x72`, octal `\162`, `\u0072`. */
export function decodeAnsi(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|[0-7]{1,3}|.)/gs, (_all, code: string) => {
    if (code[0] === 'x' || code[0] === 'u') return String.fromCharCode(Number.parseInt(code.slice(1), 16))
    if (/^[0-7]/.test(code)) return String.fromCharCode(Number.parseInt(code, 8))
    return ANSI[code] ?? code
  })
}

/**
 * What a substitution prints when that can be known without running it: `echo`/`printf`
 * arguments, and the name `which X` / `command -v X` answer. Otherwise undefined.
 */
export function staticOutput(script: ParsedScript): string | undefined {
  const last = script.commands[script.commands.length - 1]
  if (!last || last.argv.length === 0) return script.commands.length === 0 ? '' : undefined
  if (last.dynamic.some(Boolean)) return undefined
  const [name, ...args] = last.argv
  if (name === 'echo') return args.filter((a) => !/^-[neE]+$/.test(a)).join(' ')
  if (name === 'printf' && args.length > 0) {
    let next = 1
    const out = (args[0] as string).replace(/%[sbd]/g, () => args[next++] ?? '')
    return out.replace(/\\n/g, '\n')
  }
  if (name === 'which' || name === 'type') return args.filter((a) => !a.startsWith('-')).join(' ')
  if (name === 'command' && args[0] === '-v') return args.slice(1).join(' ')
  return undefined
}
