// The built-ins a Starlark hook sees: allow(), block(reason), modify(payload), ask(reason),
// log(msg), log.info/warn/error/debug(msg), context(), hooks.list(), metrics.incr/set/get/snapshot,
// cache.get/set and http.get/post. They
// act on the state of the run in progress (the thread's host data), so one compiled module
// serves every event. http calls suspend the run: the handler performs the request and runs
// `handle` again with the answer recorded, which is sound because scripts are deterministic.

import type { EventContext, Json, JsonObject, Verdict } from '../core/index.js'
import { builtin, module, opaque, type Thread, toJs, type Value } from '../starlark/index.js'
import type { StagedWrites } from './script-state.js'

/** Most http calls one run of `handle` may make. */
export const MAX_HTTP_CALLS = 8
/** Largest reason or log line kept, in characters. */
const MAX_TEXT = 2000

/** A decision returned by a script: an opaque value of Starlark type `decision`. */
export class ScriptDecision {
  constructor(
    readonly kind: 'allow' | 'deny' | 'modify' | 'ask',
    readonly reason: string | undefined,
    /** The payload given to `modify`, in the event's view. */
    readonly payload?: JsonObject,
    /** `block(reason, redact=[...])`: the values the script matched, kept out of the audit trail. */
    readonly redact?: string[],
  ) {}
}
// Every decision is an opaque Starlark value of type `decision` (set once, on the prototype).
opaque(ScriptDecision.prototype, 'decision')

/** An http request a script asked for. */
export interface HttpCall {
  method: 'GET' | 'POST'
  url: string
  headers: Record<string, string>
  body?: string
}

/** An http answer as the script sees it. */
export interface HttpAnswer {
  status: number
  body: string
  headers: Record<string, string>
  /** The body parsed as JSON, or None when it is not JSON. */
  json: unknown
}

/** The state of one run of a script, reached through the thread's host data. */
export interface RunState {
  staged: StagedWrites
  logs: string[]
  context: EventContext
  /** Answers of the http calls made so far, in order (replayed on a re-run). */
  answers: HttpAnswer[]
  /** How many http calls this attempt has made. */
  httpIndex: number
  /** Set when the script asked for a request that has no answer yet. */
  pending?: HttpCall
  /** Refuses a URL the allowlist does not cover (returns the problem). */
  checkUrl(url: string): string | undefined
  /** The loaded hooks this run may read (`hooks.list()`): global ones and its tenant's. */
  loadedHooks(): JsonObject[]
}

/** Thrown to stop a run that waits for an http answer. */
export class HttpSuspend extends Error {
  constructor() {
    super('waiting for an http answer')
  }
}

function state(thread: Thread, name: string): RunState {
  const data = thread.hostData as RunState | undefined
  if (!data?.staged) throw new Error(`${name}() can only be used inside handle() or when`)
  return data
}

function text(value: Value | undefined, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} must be a string`)
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value
}

/**
 * Converts a Starlark value to JSON, refusing what JSON cannot hold.
 * @throws Error naming the offending value's path.
 */
export function toJson(value: unknown, path = 'payload', depth = 0): Json {
  if (depth > 100) throw new Error(`${path} is nested too deeply`)
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${path} is not a finite number`)
    return value
  }
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
      throw new Error(`${path} is an int too large for JSON`)
    return Number(value)
  }
  if (Array.isArray(value)) return value.map((item, i) => toJson(item, `${path}[${i}]`, depth + 1))
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: JsonObject = {}
    for (const [key, item] of Object.entries(value)) out[key] = toJson(item, `${path}.${key}`, depth + 1)
    return out
  }
  if (value instanceof Map) throw new Error(`${path} is a dict with keys that are not strings`)
  throw new Error(`${path} holds a value JSON cannot represent`)
}

function httpCall(thread: Thread, request: HttpCall): HttpAnswer {
  const run = state(thread, `http.${request.method.toLowerCase()}`)
  const problem = run.checkUrl(request.url)
  if (problem) throw new Error(problem)
  const answered = run.answers[run.httpIndex]
  if (answered) {
    run.httpIndex++
    return answered
  }
  if (run.httpIndex >= MAX_HTTP_CALLS)
    throw new Error(`too many http calls in one run (limit ${MAX_HTTP_CALLS})`)
  run.pending = request
  throw new HttpSuspend()
}

/** `block(reason, redact=[...])`: a list of strings, or nothing. */
function redactList(value: Value | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined
  const list = toJs(value)
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string'))
    throw new Error('block(reason, redact=...): redact must be a list of strings')
  return list as string[]
}

function headersOf(value: Value | undefined): Record<string, string> {
  if (value === undefined || value === null) return {}
  const headers = toJs(value)
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
    throw new Error('headers must be a dict of strings')
  const out: Record<string, string> = {}
  for (const [key, item] of Object.entries(headers)) {
    if (typeof item !== 'string') throw new Error(`header ${key} must be a string`)
    out[key] = item
  }
  return out
}

