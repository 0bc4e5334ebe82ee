// loom under loom's names, over Warden's engine: `HookRegistry`, `HookRuntime`,
// `ReminderInjector` and `Session` with loom's methods and rules, the one-object
// `createLoomRuntime` facade with tool interceptors, and approvals answered from the chat
// channel that was told.

export type { ChatApprovals, ChatChannel } from './chat-approvals.js'
export { createChatApprovals } from './chat-approvals.js'
export type {
  HookContext,
  HookEvent,
  HookRegistryOptions,
  HookResult,
  HookRunResult,
  HookRuntimeOptions,
  HookSpec,
} from './hooks.js'
export { HookRegistry, HookRuntime } from './hooks.js'
export type { LoomFields } from './payload.js'
export type {
  ReminderEvent,
  ReminderEventType,
  ReminderInjectorOptions,
  ReminderRenderContext,
  ReminderTemplate,
} from './reminders.js'
export {
  createDefaultRegistry,
  defaultTemplates,
  defineTemplate,
  ReminderInjector,
  ReminderRegistry,
} from './reminders.js'
export type {
  LoomHookContext,
  LoomHookResult,
  LoomHookSpec,
  LoomOutcome,
  LoomRunContext,
  LoomRuntime,
  ToolRun,
} from './runtime.js'
export { createLoomRuntime } from './runtime.js'
export type {
  Provider,
  ProviderRequest,
  ProviderResponse,
  SessionMessage,
  SessionOptions,
  SessionResult,
  SessionTool,
  ToolCallRequest,
} from './session.js'
export { Session } from './session.js'
export type { LoomCommandSpec, LoomFnSpec, LoomSpec } from './specs.js'
