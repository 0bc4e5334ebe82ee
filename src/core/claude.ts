// The Claude Code hook wire shape, both ways: a canonical event as Claude Code style hook
// input (what command and http hooks read), a Claude Code hook input as a canonical event
// (what `warden check` accepts), and hook output in the Claude Code, loom and GoClaw
// dialects as a verdict.

import { eventInfo, lookupEventName } from './catalog.js'
import type { Verdict } from './decision.js'
import { withToolInput, withToolOutput } from './decision.js'
import type { CheckedEvent, EventContext, Json, JsonObject } from './events.js'

/** Claude Code style hook input plus the canonical event under `warden`. */
export function toClaudeInput(event: CheckedEvent): JsonObject {
  const { payload, context } = event
  const input: JsonObject = {
    session_id: str(context.session?.id) ?? '',
    transcript_path: str(context.transcriptPath) ?? '',
    cwd: str(context.cwd) ?? '',
    hook_event_name: eventInfo(event.event).claudeName ?? event.event,
  }
  if (typeof context.permissionMode === 'string') input.permission_mode = context.permissionMode
  const tool = obj(payload.tool)
  if (tool) {
    input.tool_name = tool.name ?? ''
    input.tool_input = tool.input ?? {}
    if (tool.id !== undefined) input.tool_use_id = tool.id
    if (event.event === 'tool.post' || tool.output !== undefined) input.tool_response = tool.output ?? null
  }
  const message = obj(payload.message)
  if (message && typeof message.text === 'string') input.prompt = message.text
  const stop = obj(payload.stop)
  if (stop) input.stop_hook_active = stop.active === true
  const session = obj(payload.session)
  if (session?.source !== undefined) input.source = session.source
  if (session?.reason !== undefined) input.reason = session.reason
  const subagent = obj(payload.subagent)
  if (subagent?.name !== undefined) input.agent_type = subagent.name
  input.warden = { event: event.event, payload, context: context as JsonObject }
  return input
}

/** Whether a JSON object looks like Claude Code hook input. */
export function isClaudeInput(value: unknown): value is JsonObject {
  return (
    typeof value === 'object' && value !== null && typeof (value as JsonObject).hook_event_name === 'string'
  )
}

/**
 * Reads Claude Code hook input as a canonical event. When the input carries the
 * canonical event under `warden` (as Warden's own hooks receive), that wins.
 * @returns the event, or an error naming the problem.
 */
export function fromClaudeInput(
  input: JsonObject,
): { event: string; payload: JsonObject; context: EventContext } | { error: string } {
  const embedded = obj(input.warden)
  if (embedded && typeof embedded.event === 'string' && obj(embedded.payload)) {
    return {
      event: embedded.event,
      payload: embedded.payload as JsonObject,
      context: (obj(embedded.context) ?? {}) as EventContext,
    }
  }
  const name = String(input.hook_event_name)
  const event = lookupEventName(name)
  if (!event) return { error: `hook_event_name "${name}" is not a Claude Code event Warden knows` }
  const context: EventContext = {}
  if (typeof input.session_id === 'string') context.session = { id: input.session_id }
  if (typeof input.cwd === 'string') context.cwd = input.cwd
  if (typeof input.transcript_path === 'string') context.transcriptPath = input.transcript_path
  if (typeof input.permission_mode === 'string') context.permissionMode = input.permission_mode
  let payload: JsonObject
  switch (event) {
    case 'tool.pre':
    case 'tool.post': {
      if (typeof input.tool_name !== 'string') return { error: `${name} input needs tool_name (a string)` }
      const tool: JsonObject = { name: input.tool_name, input: obj(input.tool_input) ?? {} }
      if (typeof input.tool_use_id === 'string') tool.id = input.tool_use_id
      if (event === 'tool.post') tool.output = input.tool_response ?? null
      payload = { tool }
      break
    }
    case 'user.message':
      if (typeof input.prompt !== 'string') return { error: 'UserPromptSubmit input needs prompt (a string)' }
      payload = { message: { role: 'user', text: input.prompt } }
      break
    case 'agent.stop':
    case 'subagent.stop':
      payload =
        event === 'agent.stop'
          ? { stop: { active: input.stop_hook_active === true } }
          : { subagent: { result: null } }
      break
    case 'session.start':
      payload = { session: typeof input.source === 'string' ? { source: input.source } : {} }
      break
    case 'session.end':
      payload = { session: typeof input.reason === 'string' ? { reason: input.reason } : {} }
      break
    case 'subagent.start':
      payload = { subagent: typeof input.agent_type === 'string' ? { name: input.agent_type } : {} }
      break
    default:
      payload = { ...input }
      delete payload.hook_event_name
  }
  return { event, payload, context }
}

