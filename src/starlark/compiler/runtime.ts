// Run-time helpers of compiled statements: running a block, the operator behind each
// augmented assignment, looping over an iterable with step counting and mutation guards,
// and unpacking into tuple targets.

import { runtimeError, type Thread } from '../base/index.js'
import { extendList } from '../builtins/index.js'
import { add, bitwise, div, floorDiv, iterate, mod, mul, shift, sub } from '../ops/index.js'
import {
  BREAK,
  type Exec,
  NORMAL,
  RETURN,
  StarDict,
  StarList,
  StarRange,
  StarTuple,
  type Value,
} from '../values/index.js'

/** Runs statements in order; stops at the first that returns a status other than NORMAL. */
export function block(stmts: Exec[]): Exec {
  if (stmts.length === 0) return () => NORMAL
  if (stmts.length === 1) return stmts[0]!
  if (stmts.length === 2) {
    const [a, b] = stmts as [Exec, Exec]
    return (fr) => a(fr) || b(fr)
  }
  return (fr) => {
    for (let i = 0; i < stmts.length; i++) {
      const status = stmts[i]!(fr)
      if (status !== NORMAL) return status
    }
    return NORMAL
  }
}

/** The operation behind each augmented assignment operator (`+=` extends a list in place). */
export const BINARY_FOR_AUGMENTED: Record<string, (a: Value, b: Value, t: Thread) => Value> = {
  '+=': (a, b, t) => {
    if (a instanceof StarList) {
      extendList(a, b, t)
      return a
    }
    return add(a, b, t)
  },
  '-=': sub,
  '*=': mul,
  '/=': (a, b) => div(a, b),
  '//=': (a, b) => floorDiv(a, b),
  '%=': mod,
  '&=': (a, b, t) => bitwise('&', a, b, t),
  '|=': (a, b, t) => bitwise('|', a, b, t),
  '^=': (a, b, t) => bitwise('^', a, b, t),
  '<<=': (a, b, t) => shift('<<', a, b, t),
  '>>=': (a, b, t) => shift('>>', a, b, t),
}

/** Runs `visit` for each element of an iterable, honouring break/return status codes. */
export function loopOver(iterable: Value, thread: Thread, visit: (value: Value) => number): number {
  if (iterable instanceof StarRange) {
    for (let i = 0; i < iterable.length; i++) {
      if (++thread.steps >= thread.nextCheck) thread.checkpoint()
      const status = visit(iterable.at(i))
      if (status === BREAK) break
      if (status === RETURN) return RETURN
    }
    return NORMAL
  }
  const guarded = iterable instanceof StarList || iterable instanceof StarDict ? iterable : null
  const items = iterate(iterable, thread)
  const track = guarded !== null && !guarded.frozen
  if (track) guarded.iterating++
  try {
    for (let i = 0; i < items.length; i++) {
      if (++thread.steps >= thread.nextCheck) thread.checkpoint()
      const status = visit(items[i]!)
      if (status === BREAK) break
      if (status === RETURN) return RETURN
    }
  } finally {
    if (track) guarded.iterating--
  }
  return NORMAL
}

/** Unpacks an iterable into exactly `count` values for tuple assignment. */
export function unpack(value: Value, count: number, thread: Thread): Value[] {
  const items = value instanceof StarTuple || value instanceof StarList ? value.items : iterate(value, thread)
  if (items.length !== count) {
    throw runtimeError(
      items.length > count
        ? `too many values to unpack (got ${items.length}, want ${count})`
        : `not enough values to unpack (got ${items.length}, want ${count})`,
    )
  }
  return items
}
