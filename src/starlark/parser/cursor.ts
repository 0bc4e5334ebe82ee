// Token cursor under the parsers: reading, matching and expecting tokens, syntax errors
// at a token, the nesting-depth limit, and the check that an expression can be assigned to.

import { limitError, type StarlarkError, syntaxError } from '../base/index.js'
import type { Token } from '../lexer/index.js'
import type { Expr } from './ast.js'

/** Assignment operators: plain `=` and the augmented ones. */
export const AUGMENTED = new Set(['=', '+=', '-=', '*=', '/=', '//=', '%=', '&=', '|=', '^=', '<<=', '>>='])

/** Operators that end an expression statement and start an assignment. */
export function isAssignmentOperator(value: string): boolean {
  return AUGMENTED.has(value)
}
/** Token-level helpers shared by the expression and statement parsers. */
export class TokenCursor {
  protected index = 0
  protected depth = 0

  constructor(
    protected readonly tokens: Token[],
    protected readonly file: string,
    protected readonly maxDepth: number,
  ) {}

  protected cur(): Token {
    return this.tokens[this.index]!
  }

  protected peek(offset = 1): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!
  }

  protected error(message: string, token: Token = this.cur()): StarlarkError {
    return syntaxError(message, this.file, token.line, token.col)
  }

  protected describe(token: Token): string {
    switch (token.type) {
      case 'newline':
        return 'newline'
      case 'indent':
        return 'indentation'
      case 'outdent':
        return 'outdent'
      case 'eof':
        return 'end of file'
      case 'string':
        return 'string literal'
      default:
        return `"${token.value}"`
    }
  }

  protected is(value: string): boolean {
    const t = this.cur()
    return (t.type === 'op' || t.type === 'keyword') && t.value === value
  }

  protected accept(value: string): boolean {
    if (this.is(value)) {
      this.index++
      return true
    }
    return false
  }

  protected expect(value: string): Token {
    const t = this.cur()
    if (!this.is(value)) throw this.error(`got ${this.describe(t)}, want "${value}"`)
    this.index++
    return t
  }

  protected expectType(type: Token['type'], what: string): Token {
    const t = this.cur()
    if (t.type !== type) throw this.error(`got ${this.describe(t)}, want ${what}`)
    this.index++
    return t
  }

  protected enter(): void {
    if (++this.depth > this.maxDepth) {
      const t = this.cur()
      throw limitError(`nesting too deep (limit maxNestingDepth = ${this.maxDepth})`).at(
        this.file,
        t.line,
        t.col,
      )
    }
  }

  protected checkAssignable(expr: Expr, augmented: boolean): void {
    switch (expr.kind) {
      case 'name':
      case 'index':
        return
      case 'dot':
        throw syntaxError('cannot assign to a field of a value', this.file, expr.line, expr.col)
      case 'tuple':
      case 'list':
        if (augmented) {
          throw syntaxError(
            `cannot use augmented assignment on a ${expr.kind}`,
            this.file,
            expr.line,
            expr.col,
          )
        }
        for (const element of expr.elements) this.checkAssignable(element, false)
        return
      default:
        throw syntaxError(`cannot assign to ${expr.kind} expression`, this.file, expr.line, expr.col)
    }
  }
}
