// Expression compiler: turns each expression node into a JS closure over the frame, with
// fast paths for small ints and strings and error positions attached where errors arise.

import { add, bitwise, div, floorDiv, mod, mul, shift, sub, unary } from './arith.js'
import type { Argument, BinaryExpr, CallExpr, CompClause, Expr, Pos } from './ast.js'
import { callMethod, getAttribute } from './attrs.js'
import { compare, equals } from './compare.js'
import { type Assign, type Compiler, loopOver } from './compiler.js'
import { runtimeError } from './errors.js'
import { callValue, type Frame, NORMAL } from './function.js'
import { contains, getIndex, getSlice, iterate } from './sequence.js'
import { type Kwargs, StarDict, StarList, StarTuple, truth, type Value } from './values.js'

/** A compiled expression. */
export type Eval = (frame: Frame) => Value

/** Compiles an expression node. */
export function compileExpr(c: Compiler, node: Expr): Eval {
  switch (node.kind) {
    case 'literal': {
      const value = node.value
      return () => value
    }
    case 'name':
      return compileName(c, node.name, node)
    case 'list': {
      const elements = node.elements.map((e) => compileExpr(c, e))
      return (fr) => new StarList(elements.map((e) => e(fr)))
    }
    case 'tuple': {
      const elements = node.elements.map((e) => compileExpr(c, e))
      return (fr) => new StarTuple(elements.map((e) => e(fr)))
    }
    case 'dict': {
      const entries = node.entries.map((e) => [compileExpr(c, e.key), compileExpr(c, e.value)] as const)
      return (fr) => {
        const dict = new StarDict()
        try {
          for (const [k, v] of entries) {
            const key = k(fr)
            if (dict.has(key)) throw runtimeError(`duplicate key in dict literal`)
            dict.store(key, v(fr))
          }
        } catch (error) {
          throw c.locate(error, node)
        }
        return dict
      }
    }
    case 'listcomp':
      return compileComprehension(
        c,
        node.clauses,
        node,
        () => {
          const element = compileExpr(c, node.element)
          return (fr, acc) => {
            const list = acc as Value[]
            if (list.length >= fr.t.limits.maxCollectionLength) fr.t.checkCollection(list.length + 1)
            list.push(element(fr))
          }
        },
        false,
      )
    case 'dictcomp':
      return compileComprehension(
        c,
        node.clauses,
        node,
        () => {
          const key = compileExpr(c, node.key)
          const value = compileExpr(c, node.value)
          return (fr, acc) => (acc as StarDict).set(key(fr), value(fr), fr.t)
        },
        true,
      )
    case 'unary': {
      const operand = compileExpr(c, node.operand)
      if (node.op === 'not') return (fr) => !truth(operand(fr))
      const op = node.op
      return (fr) => {
        const v = operand(fr)
        try {
          return unary(op, v)
        } catch (error) {
          throw c.locate(error, node)
        }
      }
    }
    case 'binary':
      return compileBinary(c, node)
    case 'cond': {
      const condition = compileExpr(c, node.condition)
      const whenTrue = compileExpr(c, node.whenTrue)
      const otherwise = compileExpr(c, node.otherwise)
      return (fr) => (truth(condition(fr)) ? whenTrue(fr) : otherwise(fr))
    }
    case 'call':
      return compileCall(c, node)
    case 'index': {
      const object = compileExpr(c, node.object)
      const index = compileExpr(c, node.index)
      return (fr) => {
        const o = object(fr)
        const k = index(fr)
        try {
          return getIndex(o, k)
        } catch (error) {
          throw c.locate(error, node)
        }
      }
    }
    case 'slice': {
      const object = compileExpr(c, node.object)
      const none: Eval = () => null
      const start = node.start === null ? none : compileExpr(c, node.start)
      const stop = node.stop === null ? none : compileExpr(c, node.stop)
      const step = node.step === null ? none : compileExpr(c, node.step)
      return (fr) => {
        const o = object(fr)
        const a = start(fr)
        const b = stop(fr)
        const s = step(fr)
        try {
          return getSlice(o, a, b, s)
        } catch (error) {
          throw c.locate(error, node)
        }
      }
    }
    case 'dot': {
      const object = compileExpr(c, node.object)
      const name = node.name
      return (fr) => {
        const o = object(fr)
        try {
          return getAttribute(o, name)
        } catch (error) {
          throw c.locate(error, node)
        }
      }
    }
    case 'lambda':
      return c.functionValue(
        'lambda',
        node.params,
        [{ kind: 'return', value: node.body, line: node.line, col: node.col }],
        node,
      )
  }
}

