// Lexing: Starlark source text to tokens, and the literal-digit parsing builtins share.

export { parseIntDigits, tokenize } from './lexer.js'
export type { Token } from './tokens.js'
