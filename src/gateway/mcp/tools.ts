// Which tools a client may see: a tool named in `tools.hide` or matched by a hook that
// denies it unconditionally (a matcher-only hook with a static `deny` handler) is removed
// from tools/list answers, and calls to it are denied. The static `deny` handler type itself
// lives with the other handlers (every engine has it); it is re-exported here.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import {
  compileMatcher,
  type EventContext,
  errorMessage,
  type HookSpec,
  type JsonObject,
  type NameMatcher,
  scopeCovers,
  WardenError,
} from '../../core/index.js'

export { denyHandler } from '../../handlers/index.js'

import { isObject, resultOf } from './jsonrpc.js'
import type { ToolPins } from './pins.js'

/** The events whose unconditional denies hide a tool. */
const TOOL_GATE_EVENTS = new Set(['tool.pre', 'mcp.outbound'])

interface HiddenRule {
  matches: NameMatcher
  reason: string
}

/** Decides which tools are hidden from the client. */
export class ToolVisibility {
  private constructor(private readonly rules: HiddenRule[]) {}

  /**
   * Builds the rules from `tools.hide` patterns (exact names, `a|b` lists or RE2 regexes)
   * and the hooks that deny a tool unconditionally for this context.
   * @throws WardenError `invalid-config` when a pattern is not a valid regex.
   */
  static from(
    hide: readonly string[],
    hooks: readonly HookSpec[],
    context: EventContext = {},
  ): ToolVisibility {
    const rules: HiddenRule[] = []
    for (const pattern of hide) {
      try {
        rules.push({ matches: compileMatcher(pattern), reason: `tool hidden by tools.hide ("${pattern}")` })
      } catch (error) {
        throw new WardenError('invalid-config', `tools.hide: ${errorMessage(error)}`)
      }
    }
    const probe = { event: 'tool.pre' as const, payload: {}, context }
    for (const hook of hooks) {
      if (!isUnconditionalDeny(hook) || !scopeCovers(hook.scope, probe)) continue
      const reason =
        typeof hook.handler.reason === 'string' ? hook.handler.reason : `denied by hook "${hook.name}"`
      rules.push({ matches: compileMatcher(hook.matcher as string), reason })
    }
    return new ToolVisibility(rules)
  }

  /** Why the tool is hidden, or undefined when the client may see it. */
  hiddenReason(name: string): string | undefined {
    for (const rule of this.rules) if (rule.matches(name)) return rule.reason
    return undefined
  }

  /** The tools of a tools/list answer that the client may see. */
  filter(tools: readonly JsonObject[]): JsonObject[] {
    if (this.rules.length === 0) return [...tools]
    return tools.filter((tool) => typeof tool.name !== 'string' || this.hiddenReason(tool.name) === undefined)
  }
}

function isUnconditionalDeny(hook: HookSpec): boolean {
  return (
    hook.enabled &&
    TOOL_GATE_EVENTS.has(hook.event) &&
    hook.matcher !== undefined &&
    hook.if === undefined &&
    hook.handler.type === 'deny'
  )
}

/**
 * Reads `tools.hide` from the raw warden.yaml sections.
 * @throws WardenError `invalid-config` when it is not a list of strings.
 */
export function hiddenToolPatterns(raw: Record<string, unknown> | undefined): string[] {
  const tools = raw?.tools
  if (tools === undefined || tools === null) return []
  if (typeof tools !== 'object' || Array.isArray(tools)) {
    throw new WardenError('invalid-config', 'tools must be a mapping such as { hide: [get-env] }')
  }
  const hide = (tools as Record<string, unknown>).hide
  if (hide === undefined) return []
  if (!Array.isArray(hide) || hide.some((entry) => typeof entry !== 'string' || entry.length === 0)) {
    throw new WardenError(
      'invalid-config',
      'tools.hide must be a list of tool names or regular expressions, e.g. [get-env, "^debug_"]',
    )
  }
  return hide as string[]
}

/** Filters a tools/list answer by the visibility rules and compares it with the pins. */
export function listedTools(
  message: JSONRPCMessage,
  rules: { visibility?: ToolVisibility; pins?: ToolPins },
  log: (line: string) => void,
): JSONRPCMessage {
  const result = resultOf(message)
  if (!result || !Array.isArray(result.tools)) return message
  const tools = result.tools.filter(isObject)
  const pins = rules.pins
  if (pins) {
    const seen = pins.observe(tools)
    for (const change of seen.changed) log(pins.denialFor(change.name) as string)
    if (seen.added.length > 0) {
      pins.save().catch((error: Error) => log(`cannot save pin file ${pins.path}: ${error.message}`))
    }
  }
  const visible = rules.visibility ? rules.visibility.filter(tools) : tools
  if (visible.length === result.tools.length) return message
  return { ...message, result: { ...result, tools: visible } } as JSONRPCMessage
}
