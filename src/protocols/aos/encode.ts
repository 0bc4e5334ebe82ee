// A response body as JSON text, the same as `JSON.stringify` gives but cheaper for the
// part every decision carries: `result.data.trace`, one entry per hook, whose fixed part
// (hook, handler, version) is written once per hook and kept.

import type { HookTrace, Json } from '../../core/index.js'

/** The fixed start of a plain trace entry, by hook name. */
interface Prefix {
  handler: string
  version: number
  text: string
}

const PREFIXES = new Map<string, Prefix>()
const KEYS = new Map<string, string>()
const MAX_PREFIXES = 1024
const TRACE_KEYS = 5

/** The outcomes written as they are (no escaping needed). */
const OUTCOMES: ReadonlySet<string> = new Set(['allow', 'deny', 'ask', 'modify', 'abstain', 'skipped'])

/**
 * The JSON text of a response body (one response or a batch), equal in content to
 * `JSON.stringify(reply)`.
 */
export function encodeReply(reply: unknown): string {
  if (!isPlainObject(reply)) return JSON.stringify(reply)
  return encodeObject(reply, encodeTopLevel)
}

type Encoder = (key: string, value: unknown) => string | undefined

function encodeTopLevel(key: string, value: unknown): string | undefined {
  return key === 'result' && isPlainObject(value) ? encodeObject(value, encodeResult) : JSON.stringify(value)
}

function encodeResult(key: string, value: unknown): string | undefined {
  return key === 'data' && isPlainObject(value) ? encodeObject(value, encodeData) : JSON.stringify(value)
}

function encodeData(key: string, value: unknown): string | undefined {
  return key === 'trace' && Array.isArray(value) ? encodeTrace(value) : JSON.stringify(value)
}

/** An object's members in their own order, each value written by `encode`. */
function encodeObject(object: Record<string, unknown>, encode: Encoder): string {
  let text = '{'
  for (const key in object) {
    const value = object[key]
    if (value === undefined) continue
    const json = encode(key, value)
    if (json === undefined) continue
    text += `${text.length > 1 ? ',' : ''}${quoted(key)}:${json}`
  }
  return `${text}}`
}

/** A member name as JSON, kept for the few names responses use. */
function quoted(key: string): string {
  let text = KEYS.get(key)
  if (text === undefined) {
    text = JSON.stringify(key)
    if (KEYS.size < MAX_PREFIXES) KEYS.set(key, text)
  }
  return text
}

function encodeTrace(trace: Json[]): string {
  let text = '['
  for (let i = 0; i < trace.length; i++) {
    if (i > 0) text += ','
    text += encodeEntry(trace[i] as unknown as HookTrace)
  }
  return `${text}]`
}

/** A trace entry with only the five members every entry has uses the kept prefix. */
function encodeEntry(entry: HookTrace): string {
  if (
    !isPlainObject(entry) ||
    typeof entry.hook !== 'string' ||
    typeof entry.handler !== 'string' ||
    typeof entry.version !== 'number' ||
    !OUTCOMES.has(entry.outcome) ||
    !Number.isFinite(entry.durationMs) ||
    Object.keys(entry).length !== TRACE_KEYS
  ) {
    return JSON.stringify(entry)
  }
  return `${prefixOf(entry)}${entry.outcome}","durationMs":${entry.durationMs}}`
}

function prefixOf(entry: HookTrace): string {
  const kept = PREFIXES.get(entry.hook)
  if (kept !== undefined && kept.handler === entry.handler && kept.version === entry.version) {
    return kept.text
  }
  const text = `{"hook":${JSON.stringify(entry.hook)},"handler":${JSON.stringify(entry.handler)},"version":${JSON.stringify(entry.version)},"outcome":"`
  if (PREFIXES.size >= MAX_PREFIXES) PREFIXES.clear()
  PREFIXES.set(entry.hook, { handler: entry.handler, version: entry.version, text })
  return text
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
