// Chat Completions tool calls, whole or streamed: read as `tool.pre` sees them (function
// calls with their JSON arguments, custom tool calls with their free-text input), rewritten
// to carry a hook's input, or refused when their shape cannot be read.

import type { Json, JsonObject } from '../../core/index.js'
import { isObject, parseArguments, type ToolCallView } from './api.js'

/** A Chat tool call (from an answer or a stream) as `tool.pre` sees it, or why it cannot be read. */
export function chatCall(call: Json, key: string): ToolCallView | string {
  if (!isObject(call)) return 'a tool call is not an object'
  const id = typeof call.id === 'string' ? call.id : ''
  if (call.type === 'custom') {
    const custom = isObject(call.custom) ? call.custom : undefined
    if (!custom || typeof custom.name !== 'string' || typeof custom.input !== 'string')
      return 'a custom tool call has no name or input'
    return { id, key, name: custom.name, input: { input: custom.input } }
  }
  const fn = isObject(call.function) ? call.function : undefined
  if (!fn || typeof fn.name !== 'string' || fn.name === '') return 'a function tool call has no name'
  if (fn.arguments !== undefined && typeof fn.arguments !== 'string')
    return `the arguments of tool call ${fn.name.slice(0, 64)} are not text`
  return { id, key, name: fn.name, input: parseArguments(fn.arguments ?? '') }
}

/** A tool call rewritten to carry `input`. */
export function rewrittenCall(call: JsonObject, input: JsonObject): JsonObject {
  if (call.type === 'custom' && isObject(call.custom)) {
    const text = typeof input.input === 'string' ? input.input : JSON.stringify(input)
    return { ...call, custom: { ...call.custom, input: text } }
  }
  const fn = isObject(call.function) ? call.function : {}
  return { ...call, function: { ...fn, arguments: JSON.stringify(input) } }
}

/** Whether a field's value carries nothing (absent, null or an empty list). */
export function empty(value: Json | undefined): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0)
}
