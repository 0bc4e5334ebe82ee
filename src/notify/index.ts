// Notifications: messages to webhooks and Slack-compatible endpoints when something needs a
// person (an approval, a breaker, a failing hook, a deny-rate jump), batched, signed and
// sent off the decision path.

export type { NotifierSetup } from './from-config.js'
export { notifierFromConfig } from './from-config.js'
export type { NotificationItem } from './messages.js'
export { SIGNATURE_HEADER, signature, slackBody, verifySignature, webhookBody } from './messages.js'
export type { DropLog, NotifierOptions } from './notifier.js'
export { MAX_PENDING_RECORDS, Notifier } from './notifier.js'
export type { DropReason, SenderEvents } from './sender.js'
export { RouteSender } from './sender.js'
export type { NotificationKind, NotificationRoute, NotificationSettings } from './settings.js'
export {
  NOTIFICATION_DEFAULTS,
  NOTIFICATION_KINDS,
  notificationsSchema,
  resolveNotificationSettings,
} from './settings.js'
export type { DenyRateHigh, HookFailing } from './triggers.js'
export { DenyRateWatch, FailureWatch, MAX_WATCHED_KEYS } from './triggers.js'
