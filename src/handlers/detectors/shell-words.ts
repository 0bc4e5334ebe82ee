// The word level of the shell reader: one word with its quotes removed (`'…'`, `"…"`,
// backslashes, `$'…'`), variables set earlier in the line expanded, `$(…)` and backticks read
// as scripts of their own (and their output used when it can be known without running them),
// and a note of every part whose value the reader could not know.

import { hasGlob } from './shell-glob.js'
import {
  decodeAnsi,
  findAnsiEnd,
  IFS_BREAK,
  type ParsedScript,
  PLAIN,
  reach,
  SHELL_LIMITS,
  type ShellReading,
  spend,
  staticOutput,
  unresolved,
} from './shell-syntax.js'

/** A variable set earlier in the line; `dynamic` when its value could not be known. */
export interface Variable {
  value: string
  dynamic: boolean
}

/** An operator or a word, as the reader hands them on. */
export interface Token {
  op?: string
  word?: string
  /** True when any part of the word was quoted (no brace or assignment handling). */
  quoted?: boolean
  /** True when the reader could not know the word's value. */
  dynamic?: boolean
  subs?: ParsedScript[]
}

/** Reads words of `src` from `pos`; the command level (shell-parse.ts) builds on it. */
export abstract class WordReader {
  pos = 0
  /** The substitutions of the word being read. */
  private wordSubs: ParsedScript[] | undefined
  /** True when part of the word being read could not be known. */
  private wordDynamic = false

  constructor(
    protected readonly src: string,
    protected readonly depth: number,
    protected readonly vars: Map<string, Variable>,
    protected readonly reading: ShellReading,
  ) {}

  /** The next operator or word, or undefined at the end. */
  protected abstract next(): Token | undefined
  /** A `$(…)` read in place one level deeper; undefined past the depth bound. */
  protected abstract nested(close: string): ParsedScript | undefined
  /** A backtick's text parsed one level deeper. */
  protected abstract parseText(text: string): ParsedScript

  /**
   * The substitutions inside `$(( … ))` or `${name:-…}` run too: their text is read as a
   * script one level deeper and its substitutions join the word's.
   */
  private readInside(text: string): void {
    if (!text.includes('$(') && !text.includes('`')) return
    for (const command of this.parseText(text).commands)
      for (const sub of command.substitutions) this.addSub(sub)
  }

  private addSub(script: ParsedScript): void {
    this.wordSubs ??= []
    this.wordSubs.push(script)
  }

  /** Stops reading: the rest of the text is skipped. */
  protected stop(): void {
    this.pos = this.src.length
  }

