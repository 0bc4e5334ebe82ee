// Deep freezing of module globals once the module body has run: lists and dicts reachable
// from a global (including through tuples, function defaults and closures) become immutable.

import type { Value } from './value.js'
import { StarDict, StarFunction, StarList, StarTuple } from './values.js'

/** Freezes a value and everything reachable from it, iteratively (no recursion). */
export function freeze(root: Value): void {
  const stack: Value[] = [root]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const value = stack.pop()!
    if (typeof value !== 'object' || value === null) continue
    if (value instanceof StarList) {
      if (value.frozen) continue
      value.frozen = true
      for (const item of value.items) stack.push(item)
    } else if (value instanceof StarDict) {
      if (value.frozen) continue
      value.frozen = true
      for (const [k, v] of value.entries()) stack.push(k, v)
    } else if (value instanceof StarTuple) {
      if (seen.has(value)) continue
      seen.add(value)
      for (const item of value.items) stack.push(item)
    } else if (value instanceof StarFunction) {
      if (seen.has(value)) continue
      seen.add(value)
      for (const d of value.defaults) if (d !== undefined) stack.push(d)
      for (let frame = value.closure; frame !== null; frame = frame.up) {
        if (seen.has(frame)) break
        seen.add(frame)
        for (const v of frame.s) if (v !== undefined) stack.push(v)
      }
    }
  }
}
