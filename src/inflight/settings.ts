// The in-flight limits of a server from its settings (`server:` for `warden serve`, `a2a:`
// for `warden a2a`, flags for `warden mcp --upstream`): what is set wins, the rest is
// derived from the machine, and the bytes limit is never below the largest body the server
// accepts, or a body that size could never be admitted.

import { type InFlightLimit, InFlightLimiter, machineInFlightLimits } from './limiter.js'

/** The settings a section may give. */
export interface InFlightSettings {
  maxInFlight?: number | undefined
  maxInFlightBytes?: number | undefined
}

/** The largest body a server accepts, and the setting that sets it. */
export interface BodyLimit {
  bytes: number
  setting: string
}

/**
 * Builds the limiter of a server.
 * @param names the section's name (`server`, `a2a`) or a name per limit, used in messages
 * @throws RangeError naming the setting that is wrong and how to fix it
 */
export function inFlightLimiterFor(
  settings: InFlightSettings,
  names: string | Record<InFlightLimit, string>,
  bodyLimit: BodyLimit,
): InFlightLimiter {
  const bytesName = typeof names === 'string' ? `${names}.maxInFlightBytes` : names.maxInFlightBytes
  const derived = machineInFlightLimits()
  const bytes = settings.maxInFlightBytes ?? Math.max(derived.maxInFlightBytes, bodyLimit.bytes)
  if (bytes < bodyLimit.bytes) {
    throw new RangeError(
      `${bytesName} (${bytes}) must be at least ${bodyLimit.setting} (${bodyLimit.bytes}), or a body that size could never be admitted`,
    )
  }
  return new InFlightLimiter(
    { maxInFlight: settings.maxInFlight ?? derived.maxInFlight, maxInFlightBytes: bytes },
    names,
  )
}
