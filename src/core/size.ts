// Payload size checks: a cheap upper bound by walking the value, and the exact UTF-8 JSON
// size only for payloads that could be over the cap.

import type { JsonObject } from './events.js'

/**
 * UTF-8 size of the payload as JSON. A cheap walk first bounds it from above (no JSON
 * character takes more than 6 bytes); only a payload that could be over the cap is
 * serialised to count exactly.
 */
export function payloadBytes(payload: JsonObject, cap: number): number {
  const bound = sizeBound(payload, Math.floor(cap / 6), 0)
  if (bound >= 0 && bound * 6 <= cap) return bound
  let json: string
  try {
    json = JSON.stringify(payload)
  } catch {
    return Number.POSITIVE_INFINITY
  }
  if (json.length * 3 <= cap) return json.length
  return new TextEncoder().encode(json).length
}

/** Characters of a value's JSON (structure counted generously), or -1 once over `limit`. */
function sizeBound(value: unknown, limit: number, depth: number): number {
  if (typeof value === 'string') return value.length + 2
  if (typeof value !== 'object' || value === null) return 24
  if (depth > 64) return -1
  let total = 2
  if (Array.isArray(value)) {
    for (const item of value) {
      const size = sizeBound(item, limit - total, depth + 1)
      if (size < 0) return -1
      total += size + 1
      if (total > limit) return -1
    }
    return total
  }
  for (const key in value) {
    const size = sizeBound((value as Record<string, unknown>)[key], limit - total, depth + 1)
    if (size < 0) return -1
    total += key.length + 4 + size
    if (total > limit) return -1
  }
  return total
}
