// `notifications:` in warden.yaml: where messages go (webhook routes signed with an HMAC,
// Slack-compatible incoming webhooks), which tenant each route is bound to, what triggers a
// message (approvals, breakers, failing hooks, deny-rate jumps) and how bursts are batched
// and retried. Secrets (the HMAC key, a Slack URL, header values) are secret references:
// env:NAME, file:PATH or a sealed value (wsec:v1:…), never written in clear.

import { z } from 'zod'
import { formatZodError, WardenError } from '../core/index.js'
import { openSecretRef, SECRET_REF_FORMS as SECRET_FORMS, type SealedOpener } from '../secrets/index.js'

/** What a message can be about. */
export const NOTIFICATION_KINDS = [
  'approval.requested',
  'approval.timing_out',
  'breaker.opened',
  'hook.failing',
  'deny_rate.high',
] as const

export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

const secretRef = z
  .string({ error: `must be a secret reference: ${SECRET_FORMS}` })
  .regex(/^(?:env:[A-Za-z_][A-Za-z0-9_]*|file:.+|wsec:v1:.+)$/, {
    message: `must be a secret reference (${SECRET_FORMS}); secrets are not written in clear`,
  })

const urlOrSecret = z
  .string({ error: 'is required: an http(s) URL or a secret reference holding one' })
  .regex(/^(?:https?:\/\/\S+|env:[A-Za-z_][A-Za-z0-9_]*|file:.+|wsec:v1:.+)$/i, {
    message: `must be an http(s) URL or a secret reference holding one (${SECRET_FORMS})`,
  })

const routeSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1-64 letters, digits, "_", "." or "-"'),
    type: z.enum(['webhook', 'slack'], { error: 'must be "webhook" or "slack"' }),
    url: urlOrSecret,
    secret: secretRef.optional(),
    tenant: z.string().min(1).max(200).optional(),
    kinds: z
      .array(z.enum(NOTIFICATION_KINDS, { error: `must be one of ${NOTIFICATION_KINDS.join(', ')}` }))
      .min(1)
      .optional(),
    headers: z
      .record(z.string(), secretRef, { error: 'must map header names to secret references' })
      .optional(),
  })
  .strict()

const windowed = {
  windowMs: z.number().int().min(1000).max(86_400_000).optional(),
  cooldownMs: z.number().int().min(0).max(86_400_000).optional(),
}

