// Expression compiler: turns each expression node into a JS closure over the frame, with
// fast paths for small ints and strings and error positions attached where errors arise.

import { type Pos, runtimeError } from '../base/index.js'
import { getAttribute } from '../builtins/index.js'
import {
  add,
  bitwise,
  compare,
  contains,
  div,
  equals,
  floorDiv,
  getIndex,
  getSlice,
  mod,
  mul,
  shift,
  sub,
  unary,
} from '../ops/index.js'
import type { BinaryExpr, Expr } from '../parser/index.js'
import { type Frame, StarDict, StarList, StarTuple, truth, type Value, workOf } from '../values/index.js'
import { compileCall } from './calls.js'
import { compileComprehension } from './comprehension.js'
import type { Eval, ExprCompiler } from './context.js'

/** Compiles an expression node. */
export function compileExpr(c: ExprCompiler, node: Expr): Eval {
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
          const sliced = getSlice(o, a, b, s)
          fr.t.charge(workOf(sliced))
          return sliced
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

function compileName(c: ExprCompiler, name: string, pos: Pos): Eval {
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

function compileBinary(c: ExprCompiler, node: BinaryExpr): Eval {
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
        fr.t.charge(workOf(a))
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
        fr.t.charge(workOf(a))
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
        fr.t.charge(workOf(a))
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
        fr.t.charge(workOf(b))
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
