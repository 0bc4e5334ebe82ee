// List and dict comprehensions: the block scope of their loop variables and the nested
// for/if clauses, compiled to one closure that builds the result.

import type { Pos } from '../base/index.js'
import type { CompClause } from '../parser/index.js'
import { type Frame, NORMAL, StarDict, StarList, truth, type Value } from '../values/index.js'
import { type Assign, type Eval, type ExprCompiler, targetNames } from './context.js'
import { loopOver } from './runtime.js'

/** Adds one element to the list or dict a comprehension builds. */
export type Emit = (fr: Frame, acc: Value[] | StarDict) => void

/** Compiles a comprehension; `makeEmit` builds the step that adds one element to the result. */
export function compileComprehension(
  c: ExprCompiler,
  clauses: CompClause[],
  pos: Pos,
  makeEmit: () => Emit,
  isDict: boolean,
): Eval {
  const first = clauses[0]
  if (first === undefined || first.kind !== 'for')
    throw new Error('comprehension must start with a for clause')
  const firstIterable = c.expr(first.iterable)
  const scope = c.scope
  const names = new Map<string, number>()
  scope.blocks.push(names)
  try {
    for (const clause of clauses) {
      if (clause.kind !== 'for') continue
      const bound = new Set<string>()
      targetNames(clause.target, bound)
      for (const n of bound) if (!names.has(n)) names.set(n, scope.numSlots++)
    }
    let inner: Emit = makeEmit()
    for (let i = clauses.length - 1; i >= 0; i--) {
      const clause = clauses[i]!
      const next = inner
      if (clause.kind === 'if') {
        const condition = c.expr(clause.condition)
        inner = (fr, acc) => {
          if (truth(condition(fr))) next(fr, acc)
        }
        continue
      }
      const iterable = i === 0 ? firstIterable : c.expr(clause.iterable)
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
