// The AOS codec the `guardian` handlers use to talk to remote Guardians: an event becomes
// a complete AOS request, and the remote's answer becomes a verdict.

import type { CheckedEvent, EventName, JsonObject } from '../../core/index.js'
import type { GuardianCodec } from '../../handlers/index.js'
import type { RpcId, RpcRequest } from './jsonrpc.js'
import { aosMethodFor, eventToRequest } from './methods.js'
import { answerToVerdict } from './result.js'

/** Creates the codec that speaks AOS JSON-RPC to remote Guardians. */
export function createAosGuardianCodec(): GuardianCodec {
  return {
    supports: (event: EventName) => aosMethodFor(event) !== undefined,
    encode: (event: CheckedEvent, id: string) => eventToRequest(event, id) as unknown as JsonObject,
    decode: (answer: unknown, sent: JsonObject) =>
      answerToVerdict(answer, sent as unknown as RpcRequest & { id: RpcId }),
  }
}

/** The events a remote Guardian can be asked about (those with an AOS method). */
export function aosEvents(events: readonly EventName[]): EventName[] {
  return events.filter((event) => aosMethodFor(event) !== undefined)
}
