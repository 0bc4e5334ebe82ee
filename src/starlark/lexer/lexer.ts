// Lexer: turns Starlark source text into tokens, including the INDENT / OUTDENT / NEWLINE
// tokens that carry the block structure, with line and column of every token.

import { syntaxError } from '../base/index.js'
import { KEYWORDS, OPERATORS, RESERVED, SIMPLE_ESCAPES, type Token, type TokenType } from './tokens.js'

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c > '\x7f'
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9')
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9'
}

/** Parses an integer literal's digits in a base into a number, or a bigint when unsafe. */
export function parseIntDigits(digits: string, base: number): number | bigint {
  const quick = Number.parseInt(digits, base)
  if (Number.isSafeInteger(quick)) return quick
  const prefix = base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : ''
  const big = BigInt(prefix + digits)
  return big
}

/** Splits Starlark source into tokens; throws a syntax StarlarkError on bad input. */
export function tokenize(source: string, file: string): Token[] {
  const tokens: Token[] = []
  const indents: number[] = [0]
  let pos = 0
  let line = 1
  let lineStart = 0
  let depth = 0
  let atLineStart = true
  const n = source.length
  const fail = (msg: string, at = pos): never => {
    throw syntaxError(msg, file, line, at - lineStart + 1)
  }
  const push = (type: TokenType, value: string, start: number, num?: number | bigint): void => {
    const token: Token = { type, value, line, col: start - lineStart + 1 }
    if (num !== undefined) token.num = num
    tokens.push(token)
  }

  while (pos < n) {
    if (atLineStart) {
      atLineStart = false
      let width = 0
      let p = pos
      while (p < n && (source[p] === ' ' || source[p] === '\t')) {
        width = source[p] === '\t' ? width + 8 - (width % 8) : width + 1
        p++
      }
      const c = source[p]
      if (p >= n || c === '\n' || c === '#' || (c === '\r' && source[p + 1] === '\n')) {
        pos = p
      } else {
        pos = p
        const top = indents[indents.length - 1]!
        if (width > top) {
          indents.push(width)
          push('indent', '', pos)
        } else if (width < top) {
          while (width < indents[indents.length - 1]!) {
            indents.pop()
            push('outdent', '', pos)
          }
          if (width !== indents[indents.length - 1])
            fail('unindent does not match any outer indentation level')
        }
      }
      continue
    }
    const c = source[pos]!
    if (c === '\n') {
      if (depth === 0 && tokens.length > 0 && tokens[tokens.length - 1]!.type !== 'newline') {
        push('newline', '', pos)
      }
      pos++
      line++
      lineStart = pos
      if (depth === 0) atLineStart = true
      continue
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      pos++
      continue
    }
    if (c === '#') {
      while (pos < n && source[pos] !== '\n') pos++
      continue
    }
    if (c === '\\') {
      if (source[pos + 1] === '\n') {
        pos += 2
        line++
        lineStart = pos
        continue
      }
      if (source[pos + 1] === '\r' && source[pos + 2] === '\n') {
        pos += 3
        line++
        lineStart = pos
        continue
      }
      fail('unexpected backslash: only allowed at the end of a line')
    }
    const start = pos
    if (isIdentStart(c)) {
      if (
        (c === 'r' || c === 'R' || c === 'b' || c === 'B') &&
        (source[pos + 1] === '"' || source[pos + 1] === "'")
      ) {
        if (c === 'b' || c === 'B') fail('bytes literals are not supported')
        pos++
        const startLine = line
        const startCol = start - lineStart + 1
        const value = readString(true)
        tokens.push({ type: 'string', value, line: startLine, col: startCol })
        continue
      }
      while (pos < n && isIdentPart(source[pos]!)) pos++
      const word = source.slice(start, pos)
      if (RESERVED.has(word)) fail(`"${word}" is a reserved word and cannot be used in Starlark`, start)
      push(KEYWORDS.has(word) ? 'keyword' : 'ident', word, start)
      continue
    }
    if (isDigit(c) || (c === '.' && isDigit(source[pos + 1] ?? ''))) {
      readNumber(start)
      continue
    }
    if (c === '"' || c === "'") {
      const startLine = line
      const startCol = start - lineStart + 1
      const value = readString(false)
      tokens.push({ type: 'string', value, line: startLine, col: startCol })
      continue
    }
    let matched = ''
    for (const op of OPERATORS) {
      if (source.startsWith(op, pos)) {
        matched = op
        break
      }
    }
    if (matched === '') fail(`unexpected character ${JSON.stringify(c)}`)
    if (matched === '(' || matched === '[' || matched === '{') depth++
    else if (matched === ')' || matched === ']' || matched === '}') depth = Math.max(0, depth - 1)
    push('op', matched, start)
    pos += matched.length
  }
  if (tokens.length > 0 && tokens[tokens.length - 1]!.type !== 'newline') push('newline', '', pos)
  while (indents.length > 1) {
    indents.pop()
    push('outdent', '', pos)
  }
  push('eof', '', pos)
  return tokens

  function readNumber(start: number): void {
    const c = source[pos]!
    if (c === '0' && /[xXoObB]/.test(source[pos + 1] ?? '')) {
      const kind = source[pos + 1]!.toLowerCase()
      const base = kind === 'x' ? 16 : kind === 'o' ? 8 : 2
      pos += 2
      const digitsStart = pos
      const valid = base === 16 ? /[0-9a-fA-F]/ : base === 8 ? /[0-7]/ : /[01]/
      while (pos < n && valid.test(source[pos]!)) pos++
      if (pos === digitsStart) fail('invalid integer literal', start)
      if (pos < n && isIdentPart(source[pos]!)) fail('invalid digit in integer literal', pos)
      push('int', source.slice(start, pos), start, parseIntDigits(source.slice(digitsStart, pos), base))
      return
    }
    while (pos < n && isDigit(source[pos]!)) pos++
    let isFloat = false
    if (source[pos] === '.') {
      isFloat = true
      pos++
      while (pos < n && isDigit(source[pos]!)) pos++
    }
    if (source[pos] === 'e' || source[pos] === 'E') {
      let p = pos + 1
      if (source[p] === '+' || source[p] === '-') p++
      if (!isDigit(source[p] ?? '')) fail('invalid float literal: missing exponent digits', pos)
      isFloat = true
      pos = p
      while (pos < n && isDigit(source[pos]!)) pos++
    }
    if (pos < n && isIdentStart(source[pos]!)) fail('invalid character in number literal', pos)
    const text = source.slice(start, pos)
    if (isFloat) {
      push('float', text, start, Number(text))
      return
    }
    if (text.length > 1 && text[0] === '0' && /[1-9]/.test(text)) {
      fail('invalid int literal: leading zeros are not allowed (use 0o for octal)', start)
    }
    push('int', text, start, parseIntDigits(text, 10))
  }

  function readString(raw: boolean): string {
    const quote = source[pos]!
    const triple = source[pos + 1] === quote && source[pos + 2] === quote
    const openLine = line
    const openCol = pos - lineStart + 1
    pos += triple ? 3 : 1
    let out = ''
    for (;;) {
      if (pos >= n) {
        throw syntaxError('unterminated string literal', file, openLine, openCol)
      }
      const ch = source[pos]!
      if (ch === quote) {
        if (!triple) {
          pos++
          return out
        }
        if (source[pos + 1] === quote && source[pos + 2] === quote) {
          pos += 3
          return out
        }
        out += ch
        pos++
        continue
      }
      if (ch === '\n') {
        if (!triple) throw syntaxError('unterminated string literal', file, openLine, openCol)
        out += ch
        pos++
        line++
        lineStart = pos
        continue
      }
      if (ch !== '\\') {
        out += ch
        pos++
        continue
      }
      const next = source[pos + 1] ?? ''
      if (next === '\n') {
        if (raw) out += '\\\n'
        pos += 2
        line++
        lineStart = pos
        continue
      }
      if (raw) {
        out += next === quote || next === '\\' ? `\\${next}` : '\\'
        pos += next === quote || next === '\\' ? 2 : 1
        continue
      }
      const simple = SIMPLE_ESCAPES[next]
      if (simple !== undefined) {
        out += simple
        pos += 2
        continue
      }
      if (next >= '0' && next <= '7') {
        let p = pos + 1
        let digits = ''
        while (digits.length < 3 && source[p]! >= '0' && source[p]! <= '7') digits += source[p++]
        const code = Number.parseInt(digits, 8)
        if (code > 127) fail('non-ASCII octal escape; use \\u', pos)
        out += String.fromCharCode(code)
        pos = p
        continue
      }
      if (next === 'x' || next === 'u' || next === 'U') {
        const len = next === 'x' ? 2 : next === 'u' ? 4 : 8
        const hex = source.slice(pos + 2, pos + 2 + len)
        if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) fail(`invalid \\${next} escape`, pos)
        const code = Number.parseInt(hex, 16)
        if (next === 'x' && code > 127) fail('non-ASCII \\x escape; use \\u', pos)
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
          fail('invalid Unicode code point in escape', pos)
        out += String.fromCodePoint(code)
        pos += 2 + len
        continue
      }
      fail(`invalid escape sequence \\${next}`, pos)
    }
  }
}
