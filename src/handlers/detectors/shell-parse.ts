// A small POSIX-shell reader for the destructive-shell and protected-paths detectors: it
// splits a command line the way a shell would (quotes and their concatenation, backslashes,
// `$'…'`, `$(…)` and backticks, `<(…)`, variables set earlier in the line, `${IFS}`, brace
// lists, `;` `&&` `||` `|` `&`, groups, function definitions, redirections, here-documents)
// into simple commands. It never runs anything and never throws; input and nesting are
// bounded, and what it cannot resolve stays visible as `$NAME` text.

import {
  decodeAnsi,
  findAnsiEnd,
  IFS_BREAK,
  isAssignment,
  operatorAt,
  PASS_THROUGH,
  type ParsedScript,
  PLAIN,
  type Redirect,
  SEPARATORS,
  SHELL_LIMITS,
  type SimpleCommand,
  staticOutput,
} from './shell-syntax.js'

export type { FunctionDef, ParsedScript, Redirect, SimpleCommand } from './shell-syntax.js'
export { SHELL_LIMITS, staticOutput } from './shell-syntax.js'

interface Token {
  op?: string
  word?: string
  /** True when any part of the word was quoted (no brace or assignment handling). */
  quoted?: boolean
  subs?: ParsedScript[]
}

/** Parses a command line. Variables set in it (`a=rm; $a -rf /`) are expanded where used. */
export function parseShell(source: string, depth = 0, vars: Map<string, string> = new Map()): ParsedScript {
  const reader = new Reader(source.slice(0, SHELL_LIMITS.maxChars), depth, vars)
  const script: ParsedScript = { commands: [], functions: [] }
  reader.parseList(script, undefined)
  return script
}

class Reader {
  pos = 0
  pipeline = 0
  /** Groups and function bodies open around the current position. */
  private nesting = 0
  private pendingHeredocs: { delimiter: string; redirect: Redirect }[] = []

  constructor(
    private readonly src: string,
    private readonly depth: number,
    private readonly vars: Map<string, string>,
  ) {}

  /** Reads commands into `script` until `close` (`)`, `}`) or the end. */
  parseList(script: ParsedScript, close: string | undefined): void {
    // Past the bound, the rest of the line is not read (what was read still counts).
    if (this.nesting >= SHELL_LIMITS.maxNesting) {
      this.pos = this.src.length
      return
    }
    this.nesting++
    try {
      this.parseItems(script, close)
    } finally {
      this.nesting--
    }
  }

  private parseItems(script: ParsedScript, close: string | undefined): void {
    let stage = 0
    let current: SimpleCommand | undefined
    let guard = 0
    while (this.pos < this.src.length && guard++ < 100_000) {
      const token = this.next()
      if (!token) break
      if (token.op !== undefined) {
        const op = token.op
        if (op === close) return
        if (op === '(') {
          // A subshell group, or `name ( )` of a function definition.
          if (current && current.argv.length === 1 && this.peekOp(')')) {
            this.next()
            this.readFunction(script, current.argv[0] as string)
            script.commands.pop()
            current = undefined
            continue
          }
          this.parseList(script, ')')
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
        if (target?.subs) current.substitutions.push(...target.subs)
        continue
      }
      const word = token.word ?? ''
      if (!current) {
        if (!token.quoted && word === close) return
        if (!token.quoted && (word === '{' || word === '}')) continue
        if (!token.quoted && PASS_THROUGH.has(word)) continue
        if (!token.quoted && (word === 'for' || word === 'case' || word === 'select')) {
          this.skipHeader()
          continue
        }
        if (!token.quoted && word.endsWith('()') && word.length > 2) {
          this.readFunction(script, word.slice(0, -2))
          continue
        }
      }
      current ??= this.open(script, stage)
      if (token.subs) current.substitutions.push(...token.subs)
      if (!token.quoted && current.argv.length === 0 && word.includes('=') && isAssignment(word)) {
        const at = word.indexOf('=')
        this.vars.set(word.slice(0, at), word.slice(at + 1))
        continue
      }
      if (!token.quoted && word.charCodeAt(0) === 123 && /^\{[^{}\s]*,[^{}\s]*\}$/.test(word))
        current.argv.push(...word.slice(1, -1).split(','))
      else current.argv.push(word)
    }
    if (current) this.finish(current)
  }

  private open(script: ParsedScript, stage: number): SimpleCommand {
    const command: SimpleCommand = {
      argv: [],
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
    if (command.argv[0] === 'export') {
      for (const word of command.argv.slice(1))
        if (isAssignment(word))
          this.vars.set(word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1))
    }
  }

  private readFunction(script: ParsedScript, name: string): void {
    const body: ParsedScript = { commands: [], functions: [] }
    this.skipBlank(true)
    const open = this.src[this.pos]
    if (open === '{' || open === '(') {
      this.pos++
      this.parseList(body, open === '{' ? '}' : ')')
    }
    script.functions.push({ name, body })
    script.commands.push(...body.commands)
  }

  private skipHeader(): void {
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]
      if (c === ';' || c === '\n') return
      this.pos++
    }
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
  private next(): Token | undefined {
    this.skipBlank(false)
    if (this.pos >= this.src.length) return undefined
    const src = this.src
    const c = src[this.pos] as string
    if (c === '#') {
      while (this.pos < src.length && src[this.pos] !== '\n') this.pos++
      return this.next()
    }
    if (c === '\n') {
      this.pos++
      this.readHeredocs()
      return { op: '\n' }
    }
    if ((c === '<' || c === '>') && src[this.pos + 1] === '(' && this.depth < SHELL_LIMITS.maxDepth) {
      this.pos += 2
      const inner: ParsedScript = { commands: [], functions: [] }
      new Reader(src, this.depth + 1, this.vars).parseInto(inner, this, ')')
      return { word: '/dev/fd/63', subs: [inner] }
    }
    const op = operatorAt(src, this.pos)
    if (op !== undefined) return this.op(op)
    return this.readWord()
  }

