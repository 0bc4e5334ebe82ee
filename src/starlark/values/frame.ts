// What a compiled function is at run time: status codes of compiled statements, the frame
// (activation record) of one call, and the unchanging code of a `def` or `lambda`. Kept
// apart from calling so that the value classes can refer to functions without a cycle.

import type { Pos, Thread } from '../base/index.js'
import type { Value } from './value.js'

/** Status codes returned by compiled statements. */
export const NORMAL = 0
export const BREAK = 1
export const CONTINUE = 2
export const RETURN = 3

/** A compiled statement: runs and returns a status code. */
export type Exec = (frame: Frame) => number

/** The activation record of one function call (or of a module body). */
export class Frame {
  ret: Value = null
  constructor(
    /** Local variable slots; undefined means "not yet assigned". */
    readonly s: (Value | undefined)[],
    /** Module globals and predeclared values. */
    readonly g: (Value | undefined)[],
    readonly t: Thread,
    /** Frame of the enclosing function, for closures. */
    readonly up: Frame | null,
  ) {}
}

/** Everything about a compiled `def` or `lambda` that does not change between calls. */
export interface FunctionCode {
  name: string
  file: string
  pos: Pos
  /** Parameter names in slot order: positional, keyword-only, then *args and **kwargs. */
  paramNames: string[]
  /** Parameters that may be given positionally. */
  numPositional: number
  numKwOnly: number
  /** Slot of `*args`, or -1. */
  varargsSlot: number
  /** Slot of `**kwargs`, or -1. */
  kwargsSlot: number
  numSlots: number
  body: Exec
  /** Whether a call is in progress (used to forbid recursion). */
  active: boolean
}
