// `ocsf:` in warden.yaml: where decisions go as OCSF events — a JSON-lines file rotated by
// size, an HTTP sink taking batched POSTs (a SIEM's collector), or both — and how much may
// wait for them. Header values of the HTTP sink are secret references (env:NAME, file:PATH,
// wsec:v1:…), never written in clear.

import { resolve } from 'node:path'
import { z } from 'zod'
import { formatZodError, WardenError } from '../../core/index.js'
import { openSecretRef, SECRET_REF, SECRET_REF_FORMS, type SealedOpener } from '../../secrets/index.js'

/** Schema of `ocsf:`. */
export const ocsfSettingsSchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    file: z
      .object({
        path: z.string({ error: 'is required: the JSON-lines file events are appended to' }).min(1),
        maxBytes: z
          .number()
          .int()
          .min(4096)
          .max(64 * 1024 * 1024 * 1024)
          .optional(),
        keep: z.number().int().min(1).max(100).optional(),
      })
      .strict()
      .optional(),
    http: z
      .object({
        url: z
          .string({ error: 'is required: the collector to POST batches of events to' })
          .regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL'),
        headers: z
          .record(
            z.string(),
            z.string().regex(SECRET_REF, `must be a secret reference (${SECRET_REF_FORMS})`),
            { error: 'must map header names to secret references' },
          )
          .optional(),
        batchSize: z.number().int().positive().max(10_000).optional(),
        intervalMs: z.number().int().min(10).max(60_000).optional(),
        timeoutMs: z.number().int().positive().max(60_000).optional(),
        maxAttempts: z.number().int().positive().max(10).optional(),
      })
      .strict()
      .optional(),
    maxQueue: z.number().int().positive().max(1_000_000).optional(),
  })
  .strict()

/** `ocsf:` resolved, defaults applied. */
export interface OcsfSettings {
  file?: { path: string; maxBytes: number; keep: number }
  http?: {
    url: string
    headers: Record<string, string>
    batchSize: number
    intervalMs: number
    timeoutMs: number
    maxAttempts: number
  }
  /** Events waiting per sink; more are dropped and counted. */
  maxQueue: number
}

/** Defaults of `ocsf:`. */
export const OCSF_DEFAULTS = {
  maxBytes: 100 * 1024 * 1024,
  keep: 5,
  batchSize: 500,
  intervalMs: 1_000,
  timeoutMs: 10_000,
  maxAttempts: 3,
  maxQueue: 10_000,
} as const

function invalid(message: string): WardenError {
  return new WardenError('invalid-config', message)
}

/**
 * Checks `ocsf:` and opens its header secrets; undefined when absent or `enabled: false`.
 * @throws WardenError `invalid-config` naming the field and what to change.
 */
export function resolveOcsfSettings(
  raw: unknown,
  options: { env: Record<string, string | undefined>; baseDir: string; box?: SealedOpener },
): OcsfSettings | undefined {
  if (raw === undefined || raw === null) return undefined
  const parsed = ocsfSettingsSchema.safeParse(raw)
  if (!parsed.success) throw invalid(formatZodError(parsed.error, 'ocsf'))
  const input = parsed.data
  if (input.enabled === false) return undefined
  if (!input.file && !input.http) throw invalid('ocsf: name a sink: file: { path } or http: { url }, or both')
  const d = OCSF_DEFAULTS
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(input.http?.headers ?? {})) {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(name) || /^(?:host|content-length|content-type)$/i.test(name))
      throw invalid(`ocsf.http.headers: "${name.slice(0, 64)}" cannot be set`)
    headers[name] = openSecretRef(
      `ocsf.http.headers.${name}`,
      value,
      options.env,
      options.baseDir,
      options.box,
    )
  }
  return {
    ...(input.file
      ? {
          file: {
            path: resolve(options.baseDir, input.file.path),
            maxBytes: input.file.maxBytes ?? d.maxBytes,
            keep: input.file.keep ?? d.keep,
          },
        }
      : {}),
    ...(input.http
      ? {
          http: {
            url: input.http.url,
            headers,
            batchSize: input.http.batchSize ?? d.batchSize,
            intervalMs: input.http.intervalMs ?? d.intervalMs,
            timeoutMs: input.http.timeoutMs ?? d.timeoutMs,
            maxAttempts: input.http.maxAttempts ?? d.maxAttempts,
          },
        }
      : {}),
    maxQueue: input.maxQueue ?? d.maxQueue,
  }
}
