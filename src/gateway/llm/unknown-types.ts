// The operator's `llm.allowUnknownTypes`: the item types of the model APIs' tables it lets
// through unchecked, each entry checked against the tables (a typo lets nothing through
// silently otherwise), and the audit of each let-through: the call's `model.pre` and
// `model.post` events list the keys (`model.unknownTypesLetThrough`, which hooks can deny
// on), and their decision records carry the reason codes `unknown-type-let-through` and
// `unknown-type-let-through:<key>`.

import type { DecisionRecord, Recorder } from '../../core/index.js'
import { type ItemTable, type UnknownTypePolicy, unknownTypePolicy } from '../kit/index.js'
import { ANTHROPIC_TABLES } from './anthropic-tables.js'
import { isObject } from './api.js'
import { CHAT_TABLES } from './chat-tables.js'
import { LLM_TYPES_SETTING } from './item-types.js'

/** Every table of the model APIs the gateway speaks. */
export const LLM_TABLES: readonly ItemTable[] = [...CHAT_TABLES, ...ANTHROPIC_TABLES]

/** The reason code of a decision on a call that carried unknown types let through. */
export const LET_THROUGH_CODE = 'unknown-type-let-through'

/**
 * The policy of `llm.allowUnknownTypes`.
 * @param onLetThrough told of each let-through (the security log)
 * @throws Error naming an entry that is not a `protocol/place/type` key of a table, or names
 *   a type that is never let through.
 */
export function llmUnknownTypes(
  entries: readonly string[] | undefined,
  onLetThrough?: UnknownTypePolicy['onLetThrough'],
): UnknownTypePolicy {
  return unknownTypePolicy(LLM_TYPES_SETTING, entries ?? [], LLM_TABLES, onLetThrough)
}

/** The keys a recorded `model.pre`/`model.post` event lists as let through. */
function letThroughOf(record: DecisionRecord): string[] {
  const model = record.event.payload.model
  const keys = isObject(model) ? model.unknownTypesLetThrough : undefined
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : []
}

/** A recorder that adds the let-through reason codes to the records of such calls. */
export function letThroughRecorder(next: Recorder): Recorder {
  const recorder: Recorder = {
    record(record) {
      const keys = letThroughOf(record)
      if (keys.length === 0) return next.record(record)
      const reasonCode = [
        ...record.decision.reasonCode,
        LET_THROUGH_CODE,
        ...keys.map((k) => `${LET_THROUGH_CODE}:${k}`),
      ]
      return next.record({ ...record, decision: { ...record.decision, reasonCode } })
    },
  }
  if (next.breakerTripped) recorder.breakerTripped = next.breakerTripped.bind(next)
  return recorder
}
