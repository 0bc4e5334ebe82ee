// A small POSIX-shell reader for the destructive-shell and protected-paths detectors: it
// splits a command line the way a shell would (quotes and their concatenation, backslashes,
// `$'…'`, `$(…)` and backticks, `<(…)`, variables set earlier in the line, `${IFS}`, brace
// lists, `;` `&&` `||` `|` `&`, groups, functions, redirections, here-documents) into simple
// commands. It never runs anything and never throws. Its bounds (size, nesting, depth) and
// its work budget are recorded in the reading when reached, as is what it cannot resolve.

import {
  emptyScript,
  isAssignment,
  newReading,
  operatorAt,
  PASS_THROUGH,
  type ParsedScript,
  type Redirect,
  reach,
  SEPARATORS,
  SHELL_LIMITS,
  type ShellReading,
  type SimpleCommand,
  spend,
  unresolved,
} from './shell-syntax.js'
import { type Token, type Variable, WordReader } from './shell-words.js'

export type {
  FunctionDef,
  ParsedScript,
  Redirect,
  ShellBound,
  ShellReading,
  SimpleCommand,
} from './shell-syntax.js'
export { newReading, SHELL_LIMITS, staticOutput } from './shell-syntax.js'

/** Where a nested parse starts from. */
export interface ParseFrom {
  /** The reading it belongs to (a new one, with its own budget, when absent). */
  reading?: ShellReading
  /** Levels of `$(…)`, `sh -c` and `eval` around it. */
  depth?: number
  vars?: Map<string, Variable>
}

/** Parses a command line. Variables set in it (`a=rm; $a -rf /`) are expanded where used. */
export function parseShell(source: string, from: ParseFrom = {}): ParsedScript {
  const reading = from.reading ?? newReading(Math.min(source.length, SHELL_LIMITS.maxChars))
  const script = emptyScript(reading)
  if (source.length > SHELL_LIMITS.maxChars) {
    reach(reading, 'size')
    source = source.slice(0, SHELL_LIMITS.maxChars)
  }
  if (!spend(reading, source.length)) return script
  const reader = new Reader(source, from.depth ?? 0, from.vars ?? new Map(), reading)
  reader.parseList(script, undefined)
  return script
}

class Reader extends WordReader {
  pipeline = 0
  /** Groups and function bodies open around the current position. */
  private nesting = 0
  /** `case … in` bodies open around the current position. */
  private cases = 0
  private pendingHeredocs: { delimiter: string; redirect: Redirect }[] = []

  /** Reads commands into `script` until `close` (`)`, `}`) or the end; false when `close` never came. */
  parseList(script: ParsedScript, close: string | undefined): boolean {
    // Past the bound, the rest of the line is not read; the bound is a finding.
    if (this.nesting >= SHELL_LIMITS.maxNesting) {
      reach(this.reading, 'nesting')
      this.pos = this.src.length
      return true
    }
    this.nesting++
    try {
      return this.parseItems(script, close)
    } finally {
      this.nesting--
    }
  }

