// The words and links of a notification, and the two wire shapes a batch goes out in: a
// signed JSON webhook body (`Warden-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<body>">`, as Stripe and GoClaw sign theirs, so a receiver can refuse a replay) and
// Slack's incoming-webhook `{ text, blocks }`. Each item links to the UI page that answers it.

import { createHmac, timingSafeEqual } from 'node:crypto'
import { scrubText } from '../observability/index.js'
import type { NotificationKind } from './settings.js'
import type { DenyRateHigh, HookFailing } from './triggers.js'

/** One thing to tell. */
export interface NotificationItem {
  kind: NotificationKind
  /** The tenant it concerns ('' when none). */
  tenant: string
  /** When it happened (ms since the epoch). */
  at: number
  title: string
  text: string
  /** The UI page that answers it, when `notifications.baseUrl` is set. */
  link?: string
  data: Record<string, unknown>
}

/** The header carrying the signature. */
export const SIGNATURE_HEADER = 'warden-signature'
/** Characters of a reason or error kept in a message. */
const TEXT_CHARS = 300
/** Slack accepts at most 50 blocks; the last says how many more items there were. */
const SLACK_MAX_ITEMS = 45

/** A reason or error as a message carries it: URL passwords, query values and bearer tokens masked, cut short. */
function cut(text: string): string {
  const clean = scrubText(text.length > TEXT_CHARS * 2 ? text.slice(0, TEXT_CHARS * 2) : text)
  return clean.length > TEXT_CHARS ? `${clean.slice(0, TEXT_CHARS)}…` : clean
}

function page(baseUrl: string | undefined, path: string, query?: Record<string, string>): string | undefined {
  if (!baseUrl) return undefined
  const search = query ? new URLSearchParams(query).toString() : ''
  return `${baseUrl}/#/${path}${search ? `?${search}` : ''}`
}

function tenantWords(tenant: string): string {
  return tenant ? ` (tenant ${tenant})` : ''
}

