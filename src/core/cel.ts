// CEL `if` expressions: compiled and type-checked once, with `matches()` on RE2 (linear
// time, RE2 syntax such as `(?i)` and `\pL`) and every evaluation bounded. Each node of the
// parsed expression is instrumented to charge its evaluation (one unit, plus the size of
// the string, bytes or list it produced) against a cost limit, and the clock is read every
// 1,024 units against the hook's deadline; so a nested comprehension or a huge
// concatenation stops with a clear cause instead of holding the event loop. A `matches()`
// pattern written as a literal is compiled at load, so a bad one is a load-time error.
// The instrumentation relies on how cel-js 8 evaluates its AST (each node's `evaluate`,
// its `meta`); test/core/cel.test.ts fails if an upgrade changes that.

import { Environment } from '@marcbachmann/cel-js'
import { RE2JS } from 're2js'
import { errorMessage, WardenError } from './errors.js'

/** The cost units one evaluation may use: about a millisecond of work on an idle core. */
export const CEL_COST_LIMIT = 50_000

/** String (and bytes) characters that count as one cost unit. */
const CHARS_PER_UNIT = 64
/** Cost units between two reads of the clock. */
const CLOCK_INTERVAL = 1024
/** Longest pattern `matches()` accepts, in characters. */
const MAX_PATTERN_LENGTH = 4096
/** Compiled run-time patterns kept; the cache is emptied when it is full. */
const MAX_CACHED_PATTERNS = 512

/** Why an evaluation was stopped: its cost limit, or the hook's deadline. */
export class ConditionLimitError extends Error {
  override readonly name = 'ConditionLimitError'
  constructor(
    readonly kind: 'cost' | 'timeout',
    message: string,
  ) {
    super(message)
  }
}

/** A compiled expression: evaluates over the variables, stopping at `deadline` (clock ms). */
export type CompiledCel = (vars: object, deadline?: number) => unknown

interface Budget {
  cost: number
  nextCheck: number
  deadline: number
}

const clock = globalThis.performance
/** The budget of the evaluation under way (evaluations are synchronous, never nested). */
let current: Budget = { cost: 0, nextCheck: Number.POSITIVE_INFINITY, deadline: 0 }

const environment = new Environment({ unlistedVariablesAreDyn: true })

/**
 * Parses, type-checks and instruments a CEL expression; literal `matches()` patterns are
 * compiled here.
 * @param field how the expression is named in errors (`if`, `when`).
 * @throws WardenError `invalid-expression` (syntax, types) or `invalid-regex` (a literal
 *   pattern that is not RE2), each naming the field.
 */
export function compileCel(source: string, field: string): CompiledCel {
  let parsed: ReturnType<typeof environment.parse>
  try {
    parsed = environment.parse(source)
  } catch (error) {
    throw new WardenError(
      'invalid-expression',
      `${field} ${JSON.stringify(source)} is not valid CEL: ${errorMessage(error)}`,
    )
  }
  const checked = parsed.check()
  if (!checked.valid) {
    throw new WardenError(
      'invalid-expression',
      `${field} ${JSON.stringify(source)} is not valid CEL: ${errorMessage(checked.error)}`,
    )
  }
  instrument(parsed.ast as unknown as CelNode, field)
  return (vars, deadline = Number.POSITIVE_INFINITY) => {
    const outer = current
    current = { cost: 0, nextCheck: CLOCK_INTERVAL, deadline }
    try {
      return parsed(vars as Record<string, unknown>)
    } finally {
      current = outer
    }
  }
}

/** What this module relies on in a cel-js AST node (checked by the tests of this file). */
interface CelNode {
  op: string
  args: unknown
  readonly meta: {
    alternate?: CelNode
    macro?: Record<string, unknown> & { evaluate(ev: unknown, macro: unknown, ctx: unknown): unknown }
    evaluate: NodeEvaluate
  }
  evaluate: NodeEvaluate
}

type NodeEvaluate = (this: CelNode, ev: Evaluator, ast: CelNode, ctx: unknown) => unknown

interface Evaluator {
  run(ast: CelNode, ctx: unknown): unknown
}

function isNode(value: unknown): value is CelNode {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as CelNode).op === 'string' &&
    'meta' in value
  )
}

/** The nodes an AST node evaluates: its operands, a macro's expansion and parts. */
function children(node: CelNode): CelNode[] {
  const found: CelNode[] = []
  const collect = (value: unknown): void => {
    if (isNode(value)) found.push(value)
    else if (Array.isArray(value)) for (const item of value) collect(item)
  }
  const args = node.args
  if (Array.isArray(args) || isNode(args)) collect(args)
  else if (args !== null && typeof args === 'object') for (const value of Object.values(args)) collect(value)
  const meta = node.meta
  if (meta.alternate) collect(meta.alternate)
  if (meta.macro) {
    for (const [key, value] of Object.entries(meta.macro)) if (key !== 'ast') collect(value)
  }
  return found
}