  private parseItems(script: ParsedScript, close: string | undefined): boolean {
    let stage = 0
    let current: SimpleCommand | undefined
    const reading = this.reading
    while (this.pos < this.src.length) {
      if (reading.budget < 0 || !spend(reading, 1)) {
        this.stop()
        break
      }
      if (!current && this.cases > 0) this.skipCasePattern()
      const token = this.next()
      if (!token) break
      if (token.op !== undefined) {
        const op = token.op
        if (op === close) {
          if (current) this.finish(current)
          return true
        }
        if (op === '(') {
          // A subshell group or `name ( )` of a function definition. `(( … ))` is read as two
          // groups: what would be arithmetic becomes commands, which fails closed.
          if (current && current.argv.length === 1 && this.peekOp(')')) {
            this.next()
            this.readFunction(script, current.argv[0] as string)
            script.commands.pop()
            current = undefined
            continue
          }
          if (!this.parseList(script, ')')) unresolved(reading, 'an unclosed ( group')
          continue
        }
        if (op === ')' || op === '}') continue
        if (SEPARATORS.has(op)) {
          if (op === '&' && current) current.background = true
          if (op === '|' || op === '|&') stage++
          else {
            stage = 0
            this.pipeline++
          }
          if (current) this.finish(current)
          current = undefined
          continue
        }
        // A redirection: the next word is its target.
        const target = this.next()
        const redirect: Redirect = { op, target: target?.word ?? '' }
        if (op === '<<' || op === '<<-') this.pendingHeredocs.push({ delimiter: redirect.target, redirect })
        if (op === '<<<') redirect.body = redirect.target
        current ??= this.open(script, stage)
        current.redirects.push(redirect)
        reading.redirects.push(redirect)
        if (target?.subs) current.substitutions.push(...target.subs)
        continue
      }
      const word = token.word ?? ''
      if (!current && !token.quoted) {
        if (word === close) return true
        if (word === '{' || word === '}') continue
        if (word === 'esac' && this.cases > 0) this.cases--
        if (PASS_THROUGH.has(word)) continue
        if (word === 'for' || word === 'case' || word === 'select') {
          this.readHeader(script, stage, word === 'case' ? 'in' : undefined)
          if (word === 'case') this.cases++
          continue
        }
        if (word === 'function') {
          const name = this.next()
          if (name?.word) {
            if (this.peekOp('(')) {
              this.next()
              if (this.peekOp(')')) this.next()
            }
            this.readFunction(script, name.word)
          }
          continue
        }
        if (word.endsWith('()') && word.length > 2) {
          this.readFunction(script, word.slice(0, -2))
          continue
        }
      }
      current ??= this.open(script, stage)
      if (token.subs) current.substitutions.push(...token.subs)
      if (!token.quoted && current.argv.length === 0 && isAssignment(word)) {
        const at = word.indexOf('=')
        this.vars.set(word.slice(0, at), { value: word.slice(at + 1), dynamic: token.dynamic === true })
        reading.assigned.add(word.slice(0, at))
        continue
      }
      if (!token.quoted && isBraceList(word)) {
        spend(reading, word.length)
        for (const item of word.slice(1, -1).split(',')) {
          current.argv.push(item)
          current.dynamic.push(token.dynamic === true)
        }
      } else {
        current.argv.push(word)
        current.dynamic.push(token.dynamic === true)
      }
    }
    if (current) this.finish(current)
    return close === undefined
  }

  private open(script: ParsedScript, stage: number): SimpleCommand {
    const command: SimpleCommand = {
      argv: [],
      dynamic: [],
      redirects: [],
      pipeline: this.pipeline,
      stage,
      background: false,
      substitutions: [],
    }
    script.commands.push(command)
    return command
  }

  private finish(command: SimpleCommand): void {
    // `export A=b` sets a variable for what follows, like a bare assignment.
    if (command.argv[0] === 'export' || command.argv[0] === 'local' || command.argv[0] === 'declare') {
      for (const [i, word] of command.argv.entries())
        if (i > 0 && isAssignment(word))
          this.assign(word.slice(0, word.indexOf('=')), {
            value: word.slice(word.indexOf('=') + 1),
            dynamic: command.dynamic[i] === true,
          })
    }
  }

  private assign(name: string, variable: Variable): void {
    this.vars.set(name, variable)
    this.reading.assigned.add(name)
  }

  private readFunction(script: ParsedScript, name: string): void {
    const body = emptyScript(this.reading)
    this.skipBlank(true)
    const open = this.src[this.pos]
    if (open === '{' || open === '(') {
      this.pos++
      if (!this.parseList(body, open === '{' ? '}' : ')'))
        unresolved(this.reading, `an unclosed body of ${name}`)
    }
    script.functions.push({ name, body })
    script.commands.push(...body.commands)
  }

