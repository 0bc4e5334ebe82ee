// The operator's `llm.allowUnknownTypes`: the item types of the model APIs' tables it lets
// through unchecked, each entry checked against the tables (a typo lets nothing through
// silently otherwise), and the audit of each let-through: the call's `model.pre` and
// `model.post` events list the keys (`model.unknownTypesLetThrough`, which hooks can deny
// on), and their decision records carry the reason codes `unknown-type-let-through` and
// `unknown-type-let-through:<key>`.

import type { Recorder } from '../../core/index.js'
import {
  type ItemTable,
  letThroughRecorder,
  listedKeys,
  type UnknownTypePolicy,
  unknownTypePolicy,
} from '../kit/index.js'
import { ANTHROPIC_TABLES } from './anthropic-tables.js'
import { CHAT_TABLES } from './chat-tables.js'
import { LLM_TYPES_SETTING } from './item-types.js'
import { RESPONSES_TABLES } from './responses-tables.js'

/** Every table of the model APIs the gateway speaks. */
export const LLM_TABLES: readonly ItemTable[] = [...CHAT_TABLES, ...ANTHROPIC_TABLES, ...RESPONSES_TABLES]

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

/** A recorder that adds the let-through reason codes to the records of calls that carried such types. */
export function llmLetThroughRecorder(next: Recorder): Recorder {
  return letThroughRecorder(next, (record) => listedKeys(record, 'model', 'unknownTypesLetThrough'))
}
