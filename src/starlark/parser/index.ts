// Parsing: tokens to the syntax tree, statements and expressions in separate parsers.

export type { Argument, BinaryExpr, CallExpr, CompClause, Expr, Param, Stmt } from './ast.js'
export { parseExpression, parseFile } from './statements.js'
