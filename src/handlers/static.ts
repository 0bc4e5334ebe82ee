// The static handlers: `deny`, `allow` and `ask` answer the same for every event they run
// for, without I/O. With a matcher and an `if`, one hook entry is a whole rule ("deny Bash
// when the command touches /srv/prod"); the MCP gateway also reads matcher-only `deny`
// hooks to hide tools from the client.

import { z } from 'zod'
import { formatZodError, type HandlerFactory, type Verdict, WardenError } from '../core/index.js'

/** The static handler types. */
export const STATIC_HANDLER_TYPES = ['deny', 'allow', 'ask'] as const

/** One of the static handler types. */
export type StaticHandlerType = (typeof STATIC_HANDLER_TYPES)[number]

/** `handler: { type: deny | allow | ask, reason? }`. */
export interface StaticConfig {
  type: StaticHandlerType
  reason?: string
}

function schemaOf(type: StaticHandlerType) {
  return z
    .object({
      type: z.literal(type),
      reason: z
        .string({ error: 'must be a string: the reason given with the decision' })
        .min(1, 'must not be empty; omit it for the default reason')
        .max(2000, 'must be at most 2000 characters')
        .optional(),
    })
    .strict()
}

/** A factory answering one fixed verdict, made from the configured reason (if any) and the hook's name. */
function staticHandler(
  type: StaticHandlerType,
  verdict: (reason: string | undefined, hookName: string) => Verdict,
): HandlerFactory {
  const schema = schemaOf(type)
  return {
    type,
    prepare(config, hook) {
      const parsed = schema.safeParse(config)
      if (!parsed.success)
        throw new WardenError('invalid-hook', formatZodError(parsed.error, `hook "${hook.name}": handler`))
      const reason = parsed.data.reason
      const name = hook.name
      // A fresh verdict per call: nothing downstream may share (and change) another's.
      return () => verdict(reason, name)
    },
  }
}

/** `handler: { type: deny, reason? }`: denies every event it runs for (default reason `denied by hook "<name>"`). */
export const denyHandler: HandlerFactory = staticHandler('deny', (reason, name) => ({
  type: 'deny',
  reason: reason ?? `denied by hook "${name}"`,
}))

/** `handler: { type: allow, reason? }`: allows every event it runs for (a plain allow without a reason). */
export const allowHandler: HandlerFactory = staticHandler('allow', (reason) =>
  reason === undefined ? { type: 'allow' } : { type: 'allow', reason },
)

/** `handler: { type: ask, reason? }`: asks a human to approve every event it runs for (default reason `asked by hook "<name>"`). */
export const askHandler: HandlerFactory = staticHandler('ask', (reason, name) => ({
  type: 'ask',
  reason: reason ?? `asked by hook "${name}"`,
}))
