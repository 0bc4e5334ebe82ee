// Warden inside the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`): the SDK's `hooks`
// option (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart/End, Stop, Subagent*,
// PreCompact, ...) and a `canUseTool` callback, both backed by a Warden engine or a remote
// Warden. Deny, modify (`updatedInput`, `updatedToolOutput`), ask (the SDK's permission
// prompt) and added context map onto the SDK's own answers.

import type {
  CanUseTool,
  HookCallback,
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  PermissionResult,
} from '@anthropic-ai/claude-agent-sdk'
import {
  type Decision,
  type EventContext,
  type EventName,
  fromClaudeInput,
  isBlockingEvent,
  type JsonObject,
  lookupEventName,
} from '../../core/index.js'
import { type BackendOptions, toBackend, type WardenBackend, type WardenSource } from '../backend.js'
import {
  asInput,
  joinedContext,
  modifiedText,
  modifiedToolInput,
  modifiedToolOutput,
  pendingAsk,
  toJson,
} from '../decisions.js'

/** The SDK events {@link wardenHooks} registers unless told otherwise. */
export const CLAUDE_HOOK_EVENTS: readonly HookEvent[] = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'Notification',
]

/** Options of {@link wardenHooks} and {@link wardenCanUseTool}. */
export interface ClaudeAdapterOptions extends BackendOptions {
  /** The SDK events to hook (default {@link CLAUDE_HOOK_EVENTS}). */
  events?: readonly HookEvent[]
  /** Context merged into every event (tenantId, agent, user). */
  context?: EventContext
  /** Seconds the SDK gives one Warden call before it counts as failed (default 60). */
  timeoutSeconds?: number
  /**
   * A held `ask` that Warden's engine has no approver for: `sdk` (default) answers
   * `permissionDecision: "ask"` so the SDK asks through its permission flow (`canUseTool`);
   * `deny` denies it.
   */
  ask?: 'sdk' | 'deny'
}

/**
 * The SDK's `hooks` option, backed by Warden. Each matcher is registered with
 * `onFailure: 'block'` on events that can block, so a Warden call that fails or times
 * out inside the SDK blocks the action rather than letting it through.
 */
export function wardenHooks(
  source: WardenSource,
  options: ClaudeAdapterOptions = {},
): Partial<Record<HookEvent, HookCallbackMatcher[]>> {
  const backend = toBackend(source, options)
  const hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>> = {}
  for (const name of options.events ?? CLAUDE_HOOK_EVENTS) {
    const callback = hookCallback(backend, options)
    const matcher: HookCallbackMatcher = { hooks: [callback], timeout: options.timeoutSeconds ?? 60 }
    const canonical = eventFor(name)
    if (canonical && isBlockingEvent(canonical as EventName) && name !== 'Stop' && name !== 'SubagentStop') {
      matcher.onFailure = 'block'
    }
    hooks[name] = [matcher]
  }
  return hooks
}

/** One SDK hook callback that asks Warden and answers in the SDK's shape. */
export function hookCallback(
  source: WardenSource | WardenBackend,
  options: ClaudeAdapterOptions = {},
): HookCallback {
  const backend = toBackend(source, options)
  return async (input: HookInput, toolUseID: string | undefined): Promise<HookJSONOutput> => {
    const event = toEvent(input, toolUseID, options.context)
    if ('error' in event) return blockOutput(input.hook_event_name, event.error)
    const wait = !isBlockingEvent((lookupEventName(event.event) ?? event.event) as EventName)
    const decision = await backend.dispatch({ ...event, wait })
    return toHookOutput(input.hook_event_name, decision, options.ask ?? 'sdk')
  }
}

/** What the host's permission prompt answers for a held `ask` ({@link wardenCanUseTool}). */
export type AskPrompt = (request: {
  toolName: string
  input: Record<string, unknown>
  reason: string
}) => Promise<boolean | PermissionResult> | boolean | PermissionResult

