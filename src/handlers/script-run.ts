// Compiling and running one Starlark hook, the same on the main thread and in a script
// worker: the handler config, compiling the script and its `when` (the module runs once),
// one attempt of a run (`when`, then `handle(event, payload)`) and the text of a failure
// with its position in the hook's file.

import { z } from 'zod'
import type { CheckedEvent, Verdict } from '../core/index.js'
import {
  type CompiledExpression,
  compile,
  compileExpression,
  type Limits,
  type Module,
  StarlarkError,
  typeName,
} from '../starlark/index.js'
import {
  type HttpCall,
  HttpSuspend,
  type RunState,
  rewriteLogCalls,
  ScriptDecision,
  scriptGlobals,
  verdictOf,
} from './script-builtins.js'
import { fromPayloadView } from './script-view.js'

/** Largest script accepted, in characters. */
export const MAX_SCRIPT_CHARS = 256 * 1024

/** The handler config of a script hook. */
export const scriptConfigSchema = z
  .object({
    type: z.literal('script'),
    source: z
      .string({ error: 'is required: Starlark code that defines handle(event, payload)' })
      .max(MAX_SCRIPT_CHARS),
    file: z.string().optional(),
    line: z.number().int().positive().optional(),
    when: z.string().max(4096).optional(),
    whenLine: z.number().int().positive().optional(),
    /** Columns to add to Starlark positions (the script's indentation in its file). */
    column: z.number().int().min(0).optional(),
    whenColumn: z.number().int().min(0).optional(),
  })
  .strict()

/** A script hook's handler config, checked. */
export type ScriptConfig = z.infer<typeof scriptConfigSchema>

/** A script problem with its position in the hook's file. */
export interface ScriptProblem {
  message: string
  line?: number
  col?: number
}

/** A compiled script whose module has run: what each event's run starts from. */
export interface Prepared {
  module: Module
  when?: CompiledExpression
  file: string
  /** Column offsets of the script and of `when` in their file. */
  column: number
  whenColumn: number
}

/** The names a `when` expression may read besides the builtins. */
const WHEN_NAMES = ['payload', 'event'] as const

/** The log line of a run whose `when` did not hold (kept out of the turn's logs). */
export const WHEN_FALSE = 'when is false: the hook does not apply'

/** Source text padded so that line numbers match the file it came from. */
function atLine(source: string, line: number | undefined): string {
  return line && line > 1 ? '\n'.repeat(line - 1) + source : source
}

/**
 * Compiles a hook's script and `when`, runs the module, and checks `handle(event, payload)`.
 * @throws StarlarkError (syntax, load-time error) or Error naming what is missing.
 */
export function prepareScript(config: ScriptConfig, hookName: string, limits: Partial<Limits>): Prepared {
  const file = config.file ?? `${hookName}.star`
  const program = compile(atLine(rewriteLogCalls(config.source), config.line), file)
  const module = program.run({ globals: scriptGlobals(), limits })
  const handle = module.getValue('handle')
  if (handle === undefined) {
    throw new ScriptShapeError('the script must define handle(event, payload)', config.line)
  }
  const params = module.functionParams('handle')
  if (!params)
    throw new ScriptShapeError(`handle must be a function (it is of type ${typeName(handle)})`, config.line)
  const positional = params.filter((p) => p.kind === 'positional')
  const required = positional.filter((p) => !p.hasDefault).length
  const takesTwo = required <= 2 && (positional.length >= 2 || params.some((p) => p.kind === 'varargs'))
  const needsKeyword = params.some((p) => p.kind === 'keyword-only' && !p.hasDefault)
  if (!takesTwo || needsKeyword) {
    const pos = module.getFunction('handle')?.code.pos
    throw new ScriptShapeError(
      `handle must take two parameters, handle(event, payload); it takes ${positional.length}`,
      pos?.line ?? config.line,
      pos?.col,
    )
  }
  const prepared: Prepared = { module, file, column: config.column ?? 0, whenColumn: config.whenColumn ?? 0 }
  if (config.when !== undefined) {
    try {
      prepared.when = compileExpression(atLine(config.when, config.whenLine), file, { limits })
      prepared.when.requireNames(WHEN_NAMES)
    } catch (error) {
      if (error instanceof StarlarkError) throw new WhenError(error)
      throw error
    }
  }
  return prepared
}

class ScriptShapeError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly col?: number,
  ) {
    super(message)
  }
}

/** A failure of the `when` expression (its positions are those of `when` in the file). */
class WhenError extends Error {
  constructor(readonly starlark: StarlarkError) {
    super(starlark.message)
  }
}

