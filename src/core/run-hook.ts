// Runs one hook for one event and always comes to an end: a timeout, a thrown error, an
// abort or a garbage answer is reported as such, for the chain to apply the hook's
// onTimeout / onError policy. The timer is only set up when the handler is asynchronous,
// the abort signal only when the handler reads it.

import type { HookMeta, HookTrace, Verdict } from './decision.js'
import { normalizeVerdict } from './decision.js'
import { errorMessage } from './errors.js'
import type { CheckedEvent } from './events.js'
import type { FailurePolicy, HookCall, HookExecutor, HookSpec } from './hook.js'

/** What happened when a hook ran. */
export type HookRun =
  | { kind: 'verdict'; verdict: Verdict; logs?: string[]; meta?: HookMeta }
  | { kind: 'error' | 'timeout' | 'invalid-answer'; message: string; logs?: string[]; meta?: HookMeta }

/** One listener of {@link HookCall.onAbort}. */
type AbortListener = (reason: Error) => void

/**
 * The call a handler receives. Nothing abortable is made up front: the AbortSignal only
 * when a handler reads `signal` (an AbortSignal is costly to create in Node), the
 * listener list only when it calls `onAbort`. A call is tracked in flight, so that closing
 * the engine reaches it, only once it has either.
 */
class Call implements HookCall {
  controller: AbortController | undefined
  listeners: AbortListener | AbortListener[] | undefined
  logs: string[] | undefined
  /** What the handler reported through `meta`. */
  facts: HookMeta | undefined
  /** Set once the call was aborted; later `onAbort` listeners are told at once. */
  abortedWith: Error | undefined
  /** Neighbours in the engine's list of calls in flight (a list: no hashing per call). */
  prev: Call | undefined
  next: Call | undefined
  tracked = false
  private finished = false
  constructor(
    readonly event: CheckedEvent,
    readonly hook: HookSpec,
    private readonly inFlight: InFlight,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.abortedWith) this.controller.abort(this.abortedWith)
      else this.track()
    }
    return this.controller.signal
  }

  onAbort(listener: AbortListener): () => void {
    const aborted = this.abortedWith
    if (aborted) {
      queueMicrotask(() => tell(listener, aborted))
      return noop
    }
    if (this.finished) return noop
    const current = this.listeners
    if (current === undefined) this.listeners = listener
    else if (typeof current === 'function') this.listeners = [current, listener]
    else current.push(listener)
    this.track()
    return () => this.removeListener(listener)
  }

  log(line: string): void {
    if (!this.logs) this.logs = []
    if (this.logs.length < 100) this.logs.push(String(line).slice(0, 2000))
  }

  meta(info: HookMeta): void {
    this.facts = this.facts ? { ...this.facts, ...info } : { ...info }
  }

  /** Aborts the signal (if made) and tells every listener, once. */
  abort(reason: Error): void {
    if (this.abortedWith) return
    this.abortedWith = reason
    const listeners = this.listeners
    this.release()
    this.controller?.abort(reason)
    if (typeof listeners === 'function') tell(listeners, reason)
    else if (listeners) for (const listener of listeners) tell(listener, reason)
  }

  /** The hook is done: the engine no longer reaches it, its listeners are dropped. */
  release(): void {
    this.finished = true
    this.listeners = undefined
    if (this.tracked) this.inFlight.remove(this)
  }

  private track(): void {
    if (!this.tracked && !this.finished) this.inFlight.add(this)
  }

  private removeListener(listener: AbortListener): void {
    const current = this.listeners
    if (current === listener) this.listeners = undefined
    else if (Array.isArray(current)) {
      const at = current.indexOf(listener)
      if (at >= 0) current.splice(at, 1)
    }
  }
}

/** A call made during a dry run: what the handler reports through `detail` is merged into `sink`. */
class DetailCall extends Call {
  /** A bound function, so that a handler may pass it around. */
  readonly detail: (info: Record<string, unknown>) => void

  constructor(event: CheckedEvent, hook: HookSpec, inFlight: InFlight, sink: Record<string, unknown>) {
    super(event, hook, inFlight)
    this.detail = (info) => {
      Object.assign(sink, info)
    }
  }
}

function noop(): void {}

/** Tells one listener; a listener that throws must not keep the others or the engine from going on. */
function tell(listener: AbortListener, reason: Error): void {
  try {
    listener(reason)
  } catch {
    // The hook is being stopped either way; its listener's own failure changes nothing.
  }
}

/** Tracks the calls in flight that can be aborted, so closing the engine can stop them. */
export class InFlight {
  private head: Call | undefined

