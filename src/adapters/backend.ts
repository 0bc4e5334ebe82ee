// The backend every SDK adapter asks: an in-process engine or a remote Warden (`/aos`
// JSON-RPC), behind one `dispatch`. The backend never throws and never allows by accident:
// a remote Warden that is unreachable, slow, answers an error or garbage, or an engine
// that throws, becomes a deny naming the cause (on events that can block).

import {
  checkEventShape,
  type Decision,
  type DecisionKind,
  type DispatchInput,
  type EventName,
  errorMessage,
  isBlockingEvent,
  type JsonObject,
  lookupEventName,
} from '../core/index.js'
import { aosMethodFor, createAosGuardianCodec } from '../protocols/index.js'
import { refuseUnappliable } from './decisions.js'

/** What an adapter needs from Warden: an `Engine` is one, so is {@link remoteWarden}. */
export interface WardenBackend {
  dispatch(input: DispatchInput): Promise<Decision>
}

/** Where an adapter sends its events: an engine (or any backend), or a remote Warden's URL. */
export type WardenSource = WardenBackend | string | URL

/** Options of {@link remoteWarden}. */
export interface RemoteWardenOptions {
  /** Longest wait for an answer, in ms; then the event is denied. Default 10 000. */
  timeoutMs?: number
  /** Extra headers (e.g. `authorization`). */
  headers?: Record<string, string>
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch
}

/** Options every adapter takes about its backend. */
export interface BackendOptions {
  /** For a URL source: as {@link RemoteWardenOptions}. */
  remote?: RemoteWardenOptions
}

const MAX_ANSWER_CHARS = 1024 * 1024
let sequence = 0

/** A decision made by the adapter itself (no hook ran): a deny on a failure, or an allow. */
export function localDecision(event: string, kind: DecisionKind, reason: string, code: string): Decision {
  const name = (lookupEventName(event) ?? event) as EventName
  const blocking = lookupEventName(event) ? isBlockingEvent(name) : true
  return {
    id: `adapter-${Date.now().toString(36)}-${++sequence}`,
    event: name,
    decision: blocking ? kind : 'allow',
    reason,
    reasonCode: [code],
    additionalContext: [],
    policies: [],
    trace: [],
    durationMs: 0,
    blocking,
  }
}

/**
 * The backend for a source: a URL becomes {@link remoteWarden}; an engine is wrapped so a
 * throw or a non-decision answer becomes a deny with the cause.
 */
export function toBackend(source: WardenSource, options: BackendOptions = {}): WardenBackend {
  if (typeof source === 'string' || source instanceof URL) return remoteWarden(source, options.remote)
  return failClosed(checkedSource(source))
}

/**
 * A source's own dispatch, for adapters that await it in place: what it answers (or throws,
 * or rejects with) goes through {@link settle} (or {@link crashed}), which gives the same
 * fail-closed decisions as {@link failClosed} without a promise of its own per event.
 */
export type Send = (input: DispatchInput) => Promise<unknown>

/**
 * The {@link Send} of a source: a remote Warden's dispatch for a URL, else the engine's.
 * Await it inside `try`, then `settle(answer, event)`; in `catch`, `crashed(event, error)`.
 */
export function toSend(source: WardenSource, options: BackendOptions = {}): Send {
  if (typeof source === 'string' || source instanceof URL) {
    const remote = remoteWarden(source, options.remote)
    return (input) => remote.dispatch(input)
  }
  const backend = checkedSource(source)
  return (input) => backend.dispatch(input)
}

function checkedSource(source: WardenBackend): WardenBackend {
  if (typeof source?.dispatch !== 'function') {
    throw new TypeError(
      'a Warden source must be an engine (createEngine), a backend with dispatch(), or a URL',
    )
  }
  return source
}

/** Wraps a backend so that it never throws and always answers a decision. */
export function failClosed(backend: WardenBackend): WardenBackend {
  return {
    dispatch(input) {
      let pending: Promise<Decision>
      try {
        pending = backend.dispatch(input)
      } catch (error) {
        return Promise.resolve(crashed(input.event, error))
      }
      return pending.then(
        (decision) => settle(decision, input.event),
        (error: unknown) => crashed(input.event, error),
      )
    },
  }
}

/**
 * A backend's answer as a decision: itself when it is one (a modify the adapters cannot
 * apply turned into the deny that refuses it), else a deny saying it is not.
 */