/** A compile or load failure of a script hook, with its position in the hook's file. */
export function problemOf(
  error: unknown,
  config: Pick<ScriptConfig, 'column' | 'whenColumn'>,
): ScriptProblem {
  const inWhen = error instanceof WhenError
  const starlark = error instanceof WhenError ? error.starlark : error
  if (starlark instanceof StarlarkError) {
    const problem: ScriptProblem = { message: starlark.reason }
    if (starlark.line > 0) {
      problem.line = starlark.line
      problem.col = starlark.col + ((inWhen ? config.whenColumn : config.column) ?? 0)
    }
    if (starlark.kind === 'syntax') problem.message = `Starlark syntax error: ${starlark.reason}`
    else if (starlark.functionName) problem.message = `in ${starlark.functionName}: ${starlark.reason}`
    if (inWhen) problem.message = `when: ${problem.message}`
    return problem
  }
  if (error instanceof ScriptShapeError) {
    const problem: ScriptProblem = { message: error.message }
    if (error.line !== undefined) problem.line = error.line
    if (error.col !== undefined) problem.col = error.col + (config.column ?? 0)
    return problem
  }
  return { message: error instanceof Error ? error.message : String(error) }
}

/** How one attempt of a run ended: a verdict, a failure, or a wait for an http answer. */
export type Attempt =
  | { type: 'verdict'; verdict: Verdict }
  | { type: 'failed'; error: unknown }
  | { type: 'pending'; request: HttpCall }

/**
 * Runs `when` and `handle` once over the event's payload view. `limits` (when given)
 * replace the wall-time and step limits the script was compiled with, for this run only.
 */
export function attemptRun(
  prepared: Prepared,
  event: CheckedEvent,
  view: unknown,
  run: RunState,
  limits?: Partial<Limits>,
): Attempt {
  let verdict: Verdict
  try {
    verdict = evaluate(prepared, event, view, run, limits)
  } catch (error) {
    if (run.pending && (error instanceof HttpSuspend || isSuspension(error)))
      return { type: 'pending', request: run.pending }
    return { type: 'failed', error }
  }
  if (view !== event.payload && verdict.type === 'modify' && event.event === 'agent.response') {
    const { logs: _shown, ...rest } = verdict.payload
    return { type: 'verdict', verdict: { ...verdict, payload: rest } }
  }
  return { type: 'verdict', verdict }
}

/**
 * Whether a run stopped at a wall-time limit of `limitMs` (the slice a script may hold
 * the main thread for, which is below its own limit).
 */
export function stoppedAtWallTime(error: unknown, limitMs: number): boolean {
  const starlark = error instanceof WhenError ? error.starlark : error
  return (
    starlark instanceof StarlarkError &&
    starlark.kind === 'limit' &&
    starlark.reason.startsWith(`wall time limit exceeded (limit maxWallTimeMs = ${limitMs} ms)`)
  )
}

function isSuspension(error: unknown): boolean {
  return error instanceof StarlarkError && error.reason === 'waiting for an http answer'
}

function evaluate(
  prepared: Prepared,
  event: CheckedEvent,
  view: unknown,
  run: RunState,
  limits: Partial<Limits> | undefined,
): Verdict {
  const options = {
    hostData: run,
    print: (message: string) => void run.logs.push(message),
    ...(limits ? { limits } : {}),
  }
  if (prepared.when) {
    let matched: boolean
    try {
      matched = prepared.when.test({ payload: view, event: event.event }, options)
    } catch (error) {
      if (error instanceof StarlarkError) throw new WhenError(error)
      throw error
    }
    if (!matched) {
      run.logs.push(WHEN_FALSE)
      return { type: 'abstain' }
    }
  }
  const answer = prepared.module.call('handle', [event.event, view], undefined, options)
  if (!(answer instanceof ScriptDecision)) {
    throw new Error(
      `handle returned ${describeValue(answer)}, not a decision: return allow(), block(reason), modify(payload) or ask(reason)`,
    )
  }
  const payload = answer.kind === 'modify' ? fromPayloadView(event, answer.payload) : undefined
  return verdictOf(answer, payload)
}

/** The reason a failed run denies with: file:line:col, function, reason and call sites. */
export function problemText(error: unknown, prepared: Prepared): string {
  if (error instanceof WhenError) return `when failed: ${starlarkText(error.starlark, prepared.whenColumn)}`
  if (error instanceof StarlarkError) {
    return error.line > 0 ? starlarkText(error, prepared.column) : `${prepared.file}: ${error.message}`
  }
  return error instanceof Error ? error.message : String(error)
}

function starlarkText(error: StarlarkError, column: number): string {
  let text = `${error.file}:${error.line}:${error.col + column}: `
  if (error.functionName !== undefined) text += `in ${error.functionName}: `
  text += error.reason
  for (const frame of error.calledFrom)
    text += `\n  called from ${frame.file}:${frame.line}:${frame.col + column}`
  return text
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'None'
  if (typeof value === 'string') return `a string ${JSON.stringify(value.slice(0, 40))}`
  if (Array.isArray(value)) return 'a list'
  return `a ${typeof value === 'object' ? 'dict' : typeof value}`
}
