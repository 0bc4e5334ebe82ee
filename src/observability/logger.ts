// Structured JSON logs (pino), with secret-looking fields redacted wherever they appear
// at the first two levels of a log object.

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

const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'password',
  'token',
  'secret',
  'apiKey',
  'api_key',
  'cookie',
]

/** Paths pino redacts: each secret field at the top level, one and two levels down. */
export const REDACTED_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`])

/** Creates Warden's logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.WARDEN_LOG_LEVEL ?? 'info',
      base: { service: 'warden', ...options.base },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination(2),
  )
}

export type { Logger }