  add(call: Call): void {
    call.tracked = true
    call.prev = undefined
    call.next = this.head
    if (this.head) this.head.prev = call
    this.head = call
  }

  remove(call: Call): void {
    call.tracked = false
    if (call.prev) call.prev.next = call.next
    else this.head = call.next
    if (call.next) call.next.prev = call.prev
    call.prev = undefined
    call.next = undefined
  }

  abortAll(reason: string): void {
    const calls: Call[] = []
    for (let call = this.head; call; call = call.next) calls.push(call)
    for (const call of calls) call.abort(new Error(reason))
  }
}

/**
 * Executes a hook with a time limit and hands what happened to `finish`; never throws
 * unless `finish` does. A handler that answers synchronously is finished synchronously (no
 * promise, no timer); an asynchronous one gets one timer, and `finish` runs as soon as it
 * settles or times out, so the caller needs no further promise of its own.
 * @param timeoutMs the hook's own limit, already cut to what is left of the chain budget.
 * @param detail when given (dry runs), the call has `detail`, which merges into it.
 */
export function runHook<T>(
  hook: HookSpec,
  execute: HookExecutor,
  event: CheckedEvent,
  timeoutMs: number,
  inFlight: InFlight,
  finish: (run: HookRun) => T,
  detail?: Record<string, unknown>,
): T | Promise<T> {
  const call = detail ? new DetailCall(event, hook, inFlight, detail) : new Call(event, hook, inFlight)
  let answer: unknown
  try {
    answer = execute(call)
  } catch (error) {
    call.release()
    return finish(withLogs({ kind: 'error', message: errorMessage(error) }, call))
  }
  if (!isPromiseLike(answer)) {
    call.release()
    return finish(settle(answer, call))
  }
  const pending = answer
  return new Promise<T>((resolve, reject) => {
    let done = false
    const timer = setTimeout(() => {
      if (done) return
      done = true
      call.abort(new Error(`hook "${hook.name}" timed out after ${timeoutMs} ms`))
      const run = withLogs({ kind: 'timeout', message: `timed out after ${timeoutMs} ms` }, call)
      deliver(run, finish, resolve, reject)
    }, timeoutMs)
    pending.then(
      (value) => {
        if (done) return
        done = true
        clearTimeout(timer)
        call.release()
        deliver(settle(value, call), finish, resolve, reject)
      },
      (error: unknown) => {
        if (done) return
        done = true
        clearTimeout(timer)
        call.release()
        const run = withLogs({ kind: 'error', message: errorMessage(error) }, call)
        deliver(run, finish, resolve, reject)
      },
    )
  })
}

/** Settles the promise of an asynchronous hook with what `finish` makes of its run. */
function deliver<T>(
  run: HookRun,
  finish: (run: HookRun) => T,
  resolve: (value: T) => void,
  reject: (error: unknown) => void,
): void {
  try {
    resolve(finish(run))
  } catch (error) {
    reject(error)
  }
}

/** The run of a hook that had no opinion and logged nothing: the most common answer. */
const ABSTAINED: HookRun = Object.freeze({
  kind: 'verdict',
  verdict: Object.freeze({ type: 'abstain' }),
}) as HookRun

function settle(answer: unknown, call: Call): HookRun {
  if (answer === undefined && call.logs === undefined && call.facts === undefined) return ABSTAINED
  const normalized = normalizeVerdict(answer, call.event.payload)
  if (!normalized.ok) return withLogs({ kind: 'invalid-answer', message: normalized.error }, call)
  return withLogs({ kind: 'verdict', verdict: normalized.verdict }, call)
}

/** The run with what the call logged and reported. */
function withLogs(run: HookRun, call: Call): HookRun {
  if (call.logs) run.logs = call.logs
  if (call.facts) run.meta = call.facts
  return run
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  )
}

/** The verdict a failure policy gives, with the cause in the reason. */
export function failureVerdict(hook: HookSpec, policy: FailurePolicy, cause: string): Verdict {
  if (policy === 'allow')
    return { type: 'allow', reason: `hook "${hook.name}" failed (${cause}); allowed by its failure policy` }
  return { type: 'deny', reason: `hook "${hook.name}" failed closed: ${cause}` }
}

/**
 * The trace error of a handler's own fail-open (a remote Guardian's `onDecisionFailure:
 * proceed`): an allow whose first reason code is `decision_failure` is a failure let through.
 */
export function failOpenError(verdict: Verdict): HookTrace['error'] {
  if (verdict.type !== 'allow' || verdict.reasonCode?.[0] !== 'decision_failure') return undefined
  return { kind: 'error', message: verdict.reason ?? 'decision failure' }
}
