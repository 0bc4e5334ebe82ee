// The `audit:` setting of warden.yaml as writer options: `sync`, `async`, or
// `{mode, batchSize, intervalMs, maxQueue, syncTimeoutMs, redact}` (`redact` builds the
// redactor, see redact.ts). Checked again here so a caller that builds
// options by hand gets the same clear errors as one that loads a file.

import { z } from 'zod'
import { formatZodError } from '../core/index.js'
import { redactSettingSchema } from './redact.js'
import type { AuditOptions } from './writer.js'

/** The accepted shapes of the `audit:` setting. */
export const auditSettingSchema = z.union([
  z.enum(['sync', 'async'], { error: 'must be "sync", "async" or {mode, batchSize, intervalMs}' }),
  z
    .object({
      mode: z.enum(['sync', 'async'], { error: 'must be "sync" or "async"' }).optional(),
      batchSize: z.number().int().positive().max(10_000).optional(),
      intervalMs: z.number().int().positive().max(60_000).optional(),
      maxQueue: z.number().int().positive().optional(),
      syncTimeoutMs: z.number().int().positive().max(600_000).optional(),
      /** Read by {@link createRedactor}, not by the writer. */
      redact: redactSettingSchema.optional(),
    })
    .strict(),
])

/**
 * Turns the `audit:` setting into writer options.
 * @throws Error naming the field and the fix when the setting is malformed.
 */
export function auditOptionsFromSetting(setting: unknown): AuditOptions {
  if (setting === undefined || setting === null) return {}
  const parsed = auditSettingSchema.safeParse(setting)
  if (!parsed.success) throw new Error(formatZodError(parsed.error, 'audit'))
  const value = parsed.data
  if (typeof value === 'string') return { mode: value }
  const options: AuditOptions = {}
  if (value.mode) options.mode = value.mode
  if (value.batchSize !== undefined) options.batchSize = value.batchSize
  if (value.intervalMs !== undefined) options.intervalMs = value.intervalMs
  if (value.maxQueue !== undefined) options.maxQueue = value.maxQueue
  if (value.syncTimeoutMs !== undefined) options.syncTimeoutMs = value.syncTimeoutMs
  return options
}
