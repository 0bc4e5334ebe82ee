// What the compiler knows while compiling: compiled closures (Eval, Assign), scopes and
// resolved names, the compiled module, the names a statement binds, and the interface the
// expression compilers use to reach the statement compiler without depending on it.

import type { Pos, StarlarkError } from '../base/index.js'
import type { Expr, Param, Stmt } from '../parser/index.js'
import type { Exec, Frame, Value } from '../values/index.js'

/** A compiled expression: evaluates in a frame. */
export type Eval = (frame: Frame) => Value

/** Stores a value into an assignment target. */
export type Assign = (frame: Frame, value: Value) => void

/** A name resolved at compile time. */
export type Ref =
  | { kind: 'local'; depth: number; slot: number }
  | { kind: 'global'; slot: number; predeclared: boolean }

/** A function body's (or the module's) variables. */
export class Scope {
  readonly locals = new Map<string, number>()
  /** Comprehension blocks, innermost last. */
  readonly blocks: Map<string, number>[] = []
  numSlots = 0
  loopDepth = 0
  constructor(
    readonly parent: Scope | null,
    readonly isModule: boolean,
  ) {}
}

/** A predeclared (host or universe) name the program uses, with its first use. */
export interface PredeclaredUse {
  name: string
  slot: number
  line: number
  col: number
}

/** The result of compiling a file or expression. */
export interface CompiledModule {
  file: string
  body: Exec
  /** Slots of the module frame (comprehension variables at top level). */
  numSlots: number
  /** Names of module globals, by slot. */
  globalNames: string[]
  predeclared: PredeclaredUse[]
  /** Size of the globals array (globals then predeclared). */
  numGlobals: number
}

/** Names bound by an assignment target. */
export function targetNames(target: Expr, out: Set<string>): void {
  if (target.kind === 'name') out.add(target.name)
  else if (target.kind === 'tuple' || target.kind === 'list')
    for (const e of target.elements) targetNames(e, out)
}

/** Names a list of statements binds (assignment targets, loop variables, defs), not entering defs. */
export function collectBindings(stmts: Stmt[], out: Set<string>): void {
  for (const s of stmts) {
    switch (s.kind) {
      case 'assign':
        targetNames(s.target, out)
        break
      case 'for':
        targetNames(s.target, out)
        collectBindings(s.body, out)
        break
      case 'if':
        collectBindings(s.body, out)
        collectBindings(s.orelse, out)
        break
      case 'def':
        out.add(s.name)
        break
    }
  }
}

/** What expression compilation needs from the compiler of the enclosing file. */
export interface ExprCompiler {
  /** The scope being compiled into. */
  readonly scope: Scope
  /** Compiles an expression in the current scope. */
  expr(node: Expr): Eval
  /** Attaches the position to an error thrown while evaluating a node. */
  locate(error: unknown, pos: Pos): StarlarkError
  /** Attaches the position of a call site to an error. */
  callSite(error: unknown, pos: Pos): StarlarkError
  /** Resolves a name used at `pos`. */
  resolve(name: string, pos: Pos): Ref
  /** Compiles an assignment target. */
  target(expr: Expr): Assign
  /** Compiles a `def` or `lambda` into an expression producing the function value. */
  functionValue(name: string, params: Param[], body: Stmt[], pos: Pos): Eval
}