function windowWords(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`
}

/** An approval waiting for a person (`approval.requested` or `approval.timing_out`). */
export function approvalItem(
  kind: 'approval.requested' | 'approval.timing_out',
  approval: Record<string, unknown>,
  baseUrl: string | undefined,
  now: number,
): NotificationItem {
  const tenant = typeof approval.tenant === 'string' ? approval.tenant : ''
  const deadline = typeof approval.deadline === 'number' ? approval.deadline : now
  const asks = Array.isArray(approval.asks) ? (approval.asks as { hook?: unknown; reason?: unknown }[]) : []
  const why = asks.map((a) => `${String(a.hook ?? 'a hook')}: ${String(a.reason ?? '')}`).join('; ')
  const left = Math.max(0, Math.round((deadline - now) / 1000))
  const link = page(baseUrl, 'approvals', { id: String(approval.id ?? '') })
  return {
    kind,
    tenant,
    at: now,
    title:
      kind === 'approval.requested'
        ? `Approval requested for ${String(approval.event ?? 'an event')}${tenantWords(tenant)}`
        : `Approval about to time out (${left} s left)${tenantWords(tenant)}`,
    text: cut(why || 'a hook asked for a person to decide'),
    ...(link ? { link } : {}),
    data: {
      approvalId: approval.id,
      decisionId: approval.decisionId,
      event: approval.event,
      deadline,
      asks: asks.map((a) => ({
        hook: a.hook,
        reason: typeof a.reason === 'string' ? cut(a.reason) : a.reason,
      })),
    },
  }
}

/** A hook's circuit breaker opened. */
export function breakerItem(
  trip: { hookId: string; tenant: string; failures: number; lastError: string; openedAt: number },
  baseUrl: string | undefined,
): NotificationItem {
  const link = page(baseUrl, `hooks/${encodeURIComponent(trip.hookId)}`)
  return {
    kind: 'breaker.opened',
    tenant: trip.tenant,
    at: trip.openedAt,
    title: `Breaker opened on hook ${trip.hookId}${tenantWords(trip.tenant)}`,
    text: cut(`${trip.failures} failures; last: ${trip.lastError}`),
    ...(link ? { link } : {}),
    data: {
      hook: trip.hookId,
      failures: trip.failures,
      lastError: cut(trip.lastError),
      openedAt: trip.openedAt,
    },
  }
}

/** A hook past its failure threshold. */
export function failingItem(
  failing: HookFailing,
  baseUrl: string | undefined,
  now: number,
): NotificationItem {
  const link = page(baseUrl, `hooks/${encodeURIComponent(failing.hook)}`)
  return {
    kind: 'hook.failing',
    tenant: failing.tenant,
    at: now,
    title: `Hook ${failing.hook} is failing${tenantWords(failing.tenant)}`,
    text: cut(
      `${failing.failures} errors or timeouts in ${windowWords(failing.windowMs)}; last: ${failing.lastError}`,
    ),
    ...(link ? { link } : {}),
    data: {
      hook: failing.hook,
      failures: failing.failures,
      windowMs: failing.windowMs,
      lastError: cut(failing.lastError),
    },
  }
}

/** A deny rate past its threshold. */
export function denyRateItem(high: DenyRateHigh, baseUrl: string | undefined, now: number): NotificationItem {
  const query: Record<string, string> = { decision: 'deny', since: '1h' }
  if (high.tenant) query.tenant = high.tenant
  if (high.hook) query.hook = high.hook
  const link = page(baseUrl, 'decisions', query)
  const percent = Math.round(high.rate * 100)
  const subject = high.hook ? `hook ${high.hook}` : 'all hooks'
  return {
    kind: 'deny_rate.high',
    tenant: high.tenant,
    at: now,
    title: `Deny rate ${percent}% for ${subject}${tenantWords(high.tenant)}`,
    text: `${high.denied} of ${high.total} decisions denied in ${windowWords(high.windowMs)}`,
    ...(link ? { link } : {}),
    data: {
      ...(high.hook ? { hook: high.hook } : {}),
      denied: high.denied,
      total: high.total,
      rate: high.rate,
    },
  }
}

/** The JSON body of a webhook batch. */
export function webhookBody(delivery: string, items: NotificationItem[], now: number): string {
  return JSON.stringify({
    type: 'warden.notifications',
    id: delivery,
    sentAt: new Date(now).toISOString(),
    items: items.map((item) => ({ ...item, at: new Date(item.at).toISOString() })),
  })
}

function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Slack's incoming-webhook `{ text, blocks }` for a batch. */
export function slackBody(items: NotificationItem[]): string {
  const first = items[0]
  const text =
    items.length === 1 && first ? `Warden: ${first.title}` : `Warden: ${items.length} notifications`
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: text.slice(0, 150) } },
  ]
  for (const item of items.slice(0, SLACK_MAX_ITEMS)) {
    const link = item.link ? `\n<${item.link}|Open in Warden>` : ''
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `*${slackEscape(item.title)}*\n${slackEscape(item.text)}${link}` },
    })
  }
  if (items.length > SLACK_MAX_ITEMS)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `and ${items.length - SLACK_MAX_ITEMS} more` }],
    })
  return JSON.stringify({ text, blocks })
}

/** The `Warden-Signature` value of `body` sent at `seconds` (unix time). */
export function signature(secret: string, body: string, seconds: number): string {
  const mac = createHmac('sha256', secret).update(`${seconds}.${body}`).digest('hex')
  return `t=${seconds},v1=${mac}`
}

/**
 * Checks a `Warden-Signature` header as a receiver should: the HMAC over "<t>.<body>" and a
 * timestamp within `toleranceSeconds` of `nowSeconds` (a replayed old message is refused).
 */
export function verifySignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]))
  const seconds = Number(parts.get('t'))
  const given = parts.get('v1') ?? ''
  if (!Number.isInteger(seconds) || Math.abs(nowSeconds - seconds) > toleranceSeconds) return false
  const expected = createHmac('sha256', secret).update(`${seconds}.${body}`).digest()
  const actual = Buffer.from(given, 'hex')
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