/** Replaces each node's evaluation with one that charges for it; `matches()` runs on RE2. */
function instrument(root: CelNode, field: string): void {
  const seen = new Set<CelNode>()
  const stack = [root]
  while (stack.length > 0) {
    const node = stack.pop() as CelNode
    if (seen.has(node)) continue
    seen.add(node)
    stack.push(...children(node))
    const meta = node.meta
    if (meta.alternate) {
      const alternate = meta.alternate
      node.evaluate = (ev, _ast, ctx) => ev.run(alternate, ctx)
    } else if (meta.macro) {
      const macro = meta.macro
      node.evaluate = (ev, _ast, ctx) => charge(macro.evaluate(ev, macro, ctx))
    } else if (isMatchesCall(node)) {
      node.evaluate = matchesEvaluator(node, field)
    } else {
      const inner = meta.evaluate
      node.evaluate = function (ev, ast, ctx) {
        return charge(inner.call(this, ev, ast, ctx))
      }
    }
  }
}

/** Adds `units` to the evaluation under way; checks the limit and the clock. */
function chargeUnits(units: number): void {
  const budget = current
  budget.cost += units
  if (budget.cost >= budget.nextCheck) checkpoint(budget)
}

/** Adds a value's cost to the evaluation under way; checks the limit and the clock. */
function charge<T>(value: T): T {
  const budget = current
  budget.cost +=
    typeof value === 'string'
      ? 1 + value.length / CHARS_PER_UNIT
      : Array.isArray(value)
        ? 1 + value.length
        : value instanceof Uint8Array
          ? 1 + value.length / CHARS_PER_UNIT
          : 1
  if (budget.cost >= budget.nextCheck) checkpoint(budget)
  return value
}

function checkpoint(budget: Budget): void {
  if (budget.cost > CEL_COST_LIMIT) {
    throw new ConditionLimitError(
      'cost',
      `the expression exceeded its cost limit of ${CEL_COST_LIMIT} units (each value computed costs 1, plus 1 per list element and per ${CHARS_PER_UNIT} characters): simplify it or narrow what it iterates over`,
    )
  }
  if (clock.now() > budget.deadline) {
    throw new ConditionLimitError(
      'timeout',
      `the expression ran past the hook's timeout (${Math.round(budget.cost)} cost units evaluated)`,
    )
  }
  budget.nextCheck = Math.min(budget.cost + CLOCK_INTERVAL, CEL_COST_LIMIT + 1)
}

function isMatchesCall(node: CelNode): boolean {
  if (node.op !== 'rcall' || !Array.isArray(node.args)) return false
  const [name, , args] = node.args as [unknown, unknown, unknown]
  return name === 'matches' && Array.isArray(args) && args.length === 1
}

/** `subject.matches(pattern)` on RE2: a literal pattern compiled now, others at run time. */
function matchesEvaluator(node: CelNode, field: string): NodeEvaluate {
  const [, receiver, [patternNode]] = node.args as [string, CelNode, [CelNode]]
  const literal = patternNode.op === 'value' ? patternNode.args : undefined
  let fixed: RE2JS | undefined
  if (typeof literal === 'string') {
    try {
      fixed = compilePattern(literal)
    } catch (error) {
      throw new WardenError('invalid-regex', `${field}: ${errorMessage(error)}`)
    }
  }
  return (ev, _ast, ctx) => {
    const subject = ev.run(receiver, ctx)
    const pattern = fixed ?? ev.run(patternNode, ctx)
    if (typeof subject !== 'string') {
      throw new Error(`matches() is called on ${describe(subject)}, not a string`)
    }
    const regex = pattern instanceof RE2JS ? pattern : cachedPattern(pattern)
    // RE2's time grows with the input times the pattern's size.
    chargeUnits(1 + (subject.length * regex.pattern().length) / CHARS_PER_UNIT)
    return regex.test(subject)
  }
}

const patternCache = new Map<string, RE2JS>()

function cachedPattern(pattern: unknown): RE2JS {
  if (typeof pattern !== 'string')
    throw new Error(`matches() needs a string pattern, got ${describe(pattern)}`)
  const known = patternCache.get(pattern)
  if (known) return known
  charge(pattern)
  const regex = compilePattern(pattern)
  if (patternCache.size >= MAX_CACHED_PATTERNS) patternCache.clear()
  patternCache.set(pattern, regex)
  return regex
}

/**
 * Compiles a `matches()` pattern with RE2 semantics.
 * @throws Error naming the pattern and the problem.
 */
function compilePattern(pattern: string): RE2JS {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new Error(`matches() pattern is ${pattern.length} characters (limit ${MAX_PATTERN_LENGTH})`)
  }
  try {
    return RE2JS.compile(pattern)
  } catch (error) {
    throw new Error(
      `matches() pattern ${JSON.stringify(pattern)} is not a valid RE2 regular expression: ${errorMessage(error)} (backreferences and lookaround are not supported)`,
    )
  }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'bigint') return 'an int'
  if (Array.isArray(value)) return 'a list'
  return `a ${typeof value === 'object' ? 'map' : typeof value}`
}
