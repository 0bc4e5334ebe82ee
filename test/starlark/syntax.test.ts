// Lexer and parser: syntax errors carry the right kind, message, line and column.

import { describe, expect, it } from 'vitest'
import { compile, compileExpression, StarlarkError } from '../../src/starlark/index.js'

function syntaxErrorOf(source: string): StarlarkError {
  try {
    compile(source, 'bad.star')
  } catch (error) {
    if (error instanceof StarlarkError) return error
    throw error
  }
  throw new Error('compiled without error')
}

describe('syntax errors', () => {
  const cases: [string, string, number, number, RegExp][] = [
    ['unterminated string', 'x = 1\ny = "abc\n', 2, 5, /unterminated string literal/],
    ['unexpected character', 'x = 1 $ 2\n', 1, 7, /unexpected character "\$"/],
    ['bad indentation', 'def f():\n    x = 1\n  y = 2\n', 3, 3, /unindent does not match/],
    ['missing colon', 'if True\n    pass\n', 1, 8, /want ":"/],
    ['reserved word', 'class = 1\n', 1, 1, /"class" is a reserved word/],
    ['while loop', 'x = 1\nwhile x:\n    pass\n', 2, 1, /while loops are not allowed in Starlark/],
    ['load', '\n\nload("a.star", "b")\n', 3, 1, /load is not supported/],
    ['power operator', 'x = 2 ** 3\n', 1, 7, /\*\* operator is not supported/],
    ['chained comparison', 'x = 1 < 2 < 3\n', 1, 11, /not associative/],
    ['octal without prefix', 'x = 017\n', 1, 5, /leading zeros/],
    ['bad escape', 'x = "\\q"\n', 1, 6, /invalid escape sequence \\q/],
    ['return at top level', 'return 1\n', 1, 1, /return statement not within a function/],
    ['break outside loop', 'def f():\n    break\n', 2, 5, /break not in a loop/],
    ['assign to call', 'f() = 1\n', 1, 1, /cannot assign to call expression/],
    ['positional after named', 'f(a=1, 2)\n', 1, 8, /positional argument may not follow named/],
    ['duplicate parameter', 'def f(a, a):\n    pass\n', 1, 10, /duplicate parameter: a/],
    ['required after default', 'def f(a=1, b):\n    pass\n', 1, 12, /required parameter b may not follow/],
    ['unexpected indent', 'x = 1\n    y = 2\n', 2, 5, /unexpected indentation/],
  ]
  for (const [name, source, line, col, message] of cases) {
    it(`reports ${name} at ${line}:${col}`, () => {
      const error = syntaxErrorOf(source)
      expect(error.kind).toBe('syntax')
      expect(error.reason).toMatch(message)
      expect([error.file, error.line, error.col]).toEqual(['bad.star', line, col])
      expect(error.message.startsWith(`bad.star:${line}:${col}: `)).toBe(true)
    })
  }

  it('reports nesting beyond the limit as a limit error with position', () => {
    const error = syntaxErrorOf(`x = ${'('.repeat(300)}1${')'.repeat(300)}`)
    expect(error.kind).toBe('limit')
    expect(error.reason).toMatch(/maxNestingDepth = 200/)
    expect(error.line).toBe(1)
  })

  it('accepts nesting up to a configured depth', () => {
    const source = `x = ${'('.repeat(150)}1${')'.repeat(150)}`
    expect(compile(source, 'ok.star').run().get('x')).toBe(1)
    expect(() => compile(source, 'ok.star', { maxNestingDepth: 100 })).toThrow(/maxNestingDepth = 100/)
  })

  it('parses the full statement and expression grammar', () => {
    const source = [
      'def f(a, b=1, *args, c, d=2, **kw):',
      '    if a: return a',
      '    elif b:',
      '        pass',
      '    else:',
      '        x = [i for i in range(3) if i] + [j for j, _ in [(1, 2)]]',
      '    return {k: v for k, v in kw.items()}, lambda y, *z: y',
      'r = f(0, 0, 9, c=1, e=5)[0]; s = "a" if r else "b"',
      't = x[1:2:1] if False else (1,)[0:]',
      'x = 1',
      'u = -x + +x - ~x',
      'v = not (1 in [1] and 2 not in [1]) or 3 != 4',
      'w = """doc',
      "string\"\"\" + '''more''' + r\"\\d\" ",
      'z = (1 <= 2) == (3 >= 2) \\',
      '    and 0x10 | 0o7 & 0b1 ^ 1 << 2 >> 1 // 1 % 5 * 1',
    ].join('\n')
    const mod = compile(source, 'grammar.star').run()
    expect(mod.get('r')).toEqual({ e: 5 })
    expect(mod.get('s')).toBe('a')
    expect(mod.get('t')).toEqual([1])
    expect(mod.get('w')).toBe('doc\nstringmore\\d')
    expect(mod.get('v')).toBe(true)
  })

  it('compiles expressions and reports their syntax errors with position', () => {
    expect(() => compileExpression('payload["a"] ==', 'when')).toThrow(
      /when:1:16: got newline, want primary expression/,
    )
    expect(compileExpression('1 + 2', 'when').evaluate()).toBe(3)
  })
})
