// Structured JSON logs (pino). Secrets never reach a log line: a value whose key names a
// secret (authorization, password, token, api key, cookie, ...; any case, at any depth) is
// replaced, and in every string (the message included) the credentials and query values of
// a URL and a bearer token are masked.

import pino, { type DestinationStream, type Logger } from 'pino'

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** trace, debug, info, warn, error, fatal or silent. Default WARDEN_LOG_LEVEL or info. */
  level?: string
  /** Where lines go. Default stderr. */
  destination?: DestinationStream
  /** Extra fields on every line. */
  base?: Record<string, unknown>
}

/** What replaces a secret value. */
export const REDACTED = '[redacted]'

/** Keys whose values are secrets, wherever they appear in a log object. */
const SECRET_KEY =
  /(authorization|pass(word|wd|phrase)|secret|token|api[-_]?key|cookie|credential|private[-_]?key)/i

/** Paths pino itself redacts (kept for callers that configure pino on their own). */
export const REDACTED_PATHS = [
  'authorization',
  'Authorization',
  'password',
  'token',
  'secret',
  'apiKey',
  'api_key',
  'cookie',
].flatMap((f) => [f, `*.${f}`, `*.*.${f}`])

/** Deepest level of a log object that is looked into; below it values are dropped. */
const MAX_DEPTH = 10

/** Masks each value of a URL's query (`?api_key=***&b=***`), names kept. */
function maskQueryValues(url: string): string {
  const at = url.indexOf('?')
  if (at < 0) return url
  const hash = url.indexOf('#', at)
  const query = url.slice(at + 1, hash < 0 ? undefined : hash)
  const masked = query
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=')
      return eq < 0 ? (part === '' ? '' : '***') : `${part.slice(0, eq)}=***`
    })
    .join('&')
  return `${url.slice(0, at + 1)}${masked}`
}

/**
 * Masks the password (or the user name when it stands alone) and the query values of URLs,
 * and bearer tokens, in a string.
 */
export function scrubText(text: string): string {
  let out = text
  if (out.includes('://')) {
    out = out
      .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, '$1:***@')
      .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s:/@?#]+@/gi, '$1***@')
      .replace(/\bhttps?:\/\/[^\s"'<>?]*\?[^\s"'<>]*/gi, maskQueryValues)
  }
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${REDACTED}`)
}

/** True when a key names a secret value. */
export function isSecretField(key: string): boolean {
  return SECRET_KEY.test(key)
}

function scrub(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return scrubText(value)
  if (typeof value !== 'object' || value === null) return value
  if (depth > MAX_DEPTH) return '[too deep]'
  if (seen.has(value)) return '[circular]'
  seen.add(value)
  if (value instanceof Error) {
    const out: Record<string, unknown> = { type: value.name, message: scrubText(value.message) }
    if (value.stack) out.stack = scrubText(value.stack)
    const code = (value as { code?: unknown }).code
    if (code !== undefined) out.code = code
    return out
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1, seen))
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    const plain = typeof inner === 'number' || typeof inner === 'boolean' || inner == null
    out[key] = isSecretField(key) && !plain ? REDACTED : scrub(inner, depth + 1, seen)
  }
  return out
}

/** A log object with every secret replaced (see the header). */
export function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  return scrub(object, 0, new WeakSet()) as Record<string, unknown>
}

/** Creates Warden's logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.WARDEN_LOG_LEVEL ?? 'info',
      base: { service: 'warden', ...options.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { log: redactLogObject },
      serializers: { err: (error: unknown) => scrub(error, 0, new WeakSet()) },
      hooks: {
        logMethod(args, method) {
          const [first, ...rest] = args as unknown[]
          const given =
            first instanceof Error
              ? [{ err: first }, typeof rest[0] === 'string' ? rest.shift() : first.message, ...rest]
              : (args as unknown[])
          const clean = given.map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg))
          method.apply(this, clean as Parameters<typeof method>)
        },
      },
    },
    options.destination ?? pino.destination(2),
  )
}

export type { Logger }
