// The parts of `acs:` for IBAC, approvers and Trace: how a request outside the session's
// Intent is answered by default, which capabilities an approver may still add under
// `scope_mode: strict`, the approvers a client-routed ASK names (§9: type, id, endpoint,
// the key their ACS-shaped answers are verified with, what they may grant), and whether
// ACS-Trace events are emitted. Secrets are opened here and never echoed.

import { z } from 'zod'
import { WardenError } from '../../../core/index.js'
import { KEY_FORMS, keyBytes, type SecretOpener } from '../core/index.js'
import type { ScopeMode } from './intent.js'

/** `acs.intent`. */
export const intentSettingsSchema = z
  .object({
    /** The scope_mode of an Intent that names none. */
    defaultScopeMode: z.enum(['strict', 'ask', 'permissive']).optional(),
    /** Capabilities an approver may add to a `strict` session (none by default). */
    strictExtensible: z.array(z.string().min(1).max(256)).max(256).optional(),
  })
  .strict()

/** One entry of `acs.approvers`. */
export const approverSchema = z
  .object({
    id: z.string().min(1).max(128),
    type: z.enum(['agent', 'service']),
    endpoint: z.url().max(2048),
    secret: z
      .string()
      .min(1)
      .regex(/^(wsec:v1:|env:|file:)/, `must be ${KEY_FORMS}`),
    /** Capabilities this approver may grant (`prefix.*` and `*` allowed); all when omitted. */
    grants: z.array(z.string().min(1).max(256)).max(256).optional(),
  })
  .strict()

/** `acs.trace`. */
export const traceSettingsSchema = z
  .object({
    otel: z.boolean().optional(),
    collectorEndpoint: z.url().max(2048).optional(),
  })
  .strict()

/** IBAC settings with defaults applied. */
export interface AcsIntentSettings {
  defaultScopeMode: ScopeMode
  strictExtensible: string[]
}

/** An approver a client-routed ASK can name, with its verification key opened. */
export interface AcsApprover {
  id: string
  type: 'agent' | 'service'
  endpoint: string
  material: Uint8Array
  grants?: string[]
}

/** Trace settings with defaults applied. */
export interface AcsTraceSettings {
  otel: boolean
  ocsf: boolean
  collectorEndpoint?: string
}

/**
 * Opens the approvers' secrets (env:NAME or sealed).
 * @throws WardenError `invalid-config` naming the approver whose secret is missing.
 */
export function openApprovers(
  approvers: z.infer<typeof approverSchema>[],
  secrets: SecretOpener | undefined,
  env: Record<string, string | undefined>,
): AcsApprover[] {
  const ids = new Set<string>()
  return approvers.map((approver) => {
    if (ids.has(approver.id))
      throw new WardenError('invalid-config', `acs.approvers: the id "${approver.id}" is used twice`)
    ids.add(approver.id)
    return {
      id: approver.id,
      type: approver.type,
      endpoint: approver.endpoint,
      material: keyBytes(`acs.approvers ${approver.id}`, approver.secret, secrets, env),
      ...(approver.grants ? { grants: approver.grants } : {}),
    }
  })
}