function compileName(c: Compiler, name: string, pos: Pos): Eval {
  const ref = c.resolve(name, pos)
  const slot = ref.slot
  if (ref.kind === 'global') {
    if (ref.predeclared) return (fr) => fr.g[slot]!
    return (fr) => {
      const v = fr.g[slot]
      if (v === undefined)
        throw c.locate(runtimeError(`global variable ${name} referenced before assignment`), pos)
      return v
    }
  }
  const unbound = () => c.locate(runtimeError(`local variable ${name} referenced before assignment`), pos)
  if (ref.depth === 0) {
    return (fr) => {
      const v = fr.s[slot]
      if (v === undefined) throw unbound()
      return v
    }
  }
  if (ref.depth === 1) {
    return (fr) => {
      const v = fr.up!.s[slot]
      if (v === undefined) throw unbound()
      return v
    }
  }
  const depth = ref.depth
  return (fr) => {
    let f = fr
    for (let i = 0; i < depth; i++) f = f.up!
    const v = f.s[slot]
    if (v === undefined) throw unbound()
    return v
  }
}

function compileBinary(c: Compiler, node: BinaryExpr): Eval {
  const left = compileExpr(c, node.left)
  const right = compileExpr(c, node.right)
  const fail = (error: unknown) => c.locate(error, node)
  switch (node.op) {
    case 'and':
      return (fr) => {
        const a = left(fr)
        return truth(a) ? right(fr) : a
      }
    case 'or':
      return (fr) => {
        const a = left(fr)
        return truth(a) ? a : right(fr)
      }
    case '+':
      return (fr) => {
        const a = left(fr)
        const b = right(fr)
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a + b
          if (Number.isSafeInteger(r)) return r
        }
        try {
          return add(a, b, fr.t)
        } catch (error) {
          throw fail(error)
        }
      }
    case '-':
      return (fr) => {
        const a = left(fr)
        const b = right(fr)
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a - b
          if (Number.isSafeInteger(r)) return r
        }
        try {
          return sub(a, b, fr.t)
        } catch (error) {
          throw fail(error)
        }
      }
    case '==':
      return (fr) => {
        const a = left(fr)
        const b = right(fr)
        if (a === b) return true
        try {
          return equals(a, b)
        } catch (error) {
          throw fail(error)
        }
      }
    case '!=':
      return (fr) => {
        const a = left(fr)
        const b = right(fr)
        if (a === b) return false
        try {
          return !equals(a, b)
        } catch (error) {
          throw fail(error)
        }
      }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const op = node.op
      const test =
        op === '<'
          ? (n: number) => n < 0
          : op === '<='
            ? (n: number) => n <= 0
            : op === '>'
              ? (n: number) => n > 0
              : (n: number) => n >= 0
      return (fr) => {
        const a = left(fr)
        const b = right(fr)
        try {
          return test(compare(a, b, op))
        } catch (error) {
          throw fail(error)
        }
      }
    }
    case 'in':
    case 'not in': {
      const negate = node.op === 'not in'
      return (fr) => {
        const a = left(fr)
        const b = right(fr)
        if (typeof b === 'string' && typeof a === 'string') return b.includes(a) !== negate
        try {
          return contains(b, a) !== negate
        } catch (error) {
          throw fail(error)
        }
      }
    }
    default: {
      const apply = binaryFunction(node.op)
      return (fr) => {
        const a = left(fr)
        const b = right(fr)
        try {
          return apply(a, b, fr)
        } catch (error) {
          throw fail(error)
        }
      }
    }
  }
}

function binaryFunction(op: string): (a: Value, b: Value, fr: Frame) => Value {
  switch (op) {
    case '*':
      return (a, b, fr) => mul(a, b, fr.t)
    case '/':
      return (a, b) => div(a, b)
    case '//':
      return (a, b) => floorDiv(a, b)
    case '%':
      return (a, b, fr) => mod(a, b, fr.t)
    case '&':
    case '|':
    case '^':
      return (a, b, fr) => bitwise(op, a, b, fr.t)
    case '<<':
    case '>>':
      return (a, b, fr) => shift(op, a, b, fr.t)
    default:
      throw new Error(`unknown binary operator ${op}`)
  }
}

type ArgsBuilder = (fr: Frame) => [Value[], Kwargs | null]