/**
 * A `canUseTool` callback backed by Warden's `tool.pre`: deny → `behavior: "deny"` with
 * Warden's reason, modify → `allow` with `updatedInput`, a held ask → `onAsk` (the host's
 * own prompt), else denied. Use it alone, or with {@link wardenHooks} to answer the asks
 * that PreToolUse hands to the SDK.
 */
export function wardenCanUseTool(
  source: WardenSource,
  options: ClaudeAdapterOptions & { onAsk?: AskPrompt; checkTool?: boolean } = {},
): CanUseTool {
  const backend = toBackend(source, options)
  return async (toolName, input, sdk): Promise<PermissionResult> => {
    let reason: string | undefined
    if (options.checkTool !== false) {
      const tool: JsonObject = { name: toolName, input: asInput(input) }
      if (sdk.toolUseID) tool.id = sdk.toolUseID
      const decision = await backend.dispatch({
        event: 'tool.pre',
        payload: { tool },
        context: { ...options.context },
      })
      reason = pendingAsk(decision)
      if (reason === undefined) {
        if (decision.decision === 'deny') return { behavior: 'deny', message: decision.reason }
        return { behavior: 'allow', updatedInput: modifiedToolInput(decision) ?? input }
      }
    }
    const why = reason ?? sdk.decisionReason ?? `${toolName} needs permission`
    if (!options.onAsk) {
      return { behavior: 'deny', message: `${why}; no one is there to approve it, so it is denied` }
    }
    try {
      const answer = await options.onAsk({ toolName, input, reason: why })
      if (answer === true) return { behavior: 'allow', updatedInput: input }
      if (answer === false) return { behavior: 'deny', message: `${why}; not approved` }
      return answer
    } catch (error) {
      return {
        behavior: 'deny',
        message: `${why}; the approval prompt failed (${String(error)}), so it is denied`,
      }
    }
  }
}

/** The canonical event for an SDK hook event name (unknown names become `custom.claude.*`). */
function eventFor(name: string): string | undefined {
  if (name === 'PostToolUseFailure') return 'tool.post'
  return lookupEventName(name) ?? `custom.claude.${name}`
}

type ToEvent = { event: string; payload: JsonObject; context: EventContext } | { error: string }

/** An SDK hook input as a Warden event. */
export function toEvent(input: HookInput, toolUseID: string | undefined, extra?: EventContext): ToEvent {
  const raw = input as unknown as Record<string, unknown>
  const context: EventContext = { ...extra }
  if (typeof raw.session_id === 'string') context.session = { ...extra?.session, id: raw.session_id }
  if (typeof raw.cwd === 'string') context.cwd = raw.cwd
  if (typeof raw.permission_mode === 'string') context.permissionMode = raw.permission_mode
  if (typeof raw.agent_id === 'string') context.depth = Math.max(1, extra?.depth ?? 0)
  if (typeof raw.agent_type === 'string' && !extra?.agent) context.agent = { name: raw.agent_type }
  const name = input.hook_event_name
  if (name === 'PostToolUseFailure') {
    const tool: JsonObject = { name: String(raw.tool_name), input: asInput(raw.tool_input), isError: true }
    tool.output = typeof raw.error === 'string' ? raw.error : null
    if (toolUseID) tool.id = toolUseID
    return { event: 'tool.post', payload: { tool }, context }
  }
  if (name === 'StopFailure') {
    // The turn ended on an API error: `error` with the SDK's error kind as the code.
    const code = typeof raw.error === 'string' && raw.error !== '' ? raw.error : 'unknown'
    const message =
      typeof raw.error_details === 'string' && raw.error_details !== '' ? raw.error_details : code
    return { event: 'error', payload: { error: { code, message: message.slice(0, 2000) } }, context }
  }
  const known = lookupEventName(name)
  if (!known) {
    const payload: JsonObject = {}
    for (const [key, value] of Object.entries(raw)) {
      if (!['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'permission_mode'].includes(key))
        payload[key] = toJson(value)
    }
    return { event: `custom.claude.${name}`, payload, context }
  }
  const mapped = fromClaudeInput({ ...(toJson(raw) as JsonObject), tool_input: asInput(raw.tool_input) })
  if ('error' in mapped) return mapped
  const payload = mapped.payload
  const tool = payload.tool
  if (toolUseID && tool && typeof tool === 'object' && !Array.isArray(tool) && tool.id === undefined)
    tool.id = toolUseID
  if (name === 'Stop' && typeof raw.last_assistant_message === 'string') {
    payload.stop = { active: raw.stop_hook_active === true, lastMessage: raw.last_assistant_message }
  }
  if (name === 'SubagentStop') {
    payload.subagent = {
      name: typeof raw.agent_type === 'string' ? raw.agent_type : null,
      result: toJson(raw.last_assistant_message),
    }
  }
  return { event: mapped.event, payload, context: { ...mapped.context, ...context } }
}

function blockOutput(name: string, reason: string): HookJSONOutput {
  if (name === 'PreToolUse') {
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: reason,
      },
    }
  }
  return { decision: 'block', reason }
}

