// The core of Warden: events, decisions, the hook model and the engine. Pure: no I/O and
// nothing Node-only, so it runs anywhere JavaScript does.

export { AfterTurnQueue } from './after-turn.js'
export type { BreakerFailure, BreakerOptions, BreakerState, BreakerTrip } from './breaker.js'
export { DEFAULT_BREAKER, MAX_COUNTED_BREAKERS, MemoryBreakerState, TripTable } from './breaker.js'
export type { AliasSystem, CatalogEventName, EventInfo, EventName } from './catalog.js'
export {
  CANONICAL_EVENTS,
  editDistance,
  eventInfo,
  isBlockingEvent,
  isOpenEventName,
  knownEventNames,
  lookupEventName,
  resolveEventName,
  suggestEventNames,
} from './catalog.js'
export { CEL_COST_LIMIT, ConditionLimitError } from './cel.js'
export type { RegisteredHook } from './chain.js'
export * from './claude.js'
export type { ConditionVariable } from './condition-reference.js'
export { conditionReference } from './condition-reference.js'
export type {
  Decision,
  DecisionKind,
  HookErrorKind,
  HookMeta,
  HookTrace,
  Normalized,
  PolicyRef,
  SkipReason,
  Verdict,
} from './decision.js'
export {
  abstain,
  allow,
  ask,
  deny,
  modify,
  normalizeVerdict,
  refuseUnappliable,
  unrecordedReason,
  withToolInput,
  withToolOutput,
} from './decision.js'
export { createEngine, dispatchSoon, type Soon } from './engine.js'
export type {
  DecisionRecord,
  DispatchInput,
  DryRunResult,
  Engine,
  EngineOptions,
  Limits,
  Recorder,
} from './engine-types.js'
export { DEFAULT_LIMITS } from './engine-types.js'
export type { WardenErrorCode } from './errors.js'
export { errorMessage, WardenError, withArticle } from './errors.js'
export type {
  A2aPayload,
  A2aResponsePayload,
  ChatMessage,
  CheckedEvent,
  EventContext,
  EventPayload,
  Json,
  JsonObject,
  McpCall,
  McpPayload,
  McpPrompt,
  McpResource,
  ModifyCheck,
  OnCallerGone,
  PayloadByEvent,
  ToolCall,
  WardenEvent,
} from './events.js'
export { checkEventShape, subjectOf, toolOf } from './events.js'
export { type HomeSystem, homeBlocking, observedAnswer } from './home-rules.js'
export type {
  FailurePolicy,
  HandlerConfig,
  HandlerFactory,
  HookCall,
  HookDefinition,
  HookExecutor,
  HookMode,
  HookScope,
  HookSpec,
} from './hook.js'
export { formatZodError, HOOK_DEFAULTS, HOOK_MODES, parseHookDefinition } from './hook.js'
export type { Condition, ConditionVars, NameMatcher } from './match.js'
export { compileCondition, compileMatcher, conditionVars, scopeCovers } from './match.js'
export type { ApprovalAnswer, ApprovalRequest, Approver } from './outcome.js'
export { renderReminders } from './outcome.js'
export { knownPayloadBytes, payloadBytes } from './size.js'
export { ThrottledCount } from './throttled-count.js'
export type { TurnCapOptions } from './turn-cap.js'
export { TurnCap, turnKeyOf } from './turn-cap.js'