export function settle(answer: unknown, event: string): Decision {
  const decision = answer as Decision | undefined
  return decision && typeof decision.decision === 'string'
    ? refuseUnappliable(decision)
    : localDecision(
        event,
        'deny',
        'Warden answered something that is not a decision, so the action is denied',
        'warden-unavailable',
      )
}

/** The deny for a backend that threw or rejected, naming the failure. */
export function crashed(event: string, error: unknown): Decision {
  return localDecision(
    event,
    'deny',
    `Warden failed (${errorMessage(error)}), so the action is denied`,
    'warden-unavailable',
  )
}

/**
 * A remote Warden (or any AOS Guardian) asked over JSON-RPC at `url` (`…/aos`; a bare
 * origin gets `/aos` appended). Events AOS has no method for (model.*, session.*,
 * subagent.*, agent.stop) are not sent: they are allowed with reasonCode `not-sent`.
 * An `ask` is answered deny by the remote (AOS has no ask).
 */
export function remoteWarden(url: string | URL, options: RemoteWardenOptions = {}): WardenBackend {
  const target = new URL(String(url))
  if (target.pathname === '/' || target.pathname === '') target.pathname = '/aos'
  const endpoint = target.toString()
  const timeoutMs = options.timeoutMs ?? 10_000
  const doFetch = options.fetch ?? fetch
  const codec = createAosGuardianCodec()
  const where = `${target.origin}${target.pathname}`
  return {
    async dispatch(input) {
      const started = performance.now()
      const name = lookupEventName(input.event)
      if (!name) return localDecision(input.event, 'deny', `unknown event "${input.event}"`, 'invalid-event')
      if (aosMethodFor(name) === undefined) {
        return localDecision(
          name,
          'allow',
          `${name} has no AOS method, so it was not sent to the remote Warden`,
          'not-sent',
        )
      }
      const problem = checkEventShape(name, input.payload, input.context)
      if (problem) return localDecision(name, 'deny', `invalid ${name} event: ${problem}`, 'invalid-event')
      const event = { event: name, payload: input.payload as JsonObject, context: input.context ?? {} }
      const fail = (cause: string) =>
        localDecision(
          name,
          'deny',
          `the remote Warden at ${where} ${cause}, so the action is denied`,
          'warden-unavailable',
        )
      let sent: JsonObject
      try {
        sent = codec.encode(event, `adapter-${++sequence}`)
      } catch (error) {
        return localDecision(
          name,
          'deny',
          `the event cannot be sent over AOS: ${errorMessage(error)}`,
          'invalid-event',
        )
      }
      let text: string
      try {
        const response = await doFetch(endpoint, {
          method: 'POST',
          headers: { ...options.headers, 'content-type': 'application/json' },
          body: JSON.stringify(sent),
          signal: AbortSignal.timeout(timeoutMs),
        })
        text = await response.text()
        if (response.status !== 200) return fail(`answered HTTP ${response.status}`)
      } catch (error) {
        const name_ = (error as Error)?.name
        if (name_ === 'TimeoutError' || name_ === 'AbortError')
          return fail(`did not answer within ${timeoutMs} ms`)
        return fail(`could not be reached (${causeOf(error)})`)
      }
      if (text.length > MAX_ANSWER_CHARS) return fail('answered more than 1 MiB')
      let answer: unknown
      try {
        answer = JSON.parse(text)
      } catch {
        return fail('answered something that is not JSON')
      }
      try {
        const verdict = codec.decode(answer, sent)
        const decision = localDecision(
          name,
          verdict.type === 'abstain' ? 'allow' : verdict.type,
          verdict.reason ?? 'allowed by the remote Warden',
          'remote',
        )
        decision.reasonCode = verdict.reasonCode ?? []
        decision.durationMs = performance.now() - started
        decision.additionalContext = contextOf(answer)
        if (verdict.type === 'modify') decision.payload = verdict.payload
        return decision
      } catch (error) {
        return fail(`gave an unusable answer (${errorMessage(error)})`)
      }
    },
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  return cause?.code ?? cause?.message ?? errorMessage(error)
}

function contextOf(answer: unknown): string[] {
  const data = (answer as { result?: { data?: { additionalContext?: unknown } } })?.result?.data
  const context = data?.additionalContext
  return Array.isArray(context) ? context.filter((c): c is string => typeof c === 'string') : []
}
