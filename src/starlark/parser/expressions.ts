// Expression parser: the recursive-descent grammar of Starlark expressions (operators by
// precedence, calls, indexing, slices, comprehensions, lambda) and parameter lists, with
// bounded nesting depth. The statement parser in statements.ts extends it.

import type { Token } from '../lexer/index.js'
import { Float } from '../values/index.js'
import type { Argument, BinaryOp, CompClause, Expr, Param } from './ast.js'
import { AUGMENTED, TokenCursor } from './cursor.js'

const COMPARISON = new Set(['==', '!=', '<', '<=', '>', '>='])

/** Parses expressions from a token list; subclassed by the statement parser. */
export class ExpressionParser extends TokenCursor {
  protected parseParams(end: string): Param[] {
    const params: Param[] = []
    const seen = new Set<string>()
    let sawStar = false
    let sawKwargs = false
    let sawDefault = false
    while (!this.is(end)) {
      const t = this.cur()
      if (sawKwargs) throw this.error('parameters may not follow **kwargs')
      let param: Param
      if (this.accept('**')) {
        param = {
          kind: 'starstar',
          name: this.expectType('ident', 'parameter name').value,
          line: t.line,
          col: t.col,
        }
        sawKwargs = true
      } else if (this.accept('*')) {
        if (sawStar) throw this.error('multiple * parameters not allowed', t)
        sawStar = true
        if (this.cur().type === 'ident') {
          param = {
            kind: 'star',
            name: this.expectType('ident', 'parameter name').value,
            line: t.line,
            col: t.col,
          }
        } else {
          param = { kind: 'starmarker', name: '*', line: t.line, col: t.col }
        }
      } else {
        const name = this.expectType('ident', 'parameter name').value
        if (this.accept('=')) {
          param = { kind: 'default', name, defaultValue: this.parseTest(), line: t.line, col: t.col }
          sawDefault = true
        } else {
          if (sawDefault && !sawStar) {
            throw this.error(`required parameter ${name} may not follow a parameter with a default`, t)
          }
          param = { kind: 'plain', name, line: t.line, col: t.col }
        }
      }
      if (param.kind !== 'starmarker') {
        if (seen.has(param.name)) throw this.error(`duplicate parameter: ${param.name}`, t)
        seen.add(param.name)
      }
      params.push(param)
      if (!this.accept(',')) break
    }
    const last = params[params.length - 1]
    if (last?.kind === 'starmarker') throw this.error('bare * must be followed by keyword-only parameters')
    return params
  }

  protected parseLoopVariables(): Expr {
    const first = this.parsePrimaryWithSuffix()
    if (!this.is(',')) {
      this.checkAssignable(first, false)
      return first
    }
    const elements = [first]
    while (this.accept(',')) {
      if (this.is('in')) break
      elements.push(this.parsePrimaryWithSuffix())
    }
    const tuple: Expr = { kind: 'tuple', elements, line: first.line, col: first.col }
    this.checkAssignable(tuple, false)
    return tuple
  }

  /** Expression = Test {',' Test} — a bare comma list is a tuple. */
  parseExpression(): Expr {
    const first = this.parseTest()
    if (!this.is(',')) return first
    const elements = [first]
    while (this.accept(',')) {
      if (this.isExpressionEnd()) break
      elements.push(this.parseTest())
    }
    return { kind: 'tuple', elements, line: first.line, col: first.col }
  }

  protected isExpressionEnd(): boolean {
    const t = this.cur()
    if (t.type === 'newline' || t.type === 'eof' || t.type === 'outdent') return true
    return (
      t.type === 'op' &&
      (t.value === ')' ||
        t.value === ']' ||
        t.value === '}' ||
        t.value === ';' ||
        AUGMENTED.has(t.value) ||
        t.value === ':')
    )
  }

  protected parseTest(): Expr {
    this.enter()
    try {
      if (this.is('lambda')) return this.parseLambda()
      const value = this.parseOr()
      if (this.is('if')) {
        const t = this.cur()
        this.index++
        const condition = this.parseOr()
        this.expect('else')
        const otherwise = this.parseTest()
        return { kind: 'cond', condition, whenTrue: value, otherwise, line: t.line, col: t.col }
      }
      return value
    } finally {
      this.depth--
    }
  }

