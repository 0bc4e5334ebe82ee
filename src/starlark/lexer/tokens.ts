// Token shapes and the fixed vocabulary of the lexer: keywords, reserved words, operators
// (longest first) and the simple backslash escapes of string literals.

/** Token types produced by the lexer. */
export type TokenType =
  | 'ident'
  | 'int'
  | 'float'
  | 'string'
  | 'op'
  | 'keyword'
  | 'newline'
  | 'indent'
  | 'outdent'
  | 'eof'

/** One token with its 1-based position. */
export interface Token {
  type: TokenType
  /** Identifier / keyword / operator text, decoded string value, or number text. */
  value: string
  /** For int tokens: the value (number when safe, bigint beyond). For float tokens: the number. */
  num?: number | bigint
  line: number
  col: number
}

/** Words that are keywords of the language. */
export const KEYWORDS = new Set([
  'and',
  'break',
  'continue',
  'def',
  'elif',
  'else',
  'for',
  'if',
  'in',
  'lambda',
  'load',
  'not',
  'or',
  'pass',
  'return',
  'while',
])

/** Python keywords Starlark reserves: using one is a syntax error. */
export const RESERVED = new Set([
  'as',
  'async',
  'await',
  'class',
  'del',
  'except',
  'finally',
  'from',
  'global',
  'import',
  'is',
  'nonlocal',
  'raise',
  'try',
  'with',
  'yield',
])

/** Operators and punctuation, longest first so that the first match is the longest. */
export const OPERATORS = [
  '//=',
  '<<=',
  '>>=',
  '**',
  '==',
  '!=',
  '<=',
  '>=',
  '//',
  '<<',
  '>>',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '^',
  '~',
  '<',
  '>',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '.',
  ';',
  '=',
]

/** Single-character backslash escapes of string literals and what they stand for. */
export const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
}
