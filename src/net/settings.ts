// The `network:` section of warden.yaml, validated where it is loaded: the allow list for
// internal services, redirects, and the response size and time caps of the outbound client.

import { z } from 'zod'
import { compileAllowList } from './policy.js'
import type { OutboundClientOptions } from './types.js'

function isAllowEntry(entry: string): boolean {
  try {
    compileAllowList([entry])
    return entry.trim().length > 0
  } catch {
    return false
  }
}

/** Schema of `network: { allow, followRedirects, maxResponseBytes, timeoutMs, allowCredentials }`. */
export const networkSettingsSchema = z
  .object({
    allow: z
      .array(z.string().refine(isAllowEntry, 'entries must be CIDR ranges, addresses or host names'), {
        error:
          'must be a list of CIDR ranges, addresses or host names, e.g. ["10.0.0.0/8", "hooks.internal"]',
      })
      .max(1000, 'must list at most 1000 entries')
      .optional(),
    followRedirects: z
      .union([z.boolean(), z.number().int().min(0).max(20)], {
        error: 'must be true, false or a number of hops (0-20)',
      })
      .optional(),
    maxResponseBytes: z
      .number({ error: 'must be a number of bytes' })
      .int()
      .positive()
      .max(64 * 1024 * 1024, 'must be at most 64 MiB')
      .optional(),
    timeoutMs: z
      .number({ error: 'must be a number of milliseconds' })
      .int()
      .positive()
      .max(600_000)
      .optional(),
    allowCredentials: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict()

/** The outbound client options a validated `network:` section gives. */
export function networkOptions(section: unknown): OutboundClientOptions {
  const parsed = networkSettingsSchema.safeParse(section ?? {})
  return parsed.success ? (parsed.data as OutboundClientOptions) : {}
}
