// The per-request checks of ACS that need no state but the settings and the clock: the
// timestamp window (§10.3), refusing with the ACS error that says what to fix. The request
// signature (§10) is checked in ./signatures.ts, which keeps the session keys.

import type { AcsRequest } from '../core/index.js'
import { ACS_ERRORS, AcsError } from '../core/index.js'
import type { AcsSettings } from './settings.js'

/** §10.3: the request's timestamp within the skew window of the Guardian's clock. */
export function timestampCheck(request: AcsRequest, settings: AcsSettings, now: number): void {
  const skew = Math.abs(now - request.timestamp)
  if (skew > settings.skewWindowMs) {
    throw new AcsError(
      ACS_ERRORS.timestampOutOfWindow,
      `timestamp is ${Math.round(skew / 1000)} s from the Guardian's clock, outside the ${settings.skewWindowMs} ms window; correct the clock and send a fresh request`,
      { skew_window_ms: settings.skewWindowMs },
    )
  }
}
