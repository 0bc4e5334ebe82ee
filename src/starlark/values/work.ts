// How much work a value stands for when an operation reads or builds it, in the units the
// Thread charges (characters, or ITEM_WORK per element): what lets a builtin or operator
// on a large string or list be charged before it runs, so the step and wall-time limits
// hold inside one call as they do across loop iterations.

import { ITEM_WORK } from '../base/index.js'
import type { Value } from './value.js'
import { StarList, StarTuple } from './values.js'

/** A value's size in work units: its characters, or ITEM_WORK per list or tuple element. */
export function workOf(value: Value | undefined): number {
  if (typeof value === 'string') return value.length
  if (value instanceof StarList || value instanceof StarTuple) return value.items.length * ITEM_WORK
  return 0
}

/** The total size in work units of a call's positional arguments. */
export function workOfArgs(args: readonly Value[]): number {
  let total = 0
  for (let i = 0; i < args.length; i++) total += workOf(args[i])
  return total
}