/** A Warden decision as the SDK hook output for that event. */
export function toHookOutput(
  name: HookEvent,
  decision: Decision,
  ask: 'sdk' | 'deny' = 'sdk',
): HookJSONOutput {
  const context = joinedContext(decision)
  switch (name) {
    case 'PreToolUse': {
      const asked = ask === 'sdk' ? pendingAsk(decision) : undefined
      if (asked !== undefined) {
        return withContext(
          { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: asked },
          context,
        )
      }
      if (decision.decision === 'deny') {
        return withContext(
          {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: decision.reason,
          },
          context,
        )
      }
      const input = modifiedToolInput(decision)
      if (input) {
        return withContext({ hookEventName: 'PreToolUse', updatedInput: input }, context)
      }
      return context ? withContext({ hookEventName: 'PreToolUse' }, context) : {}
    }
    case 'PostToolUse': {
      if (decision.decision === 'deny')
        return { decision: 'block', reason: decision.reason, ...specific('PostToolUse', context) }
      const output = modifiedToolOutput(decision)
      if (output)
        return withContext({ hookEventName: 'PostToolUse', updatedToolOutput: output.output }, context)
      return specific('PostToolUse', context)
    }
    case 'UserPromptSubmit': {
      if (decision.decision === 'deny') return { decision: 'block', reason: decision.reason }
      const rewritten = modifiedText(decision)
      if (rewritten !== undefined) {
        return {
          decision: 'block',
          reason: `Warden rewrote this prompt, and the SDK cannot replace a prompt, so it was blocked; the rewritten prompt: ${rewritten}`,
        }
      }
      return specific('UserPromptSubmit', context)
    }
    case 'Stop':
      if (decision.decision === 'deny') return { decision: 'block', reason: decision.reason }
      return specific('Stop', context)
    case 'SubagentStart':
      if (decision.decision === 'deny') return { continue: false, stopReason: decision.reason }
      if (decision.decision === 'modify') {
        return {
          continue: false,
          stopReason: `Warden rewrote the sub-agent start, and the SDK cannot apply a rewrite there, so it was refused: ${decision.reason}`,
        }
      }
      return specific('SubagentStart', context)
    case 'SessionStart':
    case 'PostToolUseFailure':
    case 'SubagentStop':
      return specific(name, context)
    default:
      if (decision.decision === 'deny') return { decision: 'block', reason: decision.reason }
      return context ? { systemMessage: context } : {}
  }
}

function specific(
  name:
    | 'PostToolUse'
    | 'UserPromptSubmit'
    | 'Stop'
    | 'SubagentStart'
    | 'SessionStart'
    | 'PostToolUseFailure'
    | 'SubagentStop',
  context: string | undefined,
): HookJSONOutput {
  return context ? { hookSpecificOutput: { hookEventName: name, additionalContext: context } } : {}
}

function withContext(
  output: NonNullable<Extract<HookJSONOutput, { hookSpecificOutput?: unknown }>['hookSpecificOutput']>,
  context: string | undefined,
): HookJSONOutput {
  return {
    hookSpecificOutput: context ? ({ ...output, additionalContext: context } as typeof output) : output,
  }
}
