// Host API: compile/run/call, conversions, host builtins and modules, opaque values,
// function introspection, expressions, print, per-call limits and error reports.

import { describe, expect, it } from 'vitest'
import {
  builtin,
  compile,
  compileExpression,
  evalExpression,
  Float,
  fromJs,
  module,
  opaque,
  StarDict,
  StarList,
  StarlarkError,
  StarTuple,
  toJs,
  typeName,
} from '../../src/starlark/index.js'

class Decision {
  constructor(
    readonly verdict: string,
    readonly reason = '',
  ) {}
}

const GUARD = `
DENY = ["rm -rf", "mkfs", "dd if=", ":(){", "shutdown", "reboot", "chmod 777", "curl | sh", "> /dev/sda"]

def handle(event, payload):
    for s in DENY:
        if s in payload["cmd"]:
            return block("matched " + s)
    return allow()
`

describe('module API', () => {
  const allow = builtin('allow', () => new Decision('allow'))
  const block = builtin('block', (args) => new Decision('deny', String(toJs(args[0] ?? null))))
  const guard = compile(GUARD, 'guard.star').run({ globals: { allow, block } })

  it('returns host-defined opaque values untouched', () => {
    const denied = guard.call('handle', ['tool.pre', { cmd: 'sudo rm -rf /' }])
    expect(denied).toBeInstanceOf(Decision)
    expect(denied).toEqual(new Decision('deny', 'matched rm -rf'))
    expect(guard.call('handle', ['tool.pre', { cmd: 'ls' }])).toEqual(new Decision('allow'))
  })

  it('introspects functions and globals', () => {
    expect(guard.functionArity('handle')).toBe(2)
    expect(guard.functionParams('handle')).toEqual([
      { name: 'event', kind: 'positional', hasDefault: false },
      { name: 'payload', kind: 'positional', hasDefault: false },
    ])
    expect(guard.functionArity('DENY')).toBeUndefined()
    expect(guard.names()).toEqual(['DENY', 'handle'])
    expect(guard.get('DENY')).toHaveLength(9)
    expect(guard.get('missing')).toBeUndefined()
  })

  it('describes keyword-only, *args and **kwargs parameters', () => {
    const mod = compile('def f(a, b=1, *rest, c, **kw):\n    pass\n', 'f.star').run()
    expect(mod.functionParams('f')?.map((p) => `${p.kind}:${p.name}:${p.hasDefault}`)).toEqual([
      'positional:a:false',
      'positional:b:true',
      'keyword-only:c:false',
      'varargs:rest:false',
      'kwargs:kw:false',
    ])
    expect(mod.functionArity('f')).toBe(2)
  })

  it('calls with keyword arguments and function values', () => {
    const mod = compile('def f(a, b=2):\n    return [a, b]\ng = lambda: f\n', 'f.star').run()
    expect(mod.call('f', [1], { b: 3 })).toEqual([1, 3])
    const fn = mod.getValue('f')!
    expect(mod.call(fn, [5])).toEqual([5, 2])
    expect(() => mod.call('nope', [])).toThrow(/no global named nope/)
    expect(() => compile('x = 1', 'x.star').run().call('x', [])).toThrow(/x is not a function/)
  })

  it('reports runtime errors with position, function and call stack', () => {
    const mod = compile(
      'def handle(event, payload):\n    x = 1\n    return payload["x"]\n',
      'guard.star',
    ).run()
    let caught: unknown
    try {
      mod.call('handle', ['e', {}])
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(StarlarkError)
    const error = caught as StarlarkError
    expect(error.kind).toBe('runtime')
    expect(error.message).toBe('guard.star:3:19: in handle: key "x" not in dict')
    expect([error.file, error.line, error.col, error.functionName]).toEqual(['guard.star', 3, 19, 'handle'])
    expect(error.stack).toBe(error.message)
  })

  it('includes "called from" frames for errors raised in nested calls', () => {
    const source = 'def inner(d):\n    return d["x"]\n\ndef handle(e, p):\n    return inner(p)\n'
    const mod = compile(source, 'guard.star').run()
    expect(() => mod.call('handle', ['e', {}])).toThrow(
      'guard.star:2:13: in inner: key "x" not in dict\n  called from guard.star:5:12',
    )
  })

  it('fails at run time for names neither defined nor predeclared', () => {
    const program = compile('def f():\n    return undefined_thing\n', 'u.star')
    expect(program.predeclaredNames).toEqual(['undefined_thing'])
    expect(() => program.run()).toThrow('u.star:2:12: name undefined_thing is not defined')
    expect(program.run({ globals: { undefined_thing: 4 } }).call('f')).toBe(4)
  })

  it('sends print output to the host callback', () => {
    const lines: string[] = []
    const mod = compile('print("loaded", 1)\ndef f(x):\n    print("got", x, sep=":")\n', 'p.star').run({
      print: (m) => lines.push(m),
    })
    mod.call('f', ['a'])
    mod.call('f', ['b'], undefined, { print: (m) => lines.push(`override ${m}`) })
    expect(lines).toEqual(['loaded 1', 'got:a', 'override got:b'])
  })

  it('applies limits per call', () => {
    const mod = compile('def spin(n):\n    for i in range(n):\n        pass\n', 's.star').run()
    expect(mod.call('spin', [1000])).toBeNull()
    expect(() => mod.call('spin', [1000], undefined, { limits: { maxSteps: 100 } })).toThrow(/maxSteps = 100/)
  })
})

describe('host builtins and modules', () => {
  it('passes Starlark values, kwargs and the thread to builtins', () => {
    const seen: unknown[] = []
    const record = builtin('record', (args, kwargs, thread) => {
      seen.push(args.map(toJs), toJs(kwargs.level ?? null), thread.hostData)
      return { ok: true }
    })
    const mod = compile('def f():\n    return record(1, "a", level="warn")["ok"]\n', 'h.star').run({
      globals: { record },
    })
    expect(mod.call('f', [], undefined, { hostData: 'event-1' })).toBe(true)
    expect(seen).toEqual([[1, 'a'], 'warn', 'event-1'])
  })

  it('exposes namespaced modules with builtins and values', () => {
    const counters = new Map<string, number>()
    const metrics = module('metrics', {
      incr: builtin('metrics.incr', (args) => {
        const key = String(toJs(args[0]!))
        counters.set(key, (counters.get(key) ?? 0) + 1)
        return null
      }),
      prefix: 'warden',
      double: (x: number) => x * 2,
    })
    const mod = compile(
      'def f():\n    metrics.incr("calls")\n    return [metrics.prefix, metrics.double(21), type(metrics)]\n',
      'm.star',
    ).run({ globals: { metrics } })
    expect(mod.call('f')).toEqual(['warden', 42, 'module'])
    expect(counters.get('calls')).toBe(1)
    expect(() => compile('x = metrics.nope', 'm.star').run({ globals: { metrics } })).toThrow(
      /module has no \.nope field or method/,
    )
  })

  it('turns errors thrown by builtins into Starlark errors at the call site', () => {
    const boom = builtin('boom', () => {
      throw new Error('backend unavailable')
    })
    expect(() => compile('\nx = boom()', 'b.star').run({ globals: { boom } })).toThrow(
      'b.star:2:5: backend unavailable',
    )
  })

  it('names opaque host types and keeps their identity', () => {
    const decision = opaque(new Decision('ask'), 'decision')
    const mod = compile('t = type(d)\nsame = [d, d]\n', 'o.star').run({ globals: { d: decision } })
    expect(mod.get('t')).toBe('decision')
    const same = mod.get('same') as unknown[]
    expect(same[0]).toBe(decision)
    expect(same[1]).toBe(decision)
  })
})

describe('conversions', () => {
  it('converts JS scalars to Starlark values', () => {
    expect(fromJs(null)).toBeNull()
    expect(fromJs(undefined)).toBeNull()
    expect(fromJs(3)).toBe(3)
    expect(fromJs(1.5)).toEqual(new Float(1.5))
    expect(fromJs(2n ** 60n)).toBe(2n ** 60n)
    expect(fromJs(5n)).toBe(5)
    expect(fromJs('s')).toBe('s')
    expect(typeName(fromJs(true))).toBe('bool')
  })

  it('views plain objects as frozen dicts converted on access', () => {
    const payload = { tool: { name: 'exec', args: ['-l'] }, n: 2 }
    const dict = fromJs(payload) as StarDict
    expect(dict).toBeInstanceOf(StarDict)
    expect(dict.frozen).toBe(true)
    expect(dict.get('n')).toBe(2)
    expect(dict.get('toString')).toBeUndefined()
    const tool = dict.get('tool') as StarDict
    expect((tool.get('args') as StarList).items).toEqual(['-l'])
    expect(dict.keys()).toEqual(['tool', 'n'])
    expect(toJs(dict)).toBe(payload)
  })

  it('converts Starlark values back to JS', () => {
    const mod = compile(
      'v = [None, True, 1, 2.5, "s", (1, 2), {"a": {"b": [1]}}, {1: "x"}, 1 << 60, range(3)]',
      'c.star',
    ).run()
    const [none, yes, one, half, s, tuple, nested, intKeys, big, range] = mod.get('v') as unknown[]
    expect([none, yes, one, half, s]).toEqual([null, true, 1, 2.5, 's'])
    expect(tuple).toEqual([1, 2])
    expect(nested).toEqual({ a: { b: [1] } })
    expect(intKeys).toEqual(new Map([[1, 'x']]))
    expect(big).toBe(2n ** 60n)
    expect(range).toEqual([0, 1, 2])
  })

  it('keeps a "__proto__" key as data, not as a prototype', () => {
    const out = compile('d = {"__proto__": {"polluted": True}}', 'p.star').run().get('d') as Record<
      string,
      unknown
    >
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.keys(out)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('round-trips tuples and lists', () => {
    expect(toJs(new StarTuple([1, new StarList(['a'])]))).toEqual([1, ['a']])
    expect((fromJs([1, [2]]) as StarList).frozen).toBe(true)
  })

  it('wraps JS functions as builtins called with JS values', () => {
    const mod = compile('x = join_all(["a", "b"], sep="-")', 'f.star').run({
      globals: { join_all: (items: string[], opts: { sep: string }) => items.join(opts.sep) },
    })
    expect(mod.get('x')).toBe('a-b')
  })
})

describe('expressions', () => {
  it('evaluates when-conditions over payload and event', () => {
    const when = compileExpression(
      'event == "tool.pre" and payload["tool"]["name"] in ("exec", "shell")',
      'hook.md',
    )
    expect(when.names.sort()).toEqual(['event', 'payload'])
    expect(when.test({ event: 'tool.pre', payload: { tool: { name: 'exec' } } })).toBe(true)
    expect(when.test({ event: 'tool.pre', payload: { tool: { name: 'read' } } })).toBe(false)
    expect(when.test({ event: 'tool.post', payload: { tool: { name: 'exec' } } })).toBe(false)
  })

  it('evaluates once with evalExpression and returns JS values', () => {
    expect(evalExpression('[x * 2 for x in xs]', 'e', { xs: [1, 2] })).toEqual([2, 4])
    expect(evalExpression('len(s.split(","))', 'e', { s: 'a,b,c' })).toBe(3)
  })

  it('reports missing variables and runtime errors with position', () => {
    const when = compileExpression('payload["x"] > 1', 'when')
    expect(() => when.test({})).toThrow('when:1:1: name payload is not defined')
    expect(() => when.test({ payload: {} })).toThrow('when:1:8: key "x" not in dict')
  })

  it('bounds expression execution', () => {
    const spin = compileExpression('[x for x in range(100000000)]', 'e', { limits: { maxSteps: 1000 } })
    expect(() => spin.evaluate()).toThrow(/maxSteps = 1000/)
  })
})
