// The A2A methods the gateway knows, in both spellings: the names of the current A2A
// specification (`SendMessage`, `SendStreamingMessage`, ...) and the v0.3 names AOS uses
// (`message/send`, `tasks/get`, ...). Each maps onto one Warden event; the few that stream
// answer with Server-Sent Events.

import type { EventName } from '../../core/index.js'

/** What the gateway does with one A2A operation. */
export type A2aOperation =
  | 'send'
  | 'stream'
  | 'get'
  | 'cancel'
  | 'list'
  | 'resubscribe'
  | 'pushConfig.set'
  | 'pushConfig.get'
  | 'pushConfig.list'
  | 'pushConfig.delete'
  | 'extendedCard'

/** One method as the gateway handles it. */
export interface A2aMethodInfo {
  operation: A2aOperation
  /** The Warden event its request is checked as. */
  event: EventName
  /** Whether it answers with a Server-Sent Events stream. */
  streaming: boolean
}

/** The event each operation is checked as (the extended card is checked as `a2a.card`). */
export const OPERATION_EVENTS: Record<A2aOperation, EventName> = {
  send: 'a2a.send',
  stream: 'a2a.stream',
  get: 'a2a.get',
  cancel: 'a2a.cancel',
  list: 'a2a.list',
  resubscribe: 'a2a.resubscribe',
  'pushConfig.set': 'a2a.pushConfig.set',
  'pushConfig.get': 'a2a.pushConfig.get',
  'pushConfig.list': 'a2a.pushConfig.list',
  'pushConfig.delete': 'a2a.pushConfig.delete',
  extendedCard: 'a2a.card',
}

const NAMES: Record<string, A2aOperation> = {
  SendMessage: 'send',
  'message/send': 'send',
  SendStreamingMessage: 'stream',
  'message/stream': 'stream',
  GetTask: 'get',
  'tasks/get': 'get',
  CancelTask: 'cancel',
  'tasks/cancel': 'cancel',
  ListTasks: 'list',
  'tasks/list': 'list',
  SubscribeToTask: 'resubscribe',
  'tasks/resubscribe': 'resubscribe',
  CreateTaskPushNotificationConfig: 'pushConfig.set',
  'tasks/pushNotificationConfig/set': 'pushConfig.set',
  GetTaskPushNotificationConfig: 'pushConfig.get',
  'tasks/pushNotificationConfig/get': 'pushConfig.get',
  ListTaskPushNotificationConfigs: 'pushConfig.list',
  'tasks/pushNotificationConfig/list': 'pushConfig.list',
  DeleteTaskPushNotificationConfig: 'pushConfig.delete',
  'tasks/pushNotificationConfig/delete': 'pushConfig.delete',
  GetExtendedAgentCard: 'extendedCard',
  'agent/getAuthenticatedExtendedCard': 'extendedCard',
}

/** Every JSON-RPC method name the gateway forwards. */
export const A2A_JSONRPC_METHODS: readonly string[] = Object.keys(NAMES)

/** The method's operation, event and streaming, or undefined for a method A2A does not have. */
export function methodInfo(method: string): A2aMethodInfo | undefined {
  const operation = Object.hasOwn(NAMES, method) ? NAMES[method] : undefined
  if (!operation) return undefined
  return operationInfo(operation)
}

/** The event and streaming of an operation. */
export function operationInfo(operation: A2aOperation): A2aMethodInfo {
  return {
    operation,
    event: OPERATION_EVENTS[operation],
    streaming: operation === 'stream' || operation === 'resubscribe',
  }
}