  protected parseLambda(): Expr {
    const start = this.expect('lambda')
    const params = this.parseParams(':')
    this.expect(':')
    const body = this.parseTest()
    return { kind: 'lambda', params, body, line: start.line, col: start.col }
  }

  protected parseOr(): Expr {
    let left = this.parseAnd()
    while (this.is('or')) {
      const t = this.cur()
      this.index++
      left = { kind: 'binary', op: 'or', left, right: this.parseAnd(), line: t.line, col: t.col }
    }
    return left
  }

  protected parseAnd(): Expr {
    let left = this.parseNot()
    while (this.is('and')) {
      const t = this.cur()
      this.index++
      left = { kind: 'binary', op: 'and', left, right: this.parseNot(), line: t.line, col: t.col }
    }
    return left
  }

  protected parseNot(): Expr {
    if (this.is('not')) {
      const t = this.cur()
      this.index++
      this.enter()
      const operand = this.parseNot()
      this.depth--
      return { kind: 'unary', op: 'not', operand, line: t.line, col: t.col }
    }
    return this.parseComparison()
  }

  protected comparisonOp(): BinaryOp | null {
    const t = this.cur()
    if (t.type === 'op' && COMPARISON.has(t.value)) return t.value as BinaryOp
    if (t.type === 'keyword') {
      if (t.value === 'in') return 'in'
      if (t.value === 'not' && this.peek().type === 'keyword' && this.peek().value === 'in') return 'not in'
    }
    return null
  }

  protected parseComparison(): Expr {
    const left = this.parseBinary(0)
    const op = this.comparisonOp()
    if (op === null) return left
    const t = this.cur()
    this.index += op === 'not in' ? 2 : 1
    const right = this.parseBinary(0)
    if (this.comparisonOp() !== null) {
      throw this.error('comparison operators are not associative; use "and" to combine comparisons')
    }
    return { kind: 'binary', op, left, right, line: t.line, col: t.col }
  }

  private static readonly LEVELS: string[][] = [
    ['|'],
    ['^'],
    ['&'],
    ['<<', '>>'],
    ['+', '-'],
    ['*', '/', '//', '%'],
  ]

  protected parseBinary(level: number): Expr {
    if (level >= ExpressionParser.LEVELS.length) return this.parseUnary()
    const ops = ExpressionParser.LEVELS[level]!
    let left = this.parseBinary(level + 1)
    for (;;) {
      const t = this.cur()
      if (t.type === 'op' && t.value === '**')
        throw this.error('the ** operator is not supported in Starlark')
      if (t.type !== 'op' || !ops.includes(t.value)) return left
      this.index++
      const right = this.parseBinary(level + 1)
      left = { kind: 'binary', op: t.value as BinaryOp, left, right, line: t.line, col: t.col }
    }
  }

  protected parseUnary(): Expr {
    const t = this.cur()
    if (t.type === 'op' && (t.value === '-' || t.value === '+' || t.value === '~')) {
      this.index++
      this.enter()
      const operand = this.parseUnary()
      this.depth--
      return { kind: 'unary', op: t.value, operand, line: t.line, col: t.col }
    }
    return this.parsePrimaryWithSuffix()
  }

  protected parsePrimaryWithSuffix(): Expr {
    let expr = this.parseOperand()
    for (;;) {
      const t = this.cur()
      if (t.type !== 'op') return expr
      if (t.value === '.') {
        this.index++
        const name = this.expectType('ident', 'attribute name').value
        expr = { kind: 'dot', object: expr, name, line: t.line, col: t.col }
      } else if (t.value === '(') {
        this.index++
        const args = this.parseArguments()
        this.expect(')')
        const at = expr.kind === 'name' ? expr : t
        expr = { kind: 'call', callee: expr, args, line: at.line, col: at.col }
      } else if (t.value === '[') {
        this.index++
        expr = this.parseIndexOrSlice(expr, t)
      } else {
        return expr
      }
    }
  }

  protected parseIndexOrSlice(object: Expr, t: Token): Expr {
    let start: Expr | null = null
    if (!this.is(':')) {
      const index = this.parseExpression()
      if (this.accept(']')) return { kind: 'index', object, index, line: t.line, col: t.col }
      start = index
    }
    this.expect(':')
    const stop = this.is(':') || this.is(']') ? null : this.parseTest()
    let step: Expr | null = null
    if (this.accept(':')) step = this.is(']') ? null : this.parseTest()
    this.expect(']')
    return { kind: 'slice', object, start, stop, step, line: t.line, col: t.col }
  }