/** The globals every script module gets (built once; they act on the run in progress). */
export function scriptGlobals(): Record<string, unknown> {
  return {
    allow: builtin(
      'allow',
      (args) =>
        new ScriptDecision('allow', args[0] === undefined ? undefined : text(args[0], 'allow(reason)')),
    ),
    block: builtin(
      'block',
      (args, kw) =>
        new ScriptDecision(
          'deny',
          text(args[0], 'block(reason)'),
          undefined,
          redactList(kw.redact ?? args[1]),
        ),
    ),
    ask: builtin('ask', (args) => new ScriptDecision('ask', text(args[0], 'ask(reason)'))),
    modify: builtin('modify', (args) => {
      const payload = toJson(toJs(args[0] ?? null))
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
        throw new Error('modify(payload) needs a dict')
      return new ScriptDecision(
        'modify',
        args[1] === undefined ? undefined : text(args[1], 'modify reason'),
        payload,
      )
    }),
    log: builtin('log', (args, _kw, thread) => {
      const run = state(thread, 'log')
      if (run.logs.length < 100) run.logs.push(text(args[0], 'log(msg)'))
      return null
    }),
    ...levelLogs(),
    context: builtin('context', (_args, _kw, thread) => state(thread, 'context').context),
    hooks: module('hooks', {
      list: builtin('hooks.list', (_args, _kw, thread) => state(thread, 'hooks.list').loadedHooks()),
    }),
    metrics: module('metrics', {
      incr: builtin('metrics.incr', (args, _kw, thread) => {
        const by = args[1] ?? 1
        if (typeof by !== 'number') throw new Error('metrics.incr(name, by): by must be an int')
        return state(thread, 'metrics.incr').staged.incr(text(args[0], 'metrics.incr(name)'), by)
      }),
      set: builtin('metrics.set', (args, _kw, thread) => {
        const value = args[1]
        if (typeof value !== 'number' && typeof value !== 'bigint')
          throw new Error('metrics.set(name, value): value must be a number')
        return state(thread, 'metrics.set').staged.set(text(args[0], 'metrics.set(name)'), Number(value))
      }),
      get: builtin('metrics.get', (args, _kw, thread) =>
        state(thread, 'metrics.get').staged.get(text(args[0], 'metrics.get(name)')),
      ),
      snapshot: builtin('metrics.snapshot', (_args, _kw, thread) =>
        state(thread, 'metrics.snapshot').staged.snapshot(),
      ),
    }),
    cache: module('cache', {
      get: builtin('cache.get', (args, _kw, thread) => {
        const found = state(thread, 'cache.get').staged.cacheGet(text(args[0], 'cache.get(key)'))
        return found === undefined ? (args[1] ?? null) : found
      }),
      set: builtin('cache.set', (args, _kw, thread) => {
        const key = text(args[0], 'cache.set(key)')
        state(thread, 'cache.set').staged.cacheSet(key, toJson(toJs(args[1] ?? null), 'value'))
        return null
      }),
    }),
    http: module('http', {
      get: builtin('http.get', (args, kw, thread) =>
        httpCall(thread, {
          method: 'GET',
          url: text(args[0], 'http.get(url)'),
          headers: headersOf(kw.headers ?? args[1]),
        }),
      ),
      post: builtin('http.post', (args, kw, thread) => {
        const body = kw.body ?? args[1] ?? null
        const json = kw.json
        const headers = headersOf(kw.headers ?? args[2])
        let payload: string
        if (json !== undefined) {
          payload = JSON.stringify(toJson(toJs(json), 'json'))
          headers['content-type'] ??= 'application/json'
        } else payload = body === null ? '' : text(body, 'http.post(url, body)')
        return httpCall(thread, {
          method: 'POST',
          url: text(args[0], 'http.post(url)'),
          headers,
          body: payload,
        })
      }),
    }),
  }
}

/** The log levels of `log.<level>(msg)`; each line is kept as `[level] msg`. */
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const

/** `log_<level>` builtins, which {@link rewriteLogCalls} makes `log.<level>` resolve to. */
function levelLogs(): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const level of LOG_LEVELS) {
    out[`log_${level}`] = builtin(`log.${level}`, (args, _kw, thread) => {
      const run = state(thread, `log.${level}`)
      if (run.logs.length < 100) run.logs.push(`[${level}] ${text(args[0], `log.${level}(msg)`)}`)
      return null
    })
  }
  return out
}

/**
 * Rewrites `log.info(` / `log.warn(` / `log.error(` / `log.debug(` in Starlark source to the
 * `log_<level>` builtins, so `log` stays callable as `log(msg)` too. Strings and comments
 * are left alone and every line and column keeps its place (the rewrite is one character).
 */
export function rewriteLogCalls(source: string): string {
  if (!source.includes('log.')) return source
  const out = source.split('')
  const n = source.length
  let i = 0
  while (i < n) {
    const c = source[i] as string
    if (c === '#') {
      while (i < n && source[i] !== '\n') i++
    } else if (c === '"' || c === "'") {
      const triple = source.startsWith(c.repeat(3), i)
      const end = triple ? c.repeat(3) : c
      i += end.length
      while (i < n && !source.startsWith(end, i)) {
        if (source[i] === '\\') i++
        else if (!triple && source[i] === '\n') break
        i++
      }
      i += end.length
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i
      while (j < n && /[A-Za-z0-9_]/.test(source[j] as string)) j++
      const word = source.slice(i, j)
      const before = i > 0 ? source[i - 1] : ''
      const level = /^\.(debug|info|warn|error)\b/.exec(source.slice(j, j + 7))
      if (word === 'log' && before !== '.' && level) out[j] = '_'
      i = j
    } else i++
  }
  return out.join('')
}

/** Turns a script's decision into a verdict (the payload already mapped back by the caller). */
export function verdictOf(decision: ScriptDecision, payload: JsonObject | undefined): Verdict {
  switch (decision.kind) {
    case 'allow':
      return decision.reason === undefined ? { type: 'allow' } : { type: 'allow', reason: decision.reason }
    case 'deny':
      return {
        type: 'deny',
        reason: decision.reason ?? 'blocked by script',
        ...(decision.redact ? { redact: decision.redact } : {}),
      }
    case 'ask':
      return { type: 'ask', reason: decision.reason ?? 'the script asks for approval' }
    default:
      return decision.reason === undefined
        ? { type: 'modify', payload: payload ?? {} }
        : { type: 'modify', payload: payload ?? {}, reason: decision.reason }
  }
}
