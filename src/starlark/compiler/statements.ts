// Compiler: resolves names to slots (locals, enclosing-function cells, globals, predeclared)
// and turns statements into JS closures once, so execution never switches over node kinds.
// Expressions are compiled in expressions.ts.

import { asStarlarkError, type Pos, type StarlarkError, syntaxError } from '../base/index.js'
import { getIndex, setIndex } from '../ops/index.js'
import type { Expr, Param, Stmt } from '../parser/index.js'
import {
  BREAK,
  CONTINUE,
  type Exec,
  type FunctionCode,
  NORMAL,
  RETURN,
  StarFunction,
  StarList,
  truth,
  type Value,
} from '../values/index.js'
import {
  type Assign,
  type CompiledModule,
  collectBindings,
  type Eval,
  type ExprCompiler,
  type PredeclaredUse,
  type Ref,
  Scope,
} from './context.js'
import { compileExpr } from './expressions.js'
import { BINARY_FOR_AUGMENTED, block, loopOver, unpack } from './runtime.js'

/** Compiles one file or expression; holds the scope chain while doing so. */
export class Compiler implements ExprCompiler {
  scope: Scope
  readonly globals = new Map<string, number>()
  readonly predeclared = new Map<string, PredeclaredUse>()
  private globalCount = 0

  constructor(readonly file: string) {
    this.scope = new Scope(null, true)
  }

  /** Compiles an expression in the current scope. */
  expr(node: Expr): Eval {
    return compileExpr(this, node)
  }

  /** Attaches the position to an error thrown while evaluating a node. */
  locate(error: unknown, pos: Pos): StarlarkError {
    return asStarlarkError(error).at(this.file, pos.line, pos.col)
  }

  /** Attaches the position of a call site: the error's own position or a "called from" frame. */
  callSite(error: unknown, pos: Pos): StarlarkError {
    const e = asStarlarkError(error)
    return e.positioned ? e.calledAt(this.file, pos.line, pos.col) : e.at(this.file, pos.line, pos.col)
  }

  private declareGlobals(names: Set<string>): void {
    for (const name of names) {
      if (!this.globals.has(name)) this.globals.set(name, this.globalCount++)
    }
  }

  /** Compiles a file's statements. */
  compileModule(body: Stmt[]): CompiledModule {
    const names = new Set<string>()
    collectBindings(body, names)
    this.declareGlobals(names)
    const exec = this.block(body)
    return this.finish(exec)
  }

  /** Compiles a single expression whose value becomes the frame's return value. */
  compileExpressionModule(expr: Expr): CompiledModule {
    const evaluate = compileExpr(this, expr)
    return this.finish((fr) => {
      fr.ret = evaluate(fr)
      return RETURN
    })
  }

  private finish(body: Exec): CompiledModule {
    const globalNames: string[] = []
    for (const [name, slot] of this.globals) globalNames[slot] = name
    return {
      file: this.file,
      body,
      numSlots: this.scope.numSlots,
      globalNames,
      predeclared: Array.from(this.predeclared.values()),
      numGlobals: this.globalCount + this.predeclared.size,
    }
  }

  /** Resolves a name used at `pos`. */
  resolve(name: string, pos: Pos): Ref {
    let depth = 0
    for (let s: Scope | null = this.scope; s !== null; s = s.parent, depth++) {
      for (let i = s.blocks.length - 1; i >= 0; i--) {
        const slot = s.blocks[i]!.get(name)
        if (slot !== undefined) return { kind: 'local', depth, slot }
      }
      if (s.isModule) break
      const slot = s.locals.get(name)
      if (slot !== undefined) return { kind: 'local', depth, slot }
    }
    const global = this.globals.get(name)
    if (global !== undefined) return { kind: 'global', slot: global, predeclared: false }
    let use = this.predeclared.get(name)
    if (use === undefined) {
      use = { name, slot: this.globalCount + this.predeclared.size, line: pos.line, col: pos.col }
      this.predeclared.set(name, use)
    }
    return { kind: 'global', slot: use.slot, predeclared: true }
  }