  /** Parses a nested list with this reader's position, then hands the position back. */
  parseInto(script: ParsedScript, outer: Reader, close: string): void {
    this.pos = outer.pos
    this.pipeline = outer.pipeline + 1000
    this.parseList(script, close)
    outer.pos = this.pos
  }

  private op(op: string): Token {
    this.pos += op.length
    return { op }
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

  private readWord(): Token {
    const src = this.src
    let value = ''
    let quoted = false
    let subs: ParsedScript[] | undefined
    const addSub = (script: ParsedScript) => {
      subs ??= []
      subs.push(script)
    }
    while (this.pos < src.length) {
      // A run of plain characters is taken in one slice.
      const start = this.pos
      while (this.pos < src.length && PLAIN[src.charCodeAt(this.pos)] === 1) this.pos++
      if (this.pos > start) {
        value += src.slice(start, this.pos)
        continue
      }
      const c = src[this.pos] as string
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || ';&|()<>'.includes(c)) {
        // `2>` and `2>&1`: the digits name a file descriptor, not a word.
        if ((c === '<' || c === '>') && /^\d+$/.test(value) && !quoted) return this.next() ?? { word: '' }
        break
      }
      if (c === '\\') {
        const n = src[this.pos + 1]
        this.pos += 2
        if (n !== undefined && n !== '\n') value += n
        quoted = true
      } else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1)
        const stop = end < 0 ? src.length : end
        value += src.slice(this.pos + 1, stop)
        this.pos = stop + 1
        quoted = true
      } else if (c === '"') {
        this.pos++
        value += this.readDoubleQuoted(addSub)
        quoted = true
      } else if (c === '`') {
        value += this.readBackticks(addSub)
      } else if (c === '$') {
        const expanded = this.readDollar(addSub, false)
        if (expanded === IFS_BREAK) break
        value += expanded
      } else {
        value += c
        this.pos++
      }
    }
    return subs ? { word: value, quoted, subs } : { word: value, quoted }
  }

  private readDoubleQuoted(addSub: (s: ParsedScript) => void): string {
    const src = this.src
    let value = ''
    while (this.pos < src.length) {
      const c = src[this.pos] as string
      if (c === '"') {
        this.pos++
        return value
      }
      if (c === '\\' && '$`"\\\n'.includes(src[this.pos + 1] ?? '')) {
        if (src[this.pos + 1] !== '\n') value += src[this.pos + 1]
        this.pos += 2
      } else if (c === '`') value += this.readBackticks(addSub)
      else if (c === '$') {
        const expanded = this.readDollar(addSub, true)
        value += expanded === IFS_BREAK ? ' ' : expanded
      } else {
        value += c
        this.pos++
      }
    }
    return value
  }

  private readBackticks(addSub: (s: ParsedScript) => void): string {
    const src = this.src
    let inner = ''
    this.pos++
    while (this.pos < src.length && src[this.pos] !== '`') {
      if (src[this.pos] === '\\' && '`$\\'.includes(src[this.pos + 1] ?? '')) this.pos++
      inner += src[this.pos]
      this.pos++
    }
    this.pos++
    if (this.depth >= SHELL_LIMITS.maxDepth) return ''
    const script = parseShell(inner, this.depth + 1, this.vars)
    addSub(script)
    return staticOutput(script)
  }

  private readDollar(addSub: (s: ParsedScript) => void, inQuotes: boolean): string | typeof IFS_BREAK {
    const src = this.src
    const n = src[this.pos + 1]
    if (n === "'" && !inQuotes) {
      const end = findAnsiEnd(src, this.pos + 2)
      const text = decodeAnsi(src.slice(this.pos + 2, end))
      this.pos = end + 1
      return text
    }
    if (n === '(' && src[this.pos + 2] === '(') {
      const end = src.indexOf('))', this.pos + 3)
      const stop = end < 0 ? src.length : end
      const text = src.slice(this.pos, stop + 2)
      this.pos = stop + 2
      return text
    }
    if (n === '(') {
      this.pos += 2
      if (this.depth >= SHELL_LIMITS.maxDepth) {
        this.pos = src.length
        return ''
      }
      const inner: ParsedScript = { commands: [], functions: [] }
      new Reader(src, this.depth + 1, this.vars).parseInto(inner, this, ')')
      addSub(inner)
      return staticOutput(inner)
    }
    let name: string
    let fallback: string | undefined
    if (n === '{') {
      const end = src.indexOf('}', this.pos + 2)
      const stop = end < 0 ? src.length : end
      const body = src.slice(this.pos + 2, stop)
      this.pos = stop + 1
      const match = /^([A-Za-z_][A-Za-z0-9_]*)(?::?[-=+?](.*))?$/s.exec(body)
      if (!match) return `\${${body}}`
      name = match[1] as string
      fallback = match[2]
    } else {
      const match = /^[A-Za-z_][A-Za-z0-9_]*|^[0-9@*#?$!-]/.exec(src.slice(this.pos + 1, this.pos + 129))
      if (!match) {
        this.pos++
        return '$'
      }
      name = match[0]
      this.pos += 1 + name.length
    }
    if (name === 'IFS' && !inQuotes) return IFS_BREAK
    const known = this.vars.get(name)
    if (known !== undefined) return known
    if (name === 'HOME') return '~'
    if (fallback !== undefined) return fallback
    return `$${name}`
  }
}
