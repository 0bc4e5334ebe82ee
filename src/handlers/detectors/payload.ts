// Which strings of an event's payload a detector reads, and how a redaction is written back:
// a walk over the JSON payload that yields each string with its path and key (bounded in
// depth and count), and a copy of the payload with chosen spans replaced by placeholders.

import type { Json, JsonObject } from '../../core/index.js'
import { COMMAND_KEYS } from './paths.js'
import type { Finding, ScanTarget } from './types.js'

/** One string of a payload. */
export interface PayloadString {
  /** Where it is, e.g. `["tool", "input", "command"]`. */
  path: (string | number)[]
  /** The nearest object key above it (`command` for `tool.input.command`, also for array items). */
  key: string
  value: string
}

/** Payload fields that name things rather than carry content: never scanned. */
const IDENTITY = new Set([
  'tool.name',
  'tool.id',
  'tool.isError',
  'message.role',
  'mcp.method',
  'mcp.direction',
  'a2a.method',
  'a2a.kind',
])

const PATH_KEY =
  /^(?:paths?|files?|filename|file_?name|dir|directory|folder|cwd|target|source|destination|dest|src|uri)$|(?:path|Path|_file|File|_dir|Dir)$/

const MAX_DEPTH = 64
const MAX_STRINGS = 20_000

/** The dotted form of a path: `tool.input.args[0]`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = ''
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part
  return out
}

function wanted(target: ScanTarget, key: string): boolean {
  if (target === 'all') return true
  if (target === 'commands') return COMMAND_KEYS.has(key)
  return COMMAND_KEYS.has(key) || PATH_KEY.test(key)
}

/**
 * The strings of `payload` a detector with this target reads, or only those under
 * `fields` (dotted paths such as `tool.input.url`) when given. `complete` is false when the
 * payload was too deep or held too many strings to read in full.
 */
export function payloadStrings(
  payload: JsonObject,
  target: ScanTarget,
  fields?: readonly string[],
): { strings: PayloadString[]; complete: boolean } {
  const out: PayloadString[] = []
  let complete = true
  const visit = (value: Json | undefined, path: (string | number)[], key: string, depth: number) => {
    if (value === undefined || value === null) return
    if (out.length >= MAX_STRINGS || depth > MAX_DEPTH) {
      complete = false
      return
    }
    if (typeof value === 'string') {
      const dotted = formatPath(path)
      if (IDENTITY.has(dotted)) return
      if (
        fields
          ? fields.some((f) => dotted === f || dotted.startsWith(`${f}.`) || dotted.startsWith(`${f}[`))
          : wanted(target, key)
      )
        out.push({ path, key, value })
      return
    }
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, [...path, i], key, depth + 1)
      return
    }
    if (typeof value === 'object')
      for (const [k, v] of Object.entries(value)) visit(v, [...path, k], k, depth + 1)
  }
  visit(payload, [], '', 0)
  return { strings: out, complete }
}

/** The object keys of `payload` (bounded like {@link payloadStrings}), each with the path of its object. */
export function payloadKeys(payload: JsonObject): PayloadString[] {
  const out: PayloadString[] = []
  const visit = (value: Json | undefined, path: (string | number)[], depth: number) => {
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || out.length >= MAX_STRINGS) return
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, [...path, i], depth + 1)
      return
    }
    for (const [k, v] of Object.entries(value)) {
      out.push({ path: [...path, k], key: k, value: k })
      visit(v, [...path, k], depth + 1)
    }
  }
  visit(payload, [], 0)
  return out
}

/** `text` with each finding's span replaced by the placeholder (overlapping spans merged). */
export function redactText(text: string, findings: readonly Finding[], placeholder: string): string {
  const spans = [...findings].sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (let i = 0; i < spans.length; i++) {
    const first = spans[i] as Finding
    let end = first.end
    while (i + 1 < spans.length && (spans[i + 1] as Finding).start < end)
      end = Math.max(end, (spans[++i] as Finding).end)
    if (first.start < at) continue
    out += text.slice(at, first.start) + placeholder.replace('{kind}', first.kind)
    at = end
  }
  return out + text.slice(at)
}

/** A copy of `payload` with the string at each path replaced. */
export function replaceStrings(payload: JsonObject, replacements: ReadonlyMap<string, string>): JsonObject {
  const walk = (value: Json, path: (string | number)[]): Json => {
    if (typeof value === 'string') return replacements.get(formatPath(path)) ?? value
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i]))
    if (value !== null && typeof value === 'object') {
      const out: JsonObject = {}
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, [...path, k])
      return out
    }
    return value
  }
  return walk(payload, []) as JsonObject
}
