// Statement parser: a recursive-descent parser from tokens to the syntax tree (ast.ts),
// following the grammar of the Starlark specification. Statements are parsed here;
// expressions in expressions.ts, which this parser extends.

import { DEFAULT_LIMITS } from '../base/index.js'
import { tokenize } from '../lexer/index.js'
import type { AssignStmt, DefStmt, Expr, FileNode, ForStmt, IfStmt, Stmt } from './ast.js'
import { isAssignmentOperator } from './cursor.js'
import { ExpressionParser } from './expressions.js'

/** Parses a Starlark file; throws a syntax StarlarkError with position on failure. */
export function parseFile(
  source: string,
  file: string,
  maxNestingDepth = DEFAULT_LIMITS.maxNestingDepth,
): FileNode {
  const parser = new Parser(tokenize(source, file), file, maxNestingDepth)
  return { file, body: parser.parseFileBody() }
}

/** Parses a single expression (e.g. a hook's `when:` condition). */
export function parseExpression(
  source: string,
  file: string,
  maxNestingDepth = DEFAULT_LIMITS.maxNestingDepth,
): Expr {
  const parser = new Parser(tokenize(source, file), file, maxNestingDepth)
  return parser.parseStandaloneExpression()
}

class Parser extends ExpressionParser {
  parseFileBody(): Stmt[] {
    const body: Stmt[] = []
    while (this.cur().type !== 'eof') {
      if (this.cur().type === 'newline') {
        this.index++
        continue
      }
      this.parseStatement(body)
    }
    return body
  }

  parseStandaloneExpression(): Expr {
    while (this.cur().type === 'newline') this.index++
    const expr = this.parseExpression()
    while (this.cur().type === 'newline') this.index++
    if (this.cur().type !== 'eof')
      throw this.error(`unexpected ${this.describe(this.cur())} after expression`)
    return expr
  }

  protected parseStatement(out: Stmt[]): void {
    const t = this.cur()
    if (t.type === 'indent') throw this.error('unexpected indentation')
    if (t.type === 'keyword') {
      switch (t.value) {
        case 'def':
          out.push(this.parseDef())
          return
        case 'if':
          out.push(this.parseIf())
          return
        case 'for':
          out.push(this.parseFor())
          return
        case 'while':
          throw this.error('while loops are not allowed in Starlark; use a for loop over a bounded range')
        case 'load':
          throw this.error(
            'load is not supported: Warden scripts are single files and cannot load other modules',
          )
      }
    }
    this.parseSimpleStatement(out)
  }

  protected parseSimpleStatement(out: Stmt[]): void {
    for (;;) {
      out.push(this.parseSmallStatement())
      if (!this.accept(';')) break
      if (this.cur().type === 'newline' || this.cur().type === 'eof') break
    }
    if (this.cur().type === 'eof') return
    this.expectType('newline', 'newline')
  }

  protected parseSmallStatement(): Stmt {
    const t = this.cur()
    const pos = { line: t.line, col: t.col }
    if (t.type === 'keyword') {
      switch (t.value) {
        case 'return': {
          this.index++
          const end = this.cur().type === 'newline' || this.cur().type === 'eof' || this.is(';')
          return { kind: 'return', value: end ? null : this.parseExpression(), ...pos }
        }
        case 'break':
        case 'continue':
        case 'pass':
          this.index++
          return { kind: t.value, ...pos }
        case 'load':
          throw this.error(
            'load is not supported: Warden scripts are single files and cannot load other modules',
          )
        case 'while':
          throw this.error('while loops are not allowed in Starlark; use a for loop over a bounded range')
      }
    }
    const expr = this.parseExpression()
    const op = this.cur()
    if (op.type === 'op' && isAssignmentOperator(op.value)) {
      this.index++
      this.checkAssignable(expr, op.value !== '=')
      const value = this.parseExpression()
      return {
        kind: 'assign',
        op: op.value as AssignStmt['op'],
        target: expr,
        value,
        line: op.line,
        col: op.col,
      }
    }
    return { kind: 'expr', expr, ...pos }
  }

  protected parseSuite(): Stmt[] {
    this.expect(':')
    if (this.cur().type !== 'newline') {
      const body: Stmt[] = []
      this.parseSimpleStatement(body)
      return body
    }
    this.index++
    this.expectType('indent', 'an indented block')
    this.enter()
    const body: Stmt[] = []
    while (this.cur().type !== 'outdent' && this.cur().type !== 'eof') {
      if (this.cur().type === 'newline') {
        this.index++
        continue
      }
      this.parseStatement(body)
    }
    this.depth--
    if (this.cur().type === 'outdent') this.index++
    return body
  }

  protected parseDef(): DefStmt {
    const start = this.expect('def')
    const name = this.expectType('ident', 'function name').value
    this.expect('(')
    const params = this.parseParams(')')
    this.expect(')')
    const body = this.parseSuite()
    return { kind: 'def', name, params, body, line: start.line, col: start.col }
  }

  protected parseIf(): IfStmt {
    const start = this.cur()
    this.index++
    const condition = this.parseTest()
    const body = this.parseSuite()
    let orelse: Stmt[] = []
    if (this.is('elif')) {
      orelse = [this.parseIf()]
    } else if (this.accept('else')) {
      orelse = this.parseSuite()
    }
    return { kind: 'if', condition, body, orelse, line: start.line, col: start.col }
  }

  protected parseFor(): ForStmt {
    const start = this.expect('for')
    const target = this.parseLoopVariables()
    this.expect('in')
    const iterable = this.parseExpression()
    const body = this.parseSuite()
    return { kind: 'for', target, iterable, body, line: start.line, col: start.col }
  }
}
