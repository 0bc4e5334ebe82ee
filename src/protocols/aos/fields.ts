// Small checks for AOS params, each throwing an invalid-params error that names the field
// (`params.toolCallRequest.inputs[1].name`), plus the JSON helpers the mappings share.

import type { Json, JsonObject } from '../../core/index.js'
import { RPC_ERRORS, rpcError } from './jsonrpc.js'

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Throws invalid params for `field`. */
export function invalid(field: string, reason: string): never {
  throw rpcError(RPC_ERRORS.invalidParams, field, reason)
}

/** The value as an object, or invalid params. */
export function requireObject(value: unknown, field: string): JsonObject {
  if (!isObject(value)) invalid(field, `must be an object (got ${kind(value)})`)
  return value
}

/** The value as an array, or invalid params. */
export function requireArray(value: unknown, field: string): Json[] {
  if (!Array.isArray(value)) invalid(field, `must be an array (got ${kind(value)})`)
  return value as Json[]
}

/** The value as a non-empty string, or invalid params. */
export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    invalid(field, `must be a non-empty string (got ${kind(value)})`)
  }
  return value
}

/** Checks an optional field's type when it is present. */
export function optionalOf(
  value: unknown,
  type: 'string' | 'boolean' | 'object' | 'array',
  field: string,
): void {
  if (value === undefined) return
  const ok =
    type === 'object' ? isObject(value) : type === 'array' ? Array.isArray(value) : typeof value === type
  if (!ok)
    invalid(
      field,
      `must be ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type} (got ${kind(value)})`,
    )
}

/** Every element of an array must be an object (e.g. content parts). */
export function requireObjects(items: Json[], field: string): JsonObject[] {
  items.forEach((item, i) => {
    if (!isObject(item)) invalid(`${field}[${i}]`, `must be an object (got ${kind(item)})`)
  })
  return items as JsonObject[]
}

/** A short description of a value's type. */
export function kind(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 30)}`
}

/** Structural equality of two JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  const bo = b as Record<string, unknown>
  return ka.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]))
}

/** The text of AOS / A2A parts: the `text` of every text part, joined by newlines. */
export function partsText(parts: Json | undefined): string {
  if (!Array.isArray(parts)) return ''
  const texts: string[] = []
  for (const part of parts) {
    if (
      isObject(part) &&
      typeof part.text === 'string' &&
      (part.kind === undefined || part.kind === 'text')
    ) {
      texts.push(part.text)
    }
  }
  return texts.join('\n')
}

/**
 * Parts with their text replaced: a single text part takes the new text; several are
 * replaced by one text part where the first stood; without any, a text part is appended.
 */
export function withPartsText(parts: Json[], text: string): Json[] {
  const isText = (p: Json) =>
    isObject(p) && typeof p.text === 'string' && (p.kind === undefined || p.kind === 'text')
  const first = parts.findIndex(isText)
  if (first < 0) return [...parts, { kind: 'text', text }]
  const result: Json[] = []
  parts.forEach((part, i) => {
    if (i === first) result.push({ ...(part as JsonObject), text })
    else if (!isText(part)) result.push(part)
  })
  return result
}
