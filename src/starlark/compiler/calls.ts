// Call expressions: compiling argument lists (positional, named, *args, **kwargs, with a
// fast path for plain positional calls) and calls of functions and methods.

import { type Pos, runtimeError } from '../base/index.js'
import { callMethod } from '../builtins/index.js'
import { iterate } from '../ops/index.js'
import type { Argument, CallExpr } from '../parser/index.js'
import { callValue, type Frame, type Kwargs, StarDict, type Value } from '../values/index.js'
import type { Eval, ExprCompiler } from './context.js'

type ArgsBuilder = (fr: Frame) => [Value[], Kwargs | null]

function compileArgs(c: ExprCompiler, args: Argument[], pos: Pos): ArgsBuilder {
  const compiled = args.map((a) => ({ kind: a.kind, name: a.name ?? '', value: c.expr(a.value) }))
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

function positionalArgs(c: ExprCompiler, args: Argument[]): ((fr: Frame) => Value[]) | null {
  if (args.some((a) => a.kind !== 'positional')) return null
  const values = args.map((a) => c.expr(a.value))
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

/** Compiles a call of a function or of a method (`x.f(...)`). */
export function compileCall(c: ExprCompiler, node: CallExpr): Eval {
  const simple = positionalArgs(c, node.args)
  const general = simple === null ? compileArgs(c, node.args, node) : null
  if (node.callee.kind === 'dot') {
    const receiver = c.expr(node.callee.object)
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
  const callee = c.expr(node.callee)
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
