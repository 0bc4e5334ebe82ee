// The `script` handler: a Starlark hook (an AI Harness style hook file, or a script in
// warden.yaml). The program is compiled and its module run once, when the hook is
// registered; each event evaluates `when` (false = no opinion), then calls
// `handle(event, payload)` with the payload in its view, and maps the decision back onto
// the canonical event. A script error, a `when` error or an answer that is not a decision
// throws, so the engine applies the hook's onError (deny by default) with the Starlark
// error and its position as the reason. A tenant's hook runs on the main thread for a
// small slice at most, then in a worker thread (see script-isolation.ts).

import {
  formatZodError,
  type HandlerConfig,
  type HandlerFactory,
  type HookCall,
  type HookSpec,
  type Verdict,
  WardenError,
} from '../core/index.js'
import { createOutboundClient, type OutboundClient } from '../net/index.js'
import type { Limits } from '../starlark/index.js'
import { type HttpAnswer, type HttpCall, MAX_HTTP_CALLS, type RunState } from './script-builtins.js'
import {
  defaultIsolation,
  isolates,
  type RunScope,
  type ScriptIsolation,
  ScriptWorkers,
} from './script-isolation.js'
import type { ScriptJob, ScriptJobResult } from './script-job.js'
import {
  attemptRun,
  type Prepared,
  prepareScript,
  problemOf,
  problemText,
  type ScriptConfig,
  type ScriptProblem,
  scriptConfigSchema,
  stoppedAtWallTime,
  WHEN_FALSE,
} from './script-run.js'
import {
  runKey,
  ScriptState,
  StagedWrites,
  tenantOf,
  turnKey,
  type WriteSet,
  withTurnLogs,
} from './script-state.js'
import { hooksViewerTenant, loadedHooksView, payloadView } from './script-view.js'

export { MAX_SCRIPT_CHARS, type ScriptProblem } from './script-run.js'

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
  /** Where tenant scripts run: the main-thread slice and the worker pool (see {@link ScriptIsolation}). */
  isolation?: Partial<ScriptIsolation>
}

function parseConfig(config: HandlerConfig, hookName: string): ScriptConfig {
  const parsed = scriptConfigSchema.safeParse(config)
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
  const isolation: ScriptIsolation = { ...defaultIsolation(), ...options.isolation }
  const workers = new ScriptWorkers(isolation)
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
      const isolated = isolates(isolation.isolate, hook)
      let prepared: Prepared
      try {
        // A tenant's module top level runs here, on the main thread: it gets a short limit.
        prepared = prepareScript(
          parsed,
          hook.name,
          isolated
            ? { ...limits, maxWallTimeMs: Math.min(limits.maxWallTimeMs ?? 1000, LOAD_LIMIT_MS) }
            : limits,
        )
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
      const runner: Runner = { prepared, shared, host, fetcher, limits }
      if (isolated && isolation.sliceMs < (limits.maxWallTimeMs ?? 1000)) {
        runner.isolated = {
          workers,
          sliceMs: isolation.sliceMs,
          offloaded: false,
          job: {
            key: `${hook.id}\n${JSON.stringify(parsed)}\n${JSON.stringify(limits)}`,
            hookName: hook.name,
            config: parsed,
            limits,
          },
        }
        workers.warm()
      }
      return (call) => runScript(runner, call)
    },
    async close() {
      await workers.close()
      if (client && client !== options.client) await client.close()
      client = undefined
    },
  }
}

/** The script handler with default settings (no http hosts allowed). */
export const scriptHandler: HandlerFactory = createScriptHandler()

/** Most milliseconds a tenant script's module top level may run when its hook is registered. */
export const LOAD_LIMIT_MS = 50

/** What one prepared script hook runs with. */
interface Runner {
  prepared: Prepared
  shared: ScriptState
  host: { checkUrl: RunState['checkUrl']; hooks: () => readonly HookSpec[] }
  fetcher: (request: HttpCall, signal: AbortSignal) => Promise<HttpAnswer>
  limits: Partial<Limits>
  /** Set for a hook whose runs may move to a worker. */
  isolated?: {
    workers: ScriptWorkers
    sliceMs: number
    /** Set once a run reached the slice: the hook's runs go to a worker from then on. */
    offloaded: boolean
    job: Pick<ScriptJob, 'key' | 'hookName' | 'config' | 'limits'>
  }
}

