// Sandbox-escape and resource-exhaustion attempts: each must stop with a clear StarlarkError
// of the right kind, quickly, without exhausting memory or the JS stack.

import { describe, expect, it } from 'vitest'
import { compile, type Limits, module, StarlarkError } from '../../src/starlark/index.js'

interface Attempt {
  name: string
  source: string
  kind: 'syntax' | 'runtime' | 'limit'
  message: RegExp
  /** Call this global after the module ran (frozen globals) instead of failing at load. */
  call?: string
  globals?: Record<string, unknown>
  limits?: Partial<Limits>
}

class HostSecret {
  readonly token = 'do-not-leak'
}

function attempt(a: Attempt): StarlarkError {
  try {
    const mod = compile(a.source, 'attack.star').run({ globals: a.globals, limits: a.limits })
    if (a.call !== undefined) mod.call(a.call, [])
  } catch (error) {
    if (!(error instanceof StarlarkError)) throw error
    return error
  }
  throw new Error(`${a.name}: no error was raised`)
}

const nested = (open: string, close: string, inner = '1') =>
  `x = ${open.repeat(10_000)}${inner}${close.repeat(10_000)}`

const attempts: Attempt[] = [
  {
    name: 'huge list comprehension',
    source: 'x = [x for x in range(1000000000)]',
    kind: 'limit',
    message: /maxSteps/,
  },
  {
    name: 'nested comprehensions over big ranges',
    source: 'x = [[y for y in range(100000)] for x in range(100000)]',
    kind: 'limit',
    message: /maxSteps/,
  },
  {
    name: 'string repetition 2^40',
    source: 'x = "a" * (1 << 40)',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'string doubling in a loop',
    source: 's = "ab"\nfor i in range(100):\n    s = s + s\n',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'list doubling in a loop',
    source: 'l = [1]\nfor i in range(100):\n    l = l + l\n',
    kind: 'limit',
    message: /maxCollectionLength/,
  },
  {
    name: 'list.extend of itself',
    source: 'l = [1, 2]\nfor i in range(100):\n    l.extend(l)\n',
    kind: 'limit',
    message: /maxCollectionLength/,
  },
  {
    name: 'list repetition beyond the collection limit',
    source: 'x = [1, 2, 3] * 1000000',
    kind: 'limit',
    message: /maxCollectionLength/,
  },
  {
    name: 'recursion through a lambda',
    source: 'f = lambda: f()\nf()\n',
    kind: 'runtime',
    message: /recursion is not allowed: lambda calls itself/,
  },
  {
    name: 'recursion through two defs',
    source: 'def a():\n    return b()\ndef b():\n    return a()\na()\n',
    kind: 'runtime',
    message: /recursion is not allowed: a calls itself/,
  },
  {
    name: 'recursion via sorted key functions',
    source: 'def k(x):\n    return sorted([x], key=k)\nk(1)\n',
    kind: 'runtime',
    message: /recursion is not allowed: k calls itself/,
  },
  {
    name: 'recursion through fresh closures',
    source: 'def mk():\n    return lambda: mk()()\nmk()()\n',
    kind: 'runtime',
    message: /recursion is not allowed/,
  },
  { name: '10,000 nested parentheses', source: nested('(', ')'), kind: 'limit', message: /maxNestingDepth/ },
  {
    name: '10,000 nested list literals',
    source: nested('[', ']'),
    kind: 'limit',
    message: /maxNestingDepth/,
  },
  {
    name: '10,000 nested unary minus',
    source: `x = ${'-'.repeat(10_000)}1`,
    kind: 'limit',
    message: /maxNestingDepth/,
  },
  {
    name: '10,000 nested not',
    source: `x = ${'not '.repeat(10_000)}1`,
    kind: 'limit',
    message: /maxNestingDepth/,
  },
  { name: '10,000 nested calls', source: nested('str(', ')'), kind: 'limit', message: /maxNestingDepth/ },
  {
    name: 'getattr __proto__ on a host object',
    source: 'x = getattr(payload, "__proto__")',
    globals: { payload: { a: 1 } },
    kind: 'runtime',
    message: /dict has no \.__proto__ field or method/,
  },
  {
    name: 'getattr constructor on a host object',
    source: 'x = getattr(payload, "constructor")',
    globals: { payload: { a: 1 } },
    kind: 'runtime',
    message: /has no \.constructor/,
  },
  {
    name: 'attribute prototype on a host class instance',
    source: 'x = secret.prototype',
    globals: { secret: new HostSecret() },
    kind: 'runtime',
    message: /host_value has no \.prototype/,
  },
  {
    name: 'indexing a host object by __proto__',
    source: 'x = payload["__proto__"]',
    globals: { payload: { a: 1 } },
    kind: 'runtime',
    message: /key "__proto__" not in dict/,
  },
  {
    name: 'calling a host value that is not a function',
    source: 'x = secret()',
    globals: { secret: new HostSecret() },
    kind: 'runtime',
    message: /invalid call of non-function \(host_value\)/,
  },
  {
    name: 'calling a host number',
    source: 'x = limit(1)',
    globals: { limit: 5 },
    kind: 'runtime',
    message: /invalid call of non-function \(int\)/,
  },
  {
    name: 'mutating a frozen global list later',
    source: 'ALLOWED = ["ls"]\ndef widen():\n    ALLOWED.append("rm")\n',
    call: 'widen',
    kind: 'runtime',
    message: /cannot append to frozen list/,
  },
  {
    name: 'mutating a host payload',
    source: 'payload["cmd"] = "rm -rf /"',
    globals: { payload: { cmd: 'ls' } },
    kind: 'runtime',
    message: /cannot insert into frozen dict/,
  },
  {
    name: 'fail propagates through calls',
    source: 'def inner():\n    fail("denied by policy")\ndef outer():\n    inner()\nouter()\n',
    kind: 'runtime',
    message: /denied by policy/,
  },
  { name: 'huge shift', source: 'x = 1 << 100000000', kind: 'limit', message: /maxIntBits/ },
  { name: 'shift by 10^9', source: 'x = 1 << 1000000000', kind: 'limit', message: /maxIntBits/ },
  {
    name: 'repeated squaring',
    source: 'x = 3\nfor i in range(100):\n    x = x * x\n',
    kind: 'limit',
    message: /maxIntBits/,
  },
  {
    name: 'format-string blow-up',
    source: 'x = "{0}{0}{0}{0}{0}{0}".format("x" * 5000000)',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'percent-format blow-up',
    source: 'big = "x" * 6000000\nx = "%s%s" % (big, big)',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'replace blow-up',
    source: 'x = ("a" * 1000).replace("a", "b" * 100000)',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'join blow-up',
    source: 'x = ",".join(["x" * 1000000] * 20)',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'range materialisation',
    source: 'x = list(range(1000000000))',
    kind: 'limit',
    message: /maxCollectionLength/,
  },
  {
    name: 'steps limit on a long loop',
    source: 'for i in range(100000000):\n    pass\n',
    kind: 'limit',
    message: /execution step limit exceeded \(limit maxSteps = 1000000\)/,
  },
  {
    name: 'wall time limit',
    source: 'for i in range(1000000000):\n    x = str(i) * 10\n',
    limits: { maxSteps: 1e12, maxWallTimeMs: 50 },
    kind: 'limit',
    message: /wall time limit exceeded \(limit maxWallTimeMs = 50 ms\)/,
  },
  {
    name: 'deeply nested data converted to a string',
    source: 'x = []\nfor i in range(100000):\n    x = [x]\ny = str(x)\n',
    kind: 'limit',
    message: /nested too deeply/,
  },
  {
    name: 'while loop',
    source: 'while True:\n    pass\n',
    kind: 'syntax',
    message: /while loops are not allowed in Starlark/,
  },
  {
    name: 'load statement',
    source: 'load("os.star", "system")\n',
    kind: 'syntax',
    message: /load is not supported/,
  },
  {
    name: 'str() of a list of big strings',
    source: 'x = "a" * 1000000\ny = [x] * 1000\nz = str(y)\n',
    kind: 'limit',
    message: /string too long: over \d+ characters \(limit maxStringLength/,
  },
  {
    name: 'repr() of a nested dict of big strings',
    source: 'x = "a" * 1000000\ny = {i: [x, x] for i in range(100)}\nz = repr(y)\n',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'print of a big list',
    source: 'x = ["b" * 1000000] * 100\nprint(x, x)\n',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'fail with a huge message',
    source: 'x = ["c" * 1000000] * 100\nfail(x)\n',
    kind: 'limit',
    message: /maxStringLength/,
  },
  {
    name: 'split into more pieces than a list may hold',
    source: 'x = "a," * 3000000\ny = x.split(",")\n',
    kind: 'limit',
    message: /maxCollectionLength/,
  },
  {
    name: 'whitespace split into more pieces than a list may hold',
    source: 'x = "a " * 3000000\ny = x.split()\n',
    kind: 'limit',
    message: /maxCollectionLength/,
  },
  {
    name: 'splitlines into more pieces than a list may hold',
    source: 'x = "a\\n" * 3000000\ny = x.splitlines()\n',
    kind: 'limit',
    message: /maxCollectionLength/,
  },
  {
    name: 'host module without the attribute',
    source: 'x = metrics.__proto__',
    globals: { metrics: module('metrics', {}) },
    kind: 'runtime',
    message: /module has no \.__proto__/,
  },
]

describe('sandbox', () => {
  it('has at least 20 escape attempts', () => {
    expect(attempts.length).toBeGreaterThanOrEqual(20)
  })

  for (const a of attempts) {
    it(`stops: ${a.name}`, () => {
      const started = performance.now()
      const error = attempt(a)
      const elapsed = performance.now() - started
      expect(error.kind).toBe(a.kind)
      expect(error.message).toMatch(a.message)
      expect(error.line).toBeGreaterThan(0)
      expect(elapsed).toBeLessThan(2000)
    })
  }

  it('splits from the right with a huge maxsplit in one pass', () => {
    // Its work now counts against the wall-time limit: room for a loaded machine.
    const mod = compile('x = "a " * 2000000\ny = len(x.rsplit(None, 999999))\n', 'rsplit.star').run({
      limits: { maxWallTimeMs: 60_000 },
    })
    expect(mod.get('y')).toBe(1_000_000)
  })

  it('quotes values in error messages only up to a few hundred characters', () => {
    const error = attempt({
      name: 'long key',
      source: 'd = {}\nx = d["k" * 1000000]\n',
      kind: 'runtime',
      message: /not in dict/,
    })
    expect(error.message).toMatch(/key "k+\.\.\. not in dict/)
    expect(error.message.length).toBeLessThan(400)
  })

  it('keeps cyclic lists printable', () => {
    const mod = compile('a = []\na.append(a)\ns = str(a)\n', 'cycle.star').run()
    expect(mod.get('s')).toBe('[[...]]')
  })

  it('exposes no attributes of host objects', () => {
    const mod = compile('names = dir(secret)\nkinds = type(secret)\n', 'dir.star').run({
      globals: { secret: new HostSecret() },
    })
    expect(mod.get('names')).toEqual([])
    expect(mod.get('kinds')).toBe('host_value')
  })

  it('reports the call stack of a fail inside nested calls', () => {
    const error = attempt(attempts.find((a) => a.name === 'fail propagates through calls')!)
    expect(error.message).toBe(
      'attack.star:2:5: in inner: denied by policy\n  called from attack.star:4:5\n  called from attack.star:5:1',
    )
  })
})