  protected parseArguments(): Argument[] {
    const args: Argument[] = []
    const names = new Set<string>()
    while (!this.is(')')) {
      const t = this.cur()
      let arg: Argument
      if (this.accept('**')) {
        arg = { kind: 'starstar', value: this.parseTest(), line: t.line, col: t.col }
      } else if (this.accept('*')) {
        arg = { kind: 'star', value: this.parseTest(), line: t.line, col: t.col }
      } else if (t.type === 'ident' && this.peek().type === 'op' && this.peek().value === '=') {
        this.index += 2
        if (names.has(t.value)) throw this.error(`keyword argument ${t.value} repeated`, t)
        names.add(t.value)
        arg = { kind: 'named', name: t.value, value: this.parseTest(), line: t.line, col: t.col }
      } else {
        arg = { kind: 'positional', value: this.parseTest(), line: t.line, col: t.col }
        if (args.some((a) => a.kind !== 'positional')) {
          throw this.error('positional argument may not follow named arguments', t)
        }
      }
      args.push(arg)
      if (!this.accept(',')) break
    }
    return args
  }

  protected parseOperand(): Expr {
    const t = this.cur()
    const pos = { line: t.line, col: t.col }
    switch (t.type) {
      case 'ident':
        this.index++
        return { kind: 'name', name: t.value, ...pos }
      case 'int':
        this.index++
        return { kind: 'literal', value: t.num!, ...pos }
      case 'float':
        this.index++
        return { kind: 'literal', value: new Float(t.num as number), ...pos }
      case 'string':
        this.index++
        return { kind: 'literal', value: t.value, ...pos }
      case 'op':
        if (t.value === '(') return this.parseParenthesized()
        if (t.value === '[') return this.parseListDisplay()
        if (t.value === '{') return this.parseDictDisplay()
        break
    }
    throw this.error(`got ${this.describe(t)}, want primary expression`)
  }

  protected parseParenthesized(): Expr {
    const t = this.expect('(')
    if (this.accept(')')) {
      return { kind: 'tuple', elements: [], line: t.line, col: t.col }
    }
    const first = this.parseTest()
    if (this.accept(')')) {
      return first
    }
    const elements = [first]
    while (this.accept(',')) {
      if (this.is(')')) break
      elements.push(this.parseTest())
    }
    this.expect(')')
    return { kind: 'tuple', elements, line: t.line, col: t.col }
  }

  protected parseListDisplay(): Expr {
    const t = this.expect('[')
    const elements: Expr[] = []
    if (!this.is(']')) {
      const first = this.parseTest()
      if (this.is('for')) {
        const clauses = this.parseClauses()
        this.expect(']')
        return { kind: 'listcomp', element: first, clauses, line: t.line, col: t.col }
      }
      elements.push(first)
      while (this.accept(',')) {
        if (this.is(']')) break
        elements.push(this.parseTest())
      }
    }
    this.expect(']')
    return { kind: 'list', elements, line: t.line, col: t.col }
  }

  protected parseDictDisplay(): Expr {
    const t = this.expect('{')
    const entries: { key: Expr; value: Expr }[] = []
    if (!this.is('}')) {
      const key = this.parseTest()
      this.expect(':')
      const value = this.parseTest()
      if (this.is('for')) {
        const clauses = this.parseClauses()
        this.expect('}')
        return { kind: 'dictcomp', key, value, clauses, line: t.line, col: t.col }
      }
      entries.push({ key, value })
      while (this.accept(',')) {
        if (this.is('}')) break
        const k = this.parseTest()
        this.expect(':')
        entries.push({ key: k, value: this.parseTest() })
      }
    }
    this.expect('}')
    return { kind: 'dict', entries, line: t.line, col: t.col }
  }

  protected parseClauses(): CompClause[] {
    const clauses: CompClause[] = []
    for (;;) {
      const t = this.cur()
      if (this.accept('for')) {
        const target = this.parseLoopVariables()
        this.expect('in')
        const iterable = this.parseOr()
        clauses.push({ kind: 'for', target, iterable, line: t.line, col: t.col })
      } else if (this.accept('if')) {
        clauses.push({ kind: 'if', condition: this.parseOr(), line: t.line, col: t.col })
      } else {
        return clauses
      }
    }
  }
}