  /** Reads one word: quotes removed, what can be known expanded. */
  protected readWord(): Token {
    const src = this.src
    let value = ''
    let quoted = false
    this.wordSubs = undefined
    this.wordDynamic = false
    while (this.pos < src.length) {
      // A run of plain characters is taken in one slice.
      const start = this.pos
      while (this.pos < src.length && PLAIN[src.charCodeAt(this.pos)] === 1) this.pos++
      if (this.pos > start) {
        const run = src.slice(start, this.pos)
        if (hasGlob(run)) this.wordDynamic = true
        value += run
        continue
      }
      const c = src[this.pos] as string
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || ';&|()<>'.includes(c)) {
        // `2>` and `2>&1`: the digits name a file descriptor, not a word.
        if ((c === '<' || c === '>') && !quoted && value.length < 4 && /^\d+$/.test(value))
          return this.next() ?? { word: '' }
        break
      }
      if (c === '\\') {
        const n = src[this.pos + 1]
        this.pos += 2
        if (n !== undefined && n !== '\n') value += n
        quoted = true
      } else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1)
        if (end < 0) unresolved(this.reading, 'an unterminated single quote')
        const stop = end < 0 ? src.length : end
        value += src.slice(this.pos + 1, stop)
        this.pos = stop + 1
        quoted = true
      } else if (c === '"') {
        this.pos++
        value += this.readDoubleQuoted()
        quoted = true
      } else if (c === '`') {
        value += this.readBackticks()
      } else if (c === '$') {
        const expanded = this.readDollar(false)
        if (expanded === IFS_BREAK) break
        value += expanded
      } else {
        value += c
        this.pos++
      }
    }
    const token: Token = { word: value, quoted }
    if (this.wordDynamic) token.dynamic = true
    if (this.wordSubs) token.subs = this.wordSubs
    return token
  }

  protected readDoubleQuoted(): string {
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
      } else if (c === '`') value += this.readBackticks()
      else if (c === '$') {
        const expanded = this.readDollar(true)
        value += expanded === IFS_BREAK ? ' ' : expanded
      } else {
        const start = this.pos
        while (this.pos < src.length && !'"\\`$'.includes(src[this.pos] as string)) this.pos++
        value += src.slice(start, Math.max(this.pos, start + 1))
        if (this.pos === start) this.pos++
      }
    }
    unresolved(this.reading, 'an unterminated double quote')
    return value
  }

  protected readBackticks(): string {
    const src = this.src
    let inner = ''
    this.pos++
    while (this.pos < src.length && src[this.pos] !== '`') {
      if (src[this.pos] === '\\' && '`$\\'.includes(src[this.pos + 1] ?? '')) this.pos++
      inner += src[this.pos] ?? ''
      this.pos++
    }
    if (this.pos >= src.length) unresolved(this.reading, 'an unterminated backtick')
    this.pos++
    if (this.depth >= SHELL_LIMITS.maxDepth) {
      reach(this.reading, 'depth')
      this.stop()
      this.wordDynamic = true
      return ''
    }
    const script = this.parseText(inner)
    this.addSub(script)
    return this.output(script)
  }

  /** What a substitution prints, when it can be known (else empty and the word is dynamic). */
  protected output(script: ParsedScript): string {
    const out = staticOutput(script)
    if (out === undefined) {
      this.wordDynamic = true
      return ''
    }
    return spend(this.reading, out.length) ? out : ''
  }

  protected readDollar(inQuotes: boolean): string | typeof IFS_BREAK {
    const src = this.src
    const n = src[this.pos + 1]
    if (n === "'" && !inQuotes) {
      const end = findAnsiEnd(src, this.pos + 2)
      if (end >= src.length) unresolved(this.reading, "an unterminated $'…'")
      const text = decodeAnsi(src.slice(this.pos + 2, end))
      this.pos = end + 1
      return text
    }
    if (n === '(' && src[this.pos + 2] === '(') {
      const end = src.indexOf('))', this.pos + 3)
      const stop = end < 0 ? src.length : end
      const text = src.slice(this.pos, stop + 2)
      this.readInside(src.slice(this.pos + 3, stop))
      this.pos = stop + 2
      this.wordDynamic = true
      return text
    }
    if (n === '(') {
      this.pos += 2
      const inner = this.nested(')')
      if (!inner) {
        this.wordDynamic = true
        return ''
      }
      this.addSub(inner)
      return this.output(inner)
    }
    let name: string
    let fallback: string | undefined
    if (n === '{') {
      const end = src.indexOf('}', this.pos + 2)
      if (end < 0) unresolved(this.reading, 'an unterminated ${')
      const stop = end < 0 ? src.length : end
      const body = src.slice(this.pos + 2, stop)
      this.pos = stop + 1
      this.readInside(body)
      const match = /^([A-Za-z_][A-Za-z0-9_]*)(?::?[-=+?](.*))?$/s.exec(body)
      if (!match) {
        this.wordDynamic = true
        return `\${${body}}`
      }
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
    if (known !== undefined) {
      if (!spend(this.reading, known.value.length)) {
        this.stop()
        return ''
      }
      if (known.dynamic) this.wordDynamic = true
      return known.value
    }
    if (name === 'HOME') return '~'
    if (fallback !== undefined) {
      this.wordDynamic = true
      return fallback
    }
    this.wordDynamic = true
    return `$${name}`
  }
}