/** Schema of `notifications:`. */
export const notificationsSchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    baseUrl: z
      .string()
      .regex(/^https?:\/\/[^\s?#]+$/i, 'must be the UI address, e.g. https://warden.example.com')
      .optional(),
    routes: z
      .array(routeSchema, { error: 'must be a list of routes like { name, type, url }' })
      .min(1)
      .max(50),
    batchWindowMs: z.number().int().min(0).max(60_000).optional(),
    maxBatch: z.number().int().positive().max(200).optional(),
    maxQueue: z.number().int().positive().max(100_000).optional(),
    maxAttempts: z.number().int().positive().max(10).optional(),
    retryBaseMs: z.number().int().min(10).max(60_000).optional(),
    timeoutMs: z.number().int().positive().max(60_000).optional(),
    approvals: z
      .object({ warnBeforeMs: z.number().int().min(0).max(86_400_000).optional() })
      .strict()
      .optional(),
    hookFailures: z
      .object({ ...windowed, threshold: z.number().int().positive().max(100_000).optional() })
      .strict()
      .optional(),
    denyRate: z
      .object({
        ...windowed,
        minCount: z.number().int().positive().max(1_000_000).optional(),
        threshold: z.number().gt(0).max(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()

/** One route with its secrets opened. */
export interface NotificationRoute {
  name: string
  type: 'webhook' | 'slack'
  url: string
  /** HMAC-SHA256 key of the `Warden-Signature` header (required for webhooks). */
  secret?: string
  /** Only this tenant's events reach the route; absent: every tenant's (an operator route). */
  tenant?: string
  kinds: ReadonlySet<NotificationKind>
  headers: Record<string, string>
}

/** `notifications:` resolved, defaults applied. */
export interface NotificationSettings {
  baseUrl?: string
  routes: NotificationRoute[]
  batchWindowMs: number
  maxBatch: number
  maxQueue: number
  maxAttempts: number
  retryBaseMs: number
  timeoutMs: number
  approvals: { warnBeforeMs: number }
  hookFailures: { windowMs: number; threshold: number; cooldownMs: number }
  denyRate: { windowMs: number; minCount: number; threshold: number; cooldownMs: number }
}

/** Defaults of `notifications:`. */
export const NOTIFICATION_DEFAULTS = {
  batchWindowMs: 2_000,
  maxBatch: 50,
  maxQueue: 1_000,
  maxAttempts: 4,
  retryBaseMs: 500,
  timeoutMs: 5_000,
  approvals: { warnBeforeMs: 60_000 },
  hookFailures: { windowMs: 60_000, threshold: 5, cooldownMs: 600_000 },
  denyRate: { windowMs: 300_000, minCount: 20, threshold: 0.5, cooldownMs: 900_000 },
} as const

function invalid(message: string): WardenError {
  return new WardenError('invalid-config', message)
}

/**
 * Checks `notifications:` and opens its secrets; undefined when absent or `enabled: false`.
 * @throws WardenError `invalid-config` naming the field and what to change.
 */
export function resolveNotificationSettings(
  raw: unknown,
  options: { env: Record<string, string | undefined>; baseDir: string; box?: SealedOpener },
): NotificationSettings | undefined {
  if (raw === undefined || raw === null) return undefined
  const parsed = notificationsSchema.safeParse(raw)
  if (!parsed.success) throw invalid(formatZodError(parsed.error, 'notifications'))
  const input = parsed.data
  if (input.enabled === false) return undefined
  const names = new Set<string>()
  const routes = input.routes.map((route, index): NotificationRoute => {
    const where = `notifications.routes[${index}] (${route.name})`
    if (names.has(route.name)) throw invalid(`${where}: the name "${route.name}" is used twice`)
    names.add(route.name)
    if (route.type === 'webhook' && !route.secret)
      throw invalid(`${where}: a webhook route needs secret: (${SECRET_FORMS}) to sign its messages`)
    const open = (field: string, value: string) =>
      openSecretRef(`${where}.${field}`, value, options.env, options.baseDir, options.box)
    if (route.type === 'slack' && /^https?:/i.test(route.url))
      throw invalid(`${where}.url: a Slack webhook URL carries its token; give it as ${SECRET_FORMS}`)
    const url = open('url', route.url)
    if (!/^https?:\/\/\S+$/i.test(url)) throw invalid(`${where}.url: the secret does not hold an http(s) URL`)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(route.headers ?? {})) {
      if (!/^[A-Za-z0-9-]{1,64}$/.test(name) || /^(?:host|content-length|content-type|warden-)/i.test(name))
        throw invalid(`${where}.headers: "${name.slice(0, 64)}" cannot be set`)
      headers[name] = open(`headers.${name}`, value)
    }
    return {
      name: route.name,
      type: route.type,
      url,
      ...(route.secret ? { secret: open('secret', route.secret) } : {}),
      ...(route.tenant ? { tenant: route.tenant } : {}),
      kinds: new Set(route.kinds ?? NOTIFICATION_KINDS),
      headers,
    }
  })
  const d = NOTIFICATION_DEFAULTS
  return {
    ...(input.baseUrl ? { baseUrl: input.baseUrl.replace(/\/+$/, '') } : {}),
    routes,
    batchWindowMs: input.batchWindowMs ?? d.batchWindowMs,
    maxBatch: input.maxBatch ?? d.maxBatch,
    maxQueue: input.maxQueue ?? d.maxQueue,
    maxAttempts: input.maxAttempts ?? d.maxAttempts,
    retryBaseMs: input.retryBaseMs ?? d.retryBaseMs,
    timeoutMs: input.timeoutMs ?? d.timeoutMs,
    approvals: { warnBeforeMs: input.approvals?.warnBeforeMs ?? d.approvals.warnBeforeMs },
    hookFailures: { ...d.hookFailures, ...stripUndefined(input.hookFailures) },
    denyRate: { ...d.denyRate, ...stripUndefined(input.denyRate) },
  }
}

function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>
}
