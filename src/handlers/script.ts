// The `script` handler: a Starlark hook (an AI Harness style hook file, or a script in
// warden.yaml). The program is compiled and its module run once, when the hook is
// registered; each event evaluates `when` (false = no opinion), then calls
// `handle(event, payload)` with the payload in its view, and maps the decision back onto
// the canonical event. A script error, a `when` error or an answer that is not a decision
// throws, so the engine applies the hook's onError (deny by default) with the Starlark
// error and its position as the reason.

import { z } from 'zod'
import {
  type CheckedEvent,
  formatZodError,
  type HandlerConfig,
  type HandlerFactory,
  type HookCall,
  type HookSpec,
  type Verdict,
  WardenError,
} from '../core/index.js'
import { createOutboundClient, type OutboundClient } from '../net/index.js'
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
  type HttpAnswer,
  HttpSuspend,
  MAX_HTTP_CALLS,
  type RunState,
  rewriteLogCalls,
  ScriptDecision,
  scriptGlobals,
  verdictOf,
} from './script-builtins.js'
import { runKey, ScriptState, StagedWrites, tenantOf, turnKey, withTurnLogs } from './script-state.js'
import { fromPayloadView, loadedHooksView, payloadView } from './script-view.js'

/** Largest script accepted, in characters. */
export const MAX_SCRIPT_CHARS = 256 * 1024

/** Settings of the script handler (`scripts:` in warden.yaml, or an embedder's). */
export interface ScriptHandlerOptions {
  /** Hosts `http.get/post` may reach ("api.example.com", "*.corp.example", "127.0.0.1"); none by default. */
  httpAllow?: readonly string[]
  /**
   * The outbound client http.* goes through (the one every handler shares, with the
   * `network:` settings). Default: a client with no `network.allow`, so a name on the
   * script allowlist that resolves to a private address is still refused.
   */
  client?: OutboundClient
  /** Interpreter limits per call (steps 1e6 and wall time 1 s by default; never over the hook's timeout). */
  limits?: Partial<Limits>
  /** The engine's loaded hooks, read when a script calls `hooks.list()` (none when absent). */
  loadedHooks?: () => readonly HookSpec[]
}

const configSchema = z
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

type ScriptConfig = z.infer<typeof configSchema>

/** A script problem with its position in the hook's file. */
export interface ScriptProblem {
  message: string
  line?: number
  col?: number
}

interface Prepared {
  module: Module
  when?: CompiledExpression
  file: string
  /** Column offsets of the script and of `when` in their file. */
  column: number
  whenColumn: number
}

/** The names a `when` expression may read besides the builtins. */
const WHEN_NAMES = ['payload', 'event'] as const

/** Source text padded so that line numbers match the file it came from. */
function atLine(source: string, line: number | undefined): string {
  return line && line > 1 ? '\n'.repeat(line - 1) + source : source
}

/**
 * Compiles a hook's script and `when`, runs the module, and checks `handle(event, payload)`.
 * @throws StarlarkError (syntax, load-time error) or Error naming what is missing.
 */
