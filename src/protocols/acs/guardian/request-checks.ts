// The per-request checks of ACS that need no state but the settings and the clock: the
// timestamp window (§10.3) and a batch's size (§3), refusing with the ACS error that says what
// to fix; and the answer to `system/ping` (§13). The request signature (§10) is checked in
// ./signatures.ts, which keeps the session keys.

import type { JsonObject } from '../../../core/index.js'
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

/** §3: why a batch cannot be answered (empty, or over `maxBatch` requests); undefined when it can. */
export function batchRefusal(batch: unknown[], maxBatch: number): AcsError | undefined {
  if (batch.length === 0)
    return new AcsError(ACS_ERRORS.invalidRequest, 'an empty batch; send at least one request')
  if (batch.length > maxBatch) {
    return new AcsError(
      ACS_ERRORS.invalidRequest,
      `a batch of ${batch.length} requests is over the limit of ${maxBatch}`,
    )
  }
  return undefined
}

/** §13: the result of `system/ping`: always allow, `status: ok`, the server's time and the echo. */
export function pingResult(params: JsonObject, now: number): JsonObject {
  const sent = params.payload as JsonObject | undefined
  const payload: JsonObject = { status: 'ok', server_timestamp: new Date(now).toISOString() }
  if (typeof sent?.echo === 'string') payload.echo = sent.echo
  return { type: 'final', decision: 'allow', payload }
}
