// Agent SDK adapters: the backend they share (an engine or a remote Warden, fail-closed),
// what they read out of decisions, and the loom-style facade. Each SDK's adapter is its own
// subpath (`warden/adapters/claude-agent-sdk`, `.../openai-agents`, `.../ai-sdk`,
// `.../mcp-client`) so that importing one never loads another SDK.

export type { BackendOptions, RemoteWardenOptions, WardenBackend, WardenSource } from './backend.js'
export { failClosed, localDecision, remoteWarden, toBackend } from './backend.js'
export {
  asInput,
  joinedContext,
  modifiedText,
  modifiedToolInput,
  modifiedToolOutput,
  pendingAsk,
  systemReminder,
  WardenDeniedError,
} from './decisions.js'
export type {
  LoomHookContext,
  LoomHookResult,
  LoomHookSpec,
  LoomOutcome,
  LoomRunContext,
  LoomRuntime,
  ToolRun,
} from './loom/index.js'
export { createLoomRuntime } from './loom/index.js'