function prepareScript(config: ScriptConfig, hookName: string, limits: Partial<Limits>): Prepared {
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

function problemOf(error: unknown, config: Pick<ScriptConfig, 'column' | 'whenColumn'>): ScriptProblem {
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

function parseConfig(config: HandlerConfig, hookName: string): ScriptConfig {
  const parsed = configSchema.safeParse(config)
  if (!parsed.success)
    throw new WardenError('invalid-hook', formatZodError(parsed.error, `hook "${hookName}": handler`))
  return parsed.data
}

/**
 * Checks a script hook's handler config without registering it: Starlark syntax, the
 * module's top level, `handle` and its arity, the `when` expression.
 * @returns the problems with their positions (empty when the hook is fine).
 */
export function checkScriptHook(config: HandlerConfig, hookName: string): ScriptProblem[] {
  let parsed: ScriptConfig
  try {
    parsed = parseConfig(config, hookName)
  } catch (error) {
    return [{ message: (error as Error).message }]
  }
  try {
    prepareScript(parsed, hookName, {})
    return []
  } catch (error) {
    return [problemOf(error, parsed)]
  }
}

/** Creates the `script` handler type. */
export function createScriptHandler(options: ScriptHandlerOptions = {}): HandlerFactory {
  const shared = new ScriptState()
  const allow = [...(options.httpAllow ?? [])].map((h) => h.toLowerCase())
  let client: OutboundClient | undefined
  const checkUrl = (text: string): string | undefined => {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return `"${text}" is not a valid URL`
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return `only http and https URLs may be fetched`
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
    const allowed = allow.some(
      (entry) => entry === host || (entry.startsWith('*.') && host.endsWith(entry.slice(1))),
    )
    if (!allowed)
      return `host "${host}" is not in the script http allowlist${allow.length === 0 ? ' (it is empty: scripts may not use http unless the operator allows hosts)' : ''}`
    return undefined
  }
  return {
    type: 'script',
    prepare(config, hook) {
      const parsed = parseConfig(config, hook.name)
      const limits: Partial<Limits> = {
        ...options.limits,
        maxWallTimeMs: Math.min(options.limits?.maxWallTimeMs ?? 1000, hook.timeoutMs),
      }
      let prepared: Prepared
      try {
        prepared = prepareScript(parsed, hook.name, limits)
      } catch (error) {
        const problem = problemOf(error, parsed)
        const where = problem.line
          ? `${parsed.file ?? `${hook.name}.star`}:${problem.line}:${problem.col ?? 1}: `
          : ''
        throw new WardenError('invalid-hook', `hook "${hook.name}": ${where}${problem.message}`)
      }
      const fetcher = async (
        request: RunState['pending'] & object,
        signal: AbortSignal,
      ): Promise<HttpAnswer> => {
        client ??= options.client ?? createOutboundClient()
        const response = await client.request({
          url: request.url,
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          signal,
          timeoutMs: hook.timeoutMs,
        })
        const body = response.text()
        let json: unknown = null
        try {
          json = JSON.parse(body)
        } catch {
          json = null
        }
        return { status: response.status, body, headers: response.headers, json }
      }
      const host = { checkUrl, hooks: options.loadedHooks ?? (() => []) }
      return (call) => runScript(prepared, call, shared, host, fetcher)
    },
    async close() {
      if (client && client !== options.client) await client.close()
      client = undefined
    },
  }
}

/** The script handler with default settings (no http hosts allowed). */
export const scriptHandler: HandlerFactory = createScriptHandler()

function runScript(
  prepared: Prepared,
  call: HookCall,
  shared: ScriptState,
  host: { checkUrl: RunState['checkUrl']; hooks: () => readonly HookSpec[] },
  fetcher: (request: NonNullable<RunState['pending']>, signal: AbortSignal) => Promise<HttpAnswer>,
): Verdict | Promise<Verdict> {
  const event = call.event
  const tenant = tenantOf(event)
  const cacheKey = runKey(event)
  const turn = turnKey(event)
  const view = withTurnLogs(event, payloadView(event), shared, turn)
  const answers: HttpAnswer[] = []
  const attempt = (): Verdict | Promise<Verdict> => {
    const run: RunState = {
      staged: new StagedWrites(shared, tenant, cacheKey),
      logs: [],
      context: event.context,
      answers,
      httpIndex: 0,
      checkUrl: host.checkUrl,
      loadedHooks: () => loadedHooksView(host.hooks(), tenant),
    }
    let verdict: Verdict
    try {
      verdict = evaluate(prepared, event, view, run)
    } catch (error) {
      if (run.pending && (error instanceof HttpSuspend || isSuspension(error))) {
        const pending = run.pending
        return fetcher(pending, call.signal).then((answer) => {
          answers.push(answer)
          if (answers.length > MAX_HTTP_CALLS)
            throw new Error(`too many http calls (limit ${MAX_HTTP_CALLS})`)
          return attempt()
        })
      }
      finish(run, call, shared, turn)
      throw new Error(problemText(error, prepared))
    }
    finish(run, call, shared, turn)
    if (view !== event.payload && verdict.type === 'modify' && event.event === 'agent.response') {
      const { logs: _shown, ...rest } = verdict.payload
      return { ...verdict, payload: rest }
    }
    return verdict
  }
  return attempt()
}

/** The log line of a run whose `when` did not hold (kept out of the turn's logs). */
const WHEN_FALSE = 'when is false: the hook does not apply'

function isSuspension(error: unknown): boolean {
  return error instanceof StarlarkError && error.reason === 'waiting for an http answer'
}

function finish(run: RunState, call: HookCall, shared: ScriptState, turn: string): void {
  run.staged.commit()
  shared.addTurnLogs(
    turn,
    run.logs.filter((line) => line !== WHEN_FALSE),
  )
  for (const line of run.logs) call.log(line)
  call.detail?.({ logs: [...run.logs] })
}

function evaluate(prepared: Prepared, event: CheckedEvent, view: unknown, run: RunState): Verdict {
  const options = { hostData: run, print: (message: string) => void run.logs.push(message) }
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

class WhenError extends Error {
  constructor(readonly starlark: StarlarkError) {
    super(starlark.message)
  }
}

function problemText(error: unknown, prepared: Prepared): string {
  if (error instanceof WhenError) return `when failed: ${starlarkText(error.starlark, prepared.whenColumn)}`
  if (error instanceof StarlarkError) {
    return error.line > 0 ? starlarkText(error, prepared.column) : `${prepared.file}: ${error.message}`
  }
  return error instanceof Error ? error.message : String(error)
}

/** A Starlark error as file:line:col (columns shifted to the file), function, reason and call sites. */
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