function runScript(runner: Runner, call: HookCall): Verdict | Promise<Verdict> {
  const { prepared, shared, host } = runner
  const event = call.event
  const tenant = tenantOf(event)
  const cacheKey = runKey(event)
  const turn = turnKey(event)
  const answers: HttpAnswer[] = []
  const viewer = hooksViewerTenant()
  const hooks = (): ReturnType<RunState['loadedHooks']> => loadedHooksView(host.hooks(), tenant, viewer)
  const scope: RunScope = { shared, tenant, run: cacheKey, hooks, checkUrl: host.checkUrl }
  const isolated = runner.isolated
  if (isolated?.offloaded) return inWorker(runner, call, scope, answers, turn)
  const view = withTurnLogs(event, payloadView(event), shared, turn)
  const slice = isolated ? { maxWallTimeMs: isolated.sliceMs } : undefined
  const attempt = (): Verdict | Promise<Verdict> => {
    const run: RunState = {
      staged: new StagedWrites(shared, tenant, cacheKey),
      logs: [],
      context: event.context,
      answers,
      httpIndex: 0,
      checkUrl: host.checkUrl,
      loadedHooks: hooks,
    }
    const outcome = attemptRun(prepared, event, view, run, slice)
    if (outcome.type === 'pending') {
      return runner.fetcher(outcome.request, call.signal).then((answer) => {
        answers.push(answer)
        if (answers.length > MAX_HTTP_CALLS) throw new Error(`too many http calls (limit ${MAX_HTTP_CALLS})`)
        return attempt()
      })
    }
    if (outcome.type === 'failed' && isolated && stoppedAtWallTime(outcome.error, isolated.sliceMs)) {
      // Past the slice: nothing of this run is kept; it runs again in a worker.
      isolated.offloaded = true
      return inWorker(runner, call, scope, answers, turn)
    }
    run.staged.commit()
    finish(run.logs, call, shared, turn)
    if (outcome.type === 'failed') throw new Error(problemText(outcome.error, prepared))
    return outcome.verdict
  }
  return attempt()
}

/** Runs a hook's event in a worker (again after each http answer) and commits what it wrote. */
async function inWorker(
  runner: Runner,
  call: HookCall,
  scope: RunScope,
  answers: HttpAnswer[],
  turn: string,
): Promise<Verdict> {
  const isolated = runner.isolated
  if (!isolated) throw new Error('this hook does not run in a worker')
  const event = call.event
  const job: ScriptJob = {
    ...isolated.job,
    event: { event: event.event, payload: event.payload, context: event.context },
    answers,
  }
  if (event.event === 'agent.response') job.turnLogs = runner.shared.turnLogsOf(turn)
  for (;;) {
    const result: ScriptJobResult = await isolated.workers.run(job, scope, (listener) =>
      call.onAbort?.(listener),
    )
    if (result.type === 'pending') {
      const problem = scope.checkUrl(result.request.url)
      if (problem) throw new Error(problem)
      answers.push(await runner.fetcher(result.request, call.signal))
      if (answers.length > MAX_HTTP_CALLS) throw new Error(`too many http calls (limit ${MAX_HTTP_CALLS})`)
      continue
    }
    commitWrites(runner.shared, scope, result.writes)
    finish(result.logs, call, runner.shared, turn)
    if (result.type === 'failed') throw new Error(result.message)
    return result.verdict
  }
}

function commitWrites(shared: ScriptState, scope: RunScope, writes: WriteSet): void {
  if (writes.deltas.length + writes.values.length + writes.cache.length > 0)
    shared.apply(scope.tenant, scope.run, writes)
}

function finish(logs: readonly string[], call: HookCall, shared: ScriptState, turn: string): void {
  shared.addTurnLogs(
    turn,
    logs.filter((line) => line !== WHEN_FALSE),
  )
  for (const line of logs) call.log(line)
  call.detail?.({ logs: [...logs] })
}