function compileArgs(c: Compiler, args: Argument[], pos: Pos): ArgsBuilder {
  const compiled = args.map((a) => ({ kind: a.kind, name: a.name ?? '', value: compileExpr(c, a.value) }))
  return (fr) => {
    const positional: Value[] = []
    let kwargs: Kwargs | null = null
    try {
      for (const arg of compiled) {
        const v = arg.value(fr)
        if (arg.kind === 'positional') positional.push(v)
        else if (arg.kind === 'star') {
          const items = iterate(v, fr.t)
          fr.t.checkCollection(positional.length + items.length)
          for (const item of items) positional.push(item)
        } else if (arg.kind === 'named') {
          kwargs ??= new Map()
          kwargs.set(arg.name, v)
        } else {
          if (!(v instanceof StarDict)) throw runtimeError('argument after ** must be a dict')
          kwargs ??= new Map()
          for (const [k, item] of v.entries()) {
            if (typeof k !== 'string') throw runtimeError('keywords must be strings')
            if (kwargs.has(k)) throw runtimeError(`got multiple values for keyword argument ${k}`)
            kwargs.set(k, item)
          }
        }
      }
    } catch (error) {
      throw c.locate(error, pos)
    }
    return [positional, kwargs]
  }
}

function positionalArgs(c: Compiler, args: Argument[]): ((fr: Frame) => Value[]) | null {
  if (args.some((a) => a.kind !== 'positional')) return null
  const values = args.map((a) => compileExpr(c, a.value))
  switch (values.length) {
    case 0:
      return () => []
    case 1: {
      const [a] = values as [Eval]
      return (fr) => [a(fr)]
    }
    case 2: {
      const [a, b] = values as [Eval, Eval]
      return (fr) => [a(fr), b(fr)]
    }
    default:
      return (fr) => values.map((v) => v(fr))
  }
}

function compileCall(c: Compiler, node: CallExpr): Eval {
  const simple = positionalArgs(c, node.args)
  const general = simple === null ? compileArgs(c, node.args, node) : null
  if (node.callee.kind === 'dot') {
    const receiver = compileExpr(c, node.callee.object)
    const name = node.callee.name
    return (fr) => {
      const r = receiver(fr)
      let args: Value[]
      let kwargs: Kwargs | null = null
      if (simple !== null) args = simple(fr)
      else [args, kwargs] = general!(fr)
      const t = fr.t
      t.site = node
      try {
        return callMethod(r, name, args, kwargs, t)
      } catch (error) {
        throw c.callSite(error, node)
      }
    }
  }
  const callee = compileExpr(c, node.callee)
  return (fr) => {
    const f = callee(fr)
    let args: Value[]
    let kwargs: Kwargs | null = null
    if (simple !== null) args = simple(fr)
    else [args, kwargs] = general!(fr)
    const t = fr.t
    t.site = node
    try {
      return callValue(f, args, kwargs, t)
    } catch (error) {
      throw c.callSite(error, node)
    }
  }
}

type Emit = (fr: Frame, acc: Value[] | StarDict) => void

function compileComprehension(
  c: Compiler,
  clauses: CompClause[],
  pos: Pos,
  makeEmit: () => Emit,
  isDict: boolean,
): Eval {
  const first = clauses[0]
  if (first === undefined || first.kind !== 'for')
    throw new Error('comprehension must start with a for clause')
  const firstIterable = compileExpr(c, first.iterable)
  const scope = c.scope
  const names = new Map<string, number>()
  scope.blocks.push(names)
  try {
    for (const clause of clauses) {
      if (clause.kind !== 'for') continue
      const bound = new Set<string>()
      collectTargetNames(clause.target, bound)
      for (const n of bound) if (!names.has(n)) names.set(n, scope.numSlots++)
    }
    let inner: Emit = makeEmit()
    for (let i = clauses.length - 1; i >= 0; i--) {
      const clause = clauses[i]!
      const next = inner
      if (clause.kind === 'if') {
        const condition = compileExpr(c, clause.condition)
        inner = (fr, acc) => {
          if (truth(condition(fr))) next(fr, acc)
        }
        continue
      }
      const iterable = i === 0 ? firstIterable : compileExpr(c, clause.iterable)
      const assign: Assign = c.target(clause.target)
      inner = (fr, acc) => {
        loopOver(iterable(fr), fr.t, (value) => {
          assign(fr, value)
          next(fr, acc)
          return NORMAL
        })
      }
    }
    const run = inner
    return (fr) => {
      const acc = isDict ? new StarDict() : []
      try {
        run(fr, acc)
      } catch (error) {
        throw c.locate(error, pos)
      }
      return isDict ? acc : new StarList(acc as Value[])
    }
  } finally {
    scope.blocks.pop()
  }
}

function collectTargetNames(target: Expr, out: Set<string>): void {
  if (target.kind === 'name') out.add(target.name)
  else if (target.kind === 'tuple' || target.kind === 'list')
    for (const e of target.elements) collectTargetNames(e, out)
}