  block(stmts: Stmt[]): Exec {
    return block(stmts.map((s) => this.stmt(s)))
  }

  private stmt(s: Stmt): Exec {
    switch (s.kind) {
      case 'expr': {
        const e = compileExpr(this, s.expr)
        return (fr) => {
          e(fr)
          return NORMAL
        }
      }
      case 'assign':
        return this.assignStmt(s.op, s.target, s.value, s)
      case 'return': {
        if (this.scope.isModule)
          throw syntaxError('return statement not within a function', this.file, s.line, s.col)
        if (s.value === null) {
          return (fr) => {
            fr.ret = null
            return RETURN
          }
        }
        const e = compileExpr(this, s.value)
        return (fr) => {
          fr.ret = e(fr)
          return RETURN
        }
      }
      case 'break':
      case 'continue': {
        if (this.scope.loopDepth === 0) throw syntaxError(`${s.kind} not in a loop`, this.file, s.line, s.col)
        const status = s.kind === 'break' ? BREAK : CONTINUE
        return () => status
      }
      case 'pass':
        return () => NORMAL
      case 'if': {
        const condition = compileExpr(this, s.condition)
        const body = this.block(s.body)
        if (s.orelse.length === 0) return (fr) => (truth(condition(fr)) ? body(fr) : NORMAL)
        const orelse = this.block(s.orelse)
        return (fr) => (truth(condition(fr)) ? body(fr) : orelse(fr))
      }
      case 'for':
        return this.forStmt(s.target, s.iterable, s.body, s)
      case 'def': {
        const make = this.functionValue(s.name, s.params, s.body, s)
        const assign = this.target({ kind: 'name', name: s.name, line: s.line, col: s.col })
        return (fr) => {
          assign(fr, make(fr))
          return NORMAL
        }
      }
    }
  }

  private forStmt(targetExpr: Expr, iterableExpr: Expr, bodyStmts: Stmt[], pos: Pos): Exec {
    const iterable = compileExpr(this, iterableExpr)
    const assign = this.target(targetExpr)
    this.scope.loopDepth++
    const body = this.block(bodyStmts)
    this.scope.loopDepth--
    return (fr) => {
      const it = iterable(fr)
      const t = fr.t
      try {
        if (it instanceof StarList) {
          const items = it.items
          const track = !it.frozen
          if (track) it.iterating++
          try {
            for (let i = 0; i < items.length; i++) {
              if (++t.steps >= t.nextCheck) t.checkpoint()
              assign(fr, items[i]!)
              const status = body(fr)
              if (status === BREAK) break
              if (status === RETURN) return RETURN
            }
          } finally {
            if (track) it.iterating--
          }
          return NORMAL
        }
        return loopOver(it, t, (value) => {
          assign(fr, value)
          return body(fr)
        })
      } catch (error) {
        throw this.locate(error, pos)
      }
    }
  }

  private assignStmt(op: string, targetExpr: Expr, valueExpr: Expr, pos: Pos): Exec {
    const value = compileExpr(this, valueExpr)
    if (op === '=') {
      const assign = this.target(targetExpr)
      return (fr) => {
        assign(fr, value(fr))
        return NORMAL
      }
    }
    const apply = BINARY_FOR_AUGMENTED[op]!
    if (targetExpr.kind === 'index') {
      const object = compileExpr(this, targetExpr.object)
      const index = compileExpr(this, targetExpr.index)
      return (fr) => {
        const o = object(fr)
        const k = index(fr)
        try {
          const current = getIndex(o, k)
          setIndex(o, k, apply(current, value(fr), fr.t), fr.t)
        } catch (error) {
          throw this.locate(error, pos)
        }
        return NORMAL
      }
    }
    const read = compileExpr(this, targetExpr)
    const assign = this.target(targetExpr)
    const isAdd = op === '+='
    return (fr) => {
      const current = read(fr)
      const operand = value(fr)
      if (isAdd && typeof current === 'number' && typeof operand === 'number') {
        const sum = current + operand
        if (Number.isSafeInteger(sum)) {
          assign(fr, sum)
          return NORMAL
        }
      }
      let result: Value
      try {
        result = apply(current, operand, fr.t)
      } catch (error) {
        throw this.locate(error, pos)
      }
      assign(fr, result)
      return NORMAL
    }
  }