const PERMISSION = new Set(['allow', 'deny', 'ask', 'defer'])
const DECISIONS = new Set(['allow', 'approve', 'deny', 'block', 'ask', 'modify', 'defer'])

/**
 * Reads hook output in any of the three dialects — Claude Code (`hookSpecificOutput`,
 * `decision: "block"`, `continue: false`), loom (`{continue, reason, output,
 * additionalContext}`) and GoClaw (`{decision, reason, updatedInput}`) — as a verdict.
 * @returns the verdict, or an error naming the field that was wrong.
 */
export function parseHookOutput(
  output: JsonObject,
  event: CheckedEvent,
): { verdict: Verdict } | { error: string } {
  const context: string[] = []
  const specific = obj(output.hookSpecificOutput)
  for (const value of [output.additionalContext, specific?.additionalContext]) {
    if (typeof value === 'string') context.push(value)
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      context.push(...(value as string[]))
    else if (value !== undefined && value !== null)
      return { error: 'additionalContext must be a string or a list of strings' }
  }
  const extra: { additionalContext?: string[]; redact?: string[] } =
    context.length > 0 ? { additionalContext: context } : {}
  if (output.redact !== undefined) {
    if (!Array.isArray(output.redact) || !output.redact.every((v) => typeof v === 'string'))
      return { error: 'redact must be a list of strings (the values the hook matched)' }
    extra.redact = output.redact as string[]
  }

  if (output.continue === false) {
    return {
      verdict: {
        type: 'deny',
        reason: reasonOf(output.stopReason, output.reason) ?? 'the hook stopped the agent (continue: false)',
        ...extra,
      },
    }
  }
  let kind: string | undefined
  let reason: string | undefined
  if (specific?.permissionDecision !== undefined) {
    if (typeof specific.permissionDecision !== 'string' || !PERMISSION.has(specific.permissionDecision)) {
      return {
        error: `hookSpecificOutput.permissionDecision must be allow, deny, ask or defer (got ${JSON.stringify(specific.permissionDecision)})`,
      }
    }
    kind = specific.permissionDecision
    reason = reasonOf(specific.permissionDecisionReason, output.reason)
  } else if (output.decision !== undefined && output.decision !== null) {
    if (typeof output.decision !== 'string' || !DECISIONS.has(output.decision)) {
      return {
        error: `decision must be one of allow, deny, block, ask (got ${JSON.stringify(output.decision)})`,
      }
    }
    kind = output.decision
    reason = reasonOf(output.reason)
  }
  if (kind === 'deny' || kind === 'block')
    return { verdict: { type: 'deny', reason: reason ?? 'denied by hook', ...extra } }
  if (kind === 'ask')
    return { verdict: { type: 'ask', reason: reason ?? 'the hook asks for approval', ...extra } }
  if (kind === 'defer') return { verdict: { type: 'abstain', ...extra } }

  // Claude Code's own words for "skip the user's prompt"; GoClaw's `decision: "allow"` is not.
  const granted =
    (kind === 'allow' && specific?.permissionDecision === 'allow') || kind === 'approve'
      ? { explicitAllow: true }
      : {}
  const updatedInput = specific?.updatedInput ?? output.updatedInput
  const updatedOutput =
    specific?.updatedToolOutput ?? output.updatedToolOutput ?? specific?.updatedMCPToolOutput
  let payload: JsonObject | undefined
  if (updatedInput !== undefined && updatedInput !== null) {
    const input = obj(updatedInput)
    if (!input) return { error: 'updatedInput must be an object' }
    payload = withToolInput(event.payload, input as JsonObject)
  }
  if (updatedOutput !== undefined) payload = withToolOutput(payload ?? event.payload, updatedOutput)
  if (output.output !== undefined && payload === undefined) {
    const loomOutput = output.output
    if (event.event === 'tool.post') payload = withToolOutput(event.payload, loomOutput)
    else if (event.event === 'tool.pre' && obj(loomOutput))
      payload = withToolInput(event.payload, loomOutput as JsonObject)
    else if (obj(loomOutput)) payload = loomOutput as JsonObject
  }
  if (payload)
    return { verdict: { type: 'modify', payload, ...(reason ? { reason } : {}), ...extra, ...granted } }
  if (kind === 'modify') return { error: 'decision "modify" needs updatedInput, updatedToolOutput or output' }
  return { verdict: { type: 'allow', ...(reason ? { reason } : {}), ...extra, ...granted } }
}

/** The first candidate that is a non-empty string. */
function reasonOf(...candidates: unknown[]): string | undefined {
  return candidates.find((c): c is string => typeof c === 'string' && c.length > 0)
}

function obj(value: unknown): Record<string, Json> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, Json>)
    : undefined
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
