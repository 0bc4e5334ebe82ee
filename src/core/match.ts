// Matching a hook to an event: the `matcher` regex on the tool name (RE2 semantics, linear
// time, so a user-written `(a+)+$` cannot hang the process), the CEL `if` expression
// compiled once at registration (bounded in cost and time, see cel.ts), and the
// tenant/agent scope.

import { RE2JS } from 're2js'
import { compileCel } from './cel.js'
import { errorMessage, WardenError } from './errors.js'
import type { CheckedEvent, JsonObject } from './events.js'
import type { HookScope } from './hook.js'

/** Tests a tool name against a hook's matcher. */
export type NameMatcher = (name: string) => boolean

const MAX_CACHE = 1024
const MAX_NAME_LENGTH = 4096

/**
 * Compiles a matcher. Claude Code conventions hold: a plain name or `A|B` list matches
 * whole names exactly; anything else is an RE2 regex searched in the name (anchor it with
 * `^...$` for whole names). Results are cached per name, since tool names repeat.
 * @throws WardenError `invalid-regex` with the position of the problem.
 */
export function compileMatcher(pattern: string): NameMatcher {
  const exact = exactNames(pattern)
  if (exact) return (name) => exact.has(name)
  let regex: RE2JS
  try {
    regex = RE2JS.compile(pattern)
  } catch (error) {
    throw new WardenError(
      'invalid-regex',
      `matcher ${JSON.stringify(pattern)} is not a valid RE2 regular expression: ${errorMessage(error)} (backreferences and lookaround are not supported)`,
    )
  }
  const cache = new Map<string, boolean>()
  return (name) => {
    const known = cache.get(name)
    if (known !== undefined) return known
    const result = name.length <= MAX_NAME_LENGTH && regex.test(name)
    if (cache.size >= MAX_CACHE) cache.clear()
    cache.set(name, result)
    return result
  }
}

/** A bare `name` or `a|b|c` (optionally wrapped in `^( )$`) is an exact list of names. */
function exactNames(pattern: string): Set<string> | undefined {
  const anchoredStart = pattern.startsWith('^')
  const anchoredEnd = pattern.endsWith('$')
  if (anchoredStart !== anchoredEnd) return undefined
  const inner = anchoredStart ? pattern.slice(1, -1) : pattern
  const unwrapped = inner.startsWith('(') && inner.endsWith(')') ? inner.slice(1, -1) : inner
  if (!/^[A-Za-z0-9_\-:/]+(\|[A-Za-z0-9_\-:/]+)*$/.test(unwrapped)) return undefined
  return new Set(unwrapped.split('|'))
}

/**
 * Evaluates a compiled `if` expression over an event, stopping with a
 * `ConditionLimitError` past its cost limit or `deadline` (a `performance.now()` time).
 */
export type Condition = (vars: ConditionVars, deadline?: number) => boolean

/** The variables an `if` expression sees. */
export interface ConditionVars {
  event: string
  tool_name: string | null
  tool_input: unknown
  tool: unknown
  message: unknown
  payload: JsonObject
  context: unknown
  depth: number
  tenant: string | null
  agent: unknown
}

/**
 * Compiles and type-checks a CEL expression once; `matches()` patterns written as literals
 * are compiled as RE2 here.
 * @throws WardenError `invalid-expression` or `invalid-regex`, naming the `if` field.
 */
export function compileCondition(source: string): Condition {
  const evaluate = compileCel(source, 'if')
  return (vars, deadline) => {
    const result = evaluate(vars, deadline)
    if (typeof result !== 'boolean') {
      throw new Error(
        `the if expression must give true or false, it gave ${typeof result === 'bigint' ? 'an int' : typeof result}`,
      )
    }
    return result
  }
}

/** Builds the variables for `if` expressions from an event (once per dispatch). */
export function conditionVars(event: CheckedEvent): ConditionVars {
  const payload = event.payload
  const tool =
    payload.tool && typeof payload.tool === 'object' && !Array.isArray(payload.tool) ? payload.tool : null
  return {
    event: event.event,
    tool_name: tool && typeof tool.name === 'string' ? tool.name : null,
    tool_input: tool?.input ?? null,
    tool,
    message: payload.message ?? null,
    payload,
    context: event.context,
    depth: event.context.depth ?? 0,
    tenant: event.context.tenantId ?? null,
    agent: event.context.agent ?? null,
  }
}

/** Whether a hook's scope covers the event's tenant and agent. */
export function scopeCovers(scope: HookScope, event: CheckedEvent): boolean {
  if (scope.tenant !== undefined && scope.tenant !== event.context.tenantId) return false
  if (scope.agents !== undefined) {
    const agent = event.context.agent
    const id = agent?.id
    const name = agent?.name
    if (!scope.agents.some((a) => a === id || a === name)) return false
  }
  return true
}
