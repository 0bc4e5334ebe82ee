// The frames Warden writes itself into a streamed Responses answer, each built from an
// explicit list of fields: nothing of the upstream's event is spread into them, so a field
// Warden did not check (the original text of a redacted part, logprobs) cannot ride along.

import type { Json, JsonObject } from '../../core/index.js'
import { frame, isObject } from './api.js'

/** The fields every synthetic frame keeps from the upstream's event. */
function base(type: string, data: JsonObject): JsonObject {
  return {
    type,
    sequence_number: typeof data.sequence_number === 'number' ? data.sequence_number : 0,
  }
}

function at(data: JsonObject): JsonObject {
  const out: JsonObject = {
    item_id: typeof data.item_id === 'string' ? data.item_id : null,
    output_index: typeof data.output_index === 'number' ? data.output_index : 0,
  }
  if (typeof data.content_index === 'number') out.content_index = data.content_index
  return out
}

/** A text or refusal delta carrying only the released text (logprobs emptied). */
export function deltaFrame(type: string, data: JsonObject, delta: string): string {
  const out: JsonObject = { ...base(type, data), ...at(data), delta }
  if (type === 'response.output_text.delta') out.logprobs = []
  return frame(JSON.stringify(out), type)
}

/** The end of a text (`text`) or refusal (`refusal`) with the released text only. */
export function textDoneFrame(type: string, data: JsonObject, text: string): string {
  const refusal = type === 'response.refusal.done'
  const out: JsonObject = { ...base(type, data), ...at(data) }
  if (refusal) out.refusal = text
  else {
    out.text = text
    out.logprobs = []
  }
  return frame(JSON.stringify(out), type)
}

/** A content part with the released text (for `added`, empty). */
export function partFrame(type: string, data: JsonObject, text: string): string {
  const part = isObject(data.part) ? data.part : {}
  const shaped: JsonObject =
    part.type === 'refusal'
      ? { type: 'refusal', refusal: text }
      : { type: 'output_text', text, annotations: Array.isArray(part.annotations) ? part.annotations : [] }
  if (part.type === 'output_text') shaped.logprobs = []
  return frame(JSON.stringify({ ...base(type, data), ...at(data), part: shaped }), type)
}

/** An output item event (`added` or `done`) carrying `item` as Warden built it. */
export function itemFrame(type: string, data: JsonObject, item: JsonObject): string {
  const out: JsonObject = {
    ...base(type, data),
    output_index: typeof data.output_index === 'number' ? data.output_index : 0,
    item,
  }
  return frame(JSON.stringify(out), type)
}

/** A message item holding the checked texts of its parts (in the order they came). */
export function messageItem(item: JsonObject, parts: JsonObject[]): JsonObject {
  const out: JsonObject = {
    id: typeof item.id === 'string' ? item.id : null,
    type: 'message',
    role: 'assistant',
    status: typeof item.status === 'string' ? item.status : 'completed',
    content: parts,
  }
  return out
}

/** A response event (`completed`, `incomplete`, `failed`) carrying the checked response. */
export function responseFrame(type: string, data: JsonObject, response: JsonObject): string {
  return frame(JSON.stringify({ ...base(type, data), response }), type)
}

/** The released text of one part, shaped as its type is. */
export function releasedPart(
  type: Json | undefined,
  text: string,
  annotations: Json | undefined,
): JsonObject {
  if (type === 'refusal') return { type: 'refusal', refusal: text }
  return {
    type: 'output_text',
    text,
    annotations: Array.isArray(annotations) ? annotations : [],
    logprobs: [],
  }
}
