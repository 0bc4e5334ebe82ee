// The settings every gateway section (`llm:`, `a2a:`) shares: how a byte count, a duration
// and the limits in flight are written and bounded, so each section accepts the same ranges
// and names a wrong value the same way.

import { z } from 'zod'

/** A number of bytes: a whole number from 1 to 256 MiB. */
export const byteSetting = z
  .number({ error: 'must be a number of bytes' })
  .int()
  .positive()
  .max(256 * 1024 * 1024)

/** A duration in milliseconds: a whole number from 1 to a day. */
export const millisSetting = z
  .number({ error: 'must be a number of milliseconds' })
  .int()
  .positive()
  .max(86_400_000)

/** `maxInFlight` and `maxInFlightBytes`: the bounds on requests and body bytes in flight. */
export const inFlightSettings = {
  maxInFlight: z.number().int().positive().max(1_000_000).optional(),
  maxInFlightBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024 * 1024)
    .optional(),
}