  /** Compiles an assignment target (name, index, or tuple/list of targets). */
  target(expr: Expr): Assign {
    switch (expr.kind) {
      case 'name': {
        const ref = this.resolve(expr.name, expr)
        if (ref.kind === 'global') {
          const slot = ref.slot
          return (fr, v) => {
            fr.g[slot] = v
          }
        }
        const slot = ref.slot
        return (fr, v) => {
          fr.s[slot] = v
        }
      }
      case 'index': {
        const object = compileExpr(this, expr.object)
        const index = compileExpr(this, expr.index)
        return (fr, v) => {
          const o = object(fr)
          const k = index(fr)
          try {
            setIndex(o, k, v, fr.t)
          } catch (error) {
            throw this.locate(error, expr)
          }
        }
      }
      case 'tuple':
      case 'list': {
        const parts = expr.elements.map((e) => this.target(e))
        const count = parts.length
        return (fr, v) => {
          let items: Value[]
          try {
            items = unpack(v, count, fr.t)
          } catch (error) {
            throw this.locate(error, expr)
          }
          for (let i = 0; i < count; i++) parts[i]!(fr, items[i]!)
        }
      }
      default:
        throw syntaxError(`cannot assign to ${expr.kind} expression`, this.file, expr.line, expr.col)
    }
  }

  /** Compiles a def or lambda into an evaluator that creates the function value. */
  functionValue(name: string, params: Param[], body: Stmt[], pos: Pos): Eval {
    const positional: Param[] = []
    const keywordOnly: Param[] = []
    let varargs: Param | null = null
    let kwargs: Param | null = null
    let afterStar = false
    for (const p of params) {
      if (p.kind === 'star' || p.kind === 'starmarker') {
        afterStar = true
        if (p.kind === 'star') varargs = p
      } else if (p.kind === 'starstar') {
        kwargs = p
      } else if (afterStar) {
        keywordOnly.push(p)
      } else {
        positional.push(p)
      }
    }
    const named = [...positional, ...keywordOnly]
    const defaults = named.map((p) =>
      p.defaultValue === undefined ? null : compileExpr(this, p.defaultValue),
    )
    const scope = new Scope(this.scope, false)
    const paramNames: string[] = []
    const declare = (n: string): number => {
      const slot = scope.numSlots++
      scope.locals.set(n, slot)
      paramNames.push(n)
      return slot
    }
    for (const p of named) declare(p.name)
    const varargsSlot = varargs === null ? -1 : declare(varargs.name)
    const kwargsSlot = kwargs === null ? -1 : declare(kwargs.name)
    const bound = new Set<string>()
    collectBindings(body, bound)
    for (const n of bound) if (!scope.locals.has(n)) scope.locals.set(n, scope.numSlots++)
    const outer = this.scope
    this.scope = scope
    let exec: Exec
    try {
      exec = this.block(body)
    } finally {
      this.scope = outer
    }
    const code: FunctionCode = {
      name,
      file: this.file,
      pos,
      paramNames,
      numPositional: positional.length,
      numKwOnly: keywordOnly.length,
      varargsSlot,
      kwargsSlot,
      numSlots: scope.numSlots,
      body: exec,
      active: false,
    }
    const hasDefaults = defaults.some((d) => d !== null)
    if (!hasDefaults) {
      const none: undefined[] = named.map(() => undefined)
      return (fr) => new StarFunction(code, none, fr, fr.g)
    }
    return (fr) =>
      new StarFunction(
        code,
        defaults.map((d) => (d === null ? undefined : d(fr))),
        fr,
        fr.g,
      )
  }
}
