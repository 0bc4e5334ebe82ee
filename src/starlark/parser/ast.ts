// Syntax tree of a Starlark file: expression and statement nodes produced by the parser
// and consumed by the compiler. Every node carries its 1-based line and column.

import type { Pos } from '../base/index.js'
import type { Float } from '../values/index.js'

/** A literal constant: int (number or bigint), float or string. */
export interface LiteralExpr extends Pos {
  kind: 'literal'
  value: number | bigint | string | Float
}

export interface NameExpr extends Pos {
  kind: 'name'
  name: string
}

export interface ListExpr extends Pos {
  kind: 'list'
  elements: Expr[]
}

export interface TupleExpr extends Pos {
  kind: 'tuple'
  elements: Expr[]
}

export interface DictExpr extends Pos {
  kind: 'dict'
  entries: { key: Expr; value: Expr }[]
}

/** A `for` or `if` clause of a comprehension. */
export type CompClause =
  | { kind: 'for'; target: Expr; iterable: Expr; line: number; col: number }
  | { kind: 'if'; condition: Expr; line: number; col: number }

export interface ListCompExpr extends Pos {
  kind: 'listcomp'
  element: Expr
  clauses: CompClause[]
}

export interface DictCompExpr extends Pos {
  kind: 'dictcomp'
  key: Expr
  value: Expr
  clauses: CompClause[]
}

export type UnaryOp = '-' | '+' | '~' | 'not'

export interface UnaryExpr extends Pos {
  kind: 'unary'
  op: UnaryOp
  operand: Expr
}

export type BinaryOp =
  | '+'
  | '-'
  | '*'
  | '/'
  | '//'
  | '%'
  | '&'
  | '|'
  | '^'
  | '<<'
  | '>>'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'in'
  | 'not in'
  | 'and'
  | 'or'

export interface BinaryExpr extends Pos {
  kind: 'binary'
  op: BinaryOp
  left: Expr
  right: Expr
}

export interface CondExpr extends Pos {
  kind: 'cond'
  condition: Expr
  whenTrue: Expr
  otherwise: Expr
}

/** One argument of a call: positional, named, `*args` or `**kwargs`. */
export interface Argument extends Pos {
  kind: 'positional' | 'named' | 'star' | 'starstar'
  name?: string
  value: Expr
}

export interface CallExpr extends Pos {
  kind: 'call'
  callee: Expr
  args: Argument[]
}

export interface IndexExpr extends Pos {
  kind: 'index'
  object: Expr
  index: Expr
}

export interface SliceExpr extends Pos {
  kind: 'slice'
  object: Expr
  start: Expr | null
  stop: Expr | null
  step: Expr | null
}

export interface DotExpr extends Pos {
  kind: 'dot'
  object: Expr
  name: string
}

/** A function parameter: plain, with default, `*args`, bare `*`, or `**kwargs`. */
export interface Param extends Pos {
  kind: 'plain' | 'default' | 'star' | 'starmarker' | 'starstar'
  name: string
  defaultValue?: Expr
}

export interface LambdaExpr extends Pos {
  kind: 'lambda'
  params: Param[]
  body: Expr
}

export type Expr =
  | LiteralExpr
  | NameExpr
  | ListExpr
  | TupleExpr
  | DictExpr
  | ListCompExpr
  | DictCompExpr
  | UnaryExpr
  | BinaryExpr
  | CondExpr
  | CallExpr
  | IndexExpr
  | SliceExpr
  | DotExpr
  | LambdaExpr

export interface ExprStmt extends Pos {
  kind: 'expr'
  expr: Expr
}

/** `=` or an augmented assignment such as `+=`. */
export interface AssignStmt extends Pos {
  kind: 'assign'
  op: '=' | '+=' | '-=' | '*=' | '/=' | '//=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>='
  target: Expr
  value: Expr
}

export interface ReturnStmt extends Pos {
  kind: 'return'
  value: Expr | null
}

export interface JumpStmt extends Pos {
  kind: 'break' | 'continue' | 'pass'
}

export interface IfStmt extends Pos {
  kind: 'if'
  condition: Expr
  body: Stmt[]
  orelse: Stmt[]
}

export interface ForStmt extends Pos {
  kind: 'for'
  target: Expr
  iterable: Expr
  body: Stmt[]
}

export interface DefStmt extends Pos {
  kind: 'def'
  name: string
  params: Param[]
  body: Stmt[]
}

export type Stmt = ExprStmt | AssignStmt | ReturnStmt | JumpStmt | IfStmt | ForStmt | DefStmt

/** A parsed file. */
export interface FileNode {
  file: string
  body: Stmt[]
}
