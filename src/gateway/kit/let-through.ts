// The audit of an operator's let-through: when a gateway lets a named unknown type through
// (`llm.allowUnknownTypes`, `mcp.allowUnknownTypes`, `a2a.allowUnknownTypes`), the call's
// payload lists the keys, and this recorder adds the reason codes
// `unknown-type-let-through` and `unknown-type-let-through:<key>` to that decision's record,
// so `warden decisions`, the UI and the audit show which calls went through unchecked.

import type { DecisionRecord, Recorder } from '../../core/index.js'

/** The reason code on the record of a call that carried a let-through type. */
export const LET_THROUGH_CODE = 'unknown-type-let-through'

/**
 * A recorder that adds the let-through reason codes to the records `keysOf` finds keys in,
 * and passes every other record on unchanged.
 */
export function letThroughRecorder(next: Recorder, keysOf: (record: DecisionRecord) => string[]): Recorder {
  const recorder: Recorder = {
    record(record) {
      const keys = keysOf(record)
      if (keys.length === 0) return next.record(record)
      const reasonCode = [
        ...record.decision.reasonCode,
        LET_THROUGH_CODE,
        ...keys.map((key) => `${LET_THROUGH_CODE}:${key}`),
      ]
      return next.record({ ...record, decision: { ...record.decision, reasonCode } })
    },
  }
  if (next.breakerTripped) recorder.breakerTripped = next.breakerTripped.bind(next)
  return recorder
}

/** The string keys listed at `payload[section][field]` of a record, if any. */
export function listedKeys(record: DecisionRecord, section: string, field: string): string[] {
  const holder = record.event.payload[section]
  const keys =
    holder !== null && typeof holder === 'object' && !Array.isArray(holder)
      ? (holder as Record<string, unknown>)[field]
      : undefined
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : []
}
