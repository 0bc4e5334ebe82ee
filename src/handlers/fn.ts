// The `fn` handler: an in-process function supplied by an embedder, sync or async,
// returning a decision (a verdict, `{decision, reason, ...}`, or nothing for no opinion).

import { type HandlerFactory, type HookCall, WardenError } from '../core/index.js'

/** The function an `fn` hook runs. */
export type HookFunction = (call: HookCall) => unknown

/** `handler: { type: 'fn', fn }`. */
export const fnHandler: HandlerFactory = {
  type: 'fn',
  prepare(config, hook) {
    const fn = config.fn
    if (typeof fn !== 'function') {
      throw new WardenError(
        'invalid-hook',
        `hook "${hook.name}": handler.fn must be a function (got ${typeof fn})`,
      )
    }
    return fn as HookFunction
  },
}