  /**
   * The words of a `for`/`select`/`case` header up to `do`, `in` (case) or the end of the
   * line: what they substitute still runs, so it joins the script as a command without name.
   */
  private readHeader(script: ParsedScript, stage: number, end: string | undefined): void {
    const holder = this.open(script, stage)
    while (this.pos < this.src.length) {
      this.skipBlank(false)
      const c = this.src[this.pos]
      if (c === ';' || c === '\n' || c === '&' || c === '|' || c === undefined) return
      const token = this.next()
      if (!token || token.op !== undefined) return
      if (token.subs) holder.substitutions.push(...token.subs)
      if (!token.quoted && (token.word === end || token.word === 'do')) return
    }
  }

  /** A `case` pattern (`a|b)`, `(x)`) where a command would start: stepped over. */
  private skipCasePattern(): void {
    CASE_PATTERN.lastIndex = this.pos
    const match = CASE_PATTERN.exec(this.src)
    if (match && !/^\s*esac\b/.test(match[0])) this.pos += match[0].length
  }

  private peekOp(op: string): boolean {
    this.skipBlank(false)
    return this.src.startsWith(op, this.pos)
  }

  private skipBlank(newlines: boolean): void {
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) this.pos++
      else if (c === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2
      else return
    }
  }

  /** The next operator or word, or undefined at the end. */
  protected next(): Token | undefined {
    this.skipBlank(false)
    if (this.pos >= this.src.length) return undefined
    const src = this.src
    const c = src[this.pos] as string
    if (c === '#') {
      const end = src.indexOf('\n', this.pos)
      this.pos = end < 0 ? src.length : end
      return this.next()
    }
    if (c === '\n') {
      this.pos++
      this.readHeredocs()
      return { op: '\n' }
    }
    if ((c === '<' || c === '>') && src[this.pos + 1] === '(') {
      this.pos += 2
      const inner = this.nested(')')
      return inner ? { word: '/dev/fd/63', subs: [inner] } : { word: '', dynamic: true }
    }
    const op = operatorAt(src, this.pos)
    if (op !== undefined) {
      this.pos += op.length
      return { op }
    }
    return this.readWord()
  }

  /** A `$(…)` or `<(…)` read in place by a reader one level deeper; undefined past the depth bound. */
  protected nested(close: string): ParsedScript | undefined {
    if (this.depth >= SHELL_LIMITS.maxDepth) {
      reach(this.reading, 'depth')
      this.stop()
      return undefined
    }
    const inner = emptyScript(this.reading)
    const reader = new Reader(this.src, this.depth + 1, this.vars, this.reading)
    reader.pos = this.pos
    reader.pipeline = this.pipeline + 1000
    if (!reader.parseList(inner, close))
      unresolved(this.reading, `an unclosed ${close === ')' ? '$(' : close}`)
    this.pos = reader.pos
    return inner
  }

  protected parseText(text: string): ParsedScript {
    return parseShell(text, { depth: this.depth + 1, vars: this.vars, reading: this.reading })
  }

  private readHeredocs(): void {
    for (const { delimiter, redirect } of this.pendingHeredocs.splice(0)) {
      const end = delimiter.replace(/^-/, '')
      const lines: string[] = []
      while (this.pos < this.src.length) {
        let stop = this.src.indexOf('\n', this.pos)
        if (stop < 0) stop = this.src.length
        const line = this.src.slice(this.pos, stop)
        this.pos = Math.min(stop + 1, this.src.length)
        if (line.trim() === end) break
        lines.push(line)
      }
      redirect.body = lines.join('\n')
    }
  }
}

/** A `case` pattern before its `)`: `a|b)`, `(x)`, `*)`. */
const CASE_PATTERN = /[ \t\n]*\(?[ \t]*[^\s;&()`$"'|]*(?:[ \t]*\|[ \t]*[^\s;&()`$"'|]*)*[ \t]*\)/y

/** `{a,b,c}`: a brace list with no blanks or inner braces. */
function isBraceList(word: string): boolean {
  if (word.length < 3 || word.charCodeAt(0) !== 123 || word.charCodeAt(word.length - 1) !== 125) return false
  let comma = false
  for (let i = 1; i < word.length - 1; i++) {
    const c = word[i]
    if (c === '{' || c === '}' || c === ' ' || c === '\t' || c === '\n') return false
    if (c === ',') comma = true
  }
  return comma
}
