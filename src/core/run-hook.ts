// Runs one hook for one event and always resolves: a timeout, a thrown error, an abort or
// a garbage answer becomes the hook's onTimeout / onError verdict with the cause as the
// reason. The timer and abort signal are only set up when the handler is asynchronous.

import type { Verdict } from './decision.js'
import { normalizeVerdict } from './decision.js'
import { errorMessage } from './errors.js'
import type { CheckedEvent } from './events.js'
import type { FailurePolicy, HookCall, HookExecutor, HookSpec } from './hook.js'

/** What happened when a hook ran. */
export type HookRun =
  | { kind: 'verdict'; verdict: Verdict; logs?: string[] }
  | { kind: 'error' | 'timeout' | 'invalid-answer'; message: string; logs?: string[] }

/** The call a handler receives; the abort signal is only created when a handler asks for it. */
class Call implements HookCall {
  controller: AbortController | undefined
  logs: string[] | undefined
  constructor(
    readonly event: CheckedEvent,
    readonly hook: HookSpec,
    private readonly inFlight: InFlight,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      this.inFlight.controllers.add(this.controller)
    }
    return this.controller.signal
  }

  log(line: string): void {
    if (!this.logs) this.logs = []
    if (this.logs.length < 100) this.logs.push(String(line).slice(0, 2000))
  }

  release(): void {
    if (this.controller) this.inFlight.controllers.delete(this.controller)
  }
}

/** Tracks abort controllers of hooks in flight, so closing the engine can stop them. */
export class InFlight {
  readonly controllers = new Set<AbortController>()
  abortAll(reason: string): void {
    for (const c of this.controllers) c.abort(new Error(reason))
    this.controllers.clear()
  }
}

/**
 * Executes a hook with a time limit and returns what happened; never throws. A handler
 * that answers synchronously gets its answer back synchronously (no promise, no timer).
 * @param timeoutMs the hook's own limit, already cut to what is left of the chain budget.
 */
export function runHook(
  hook: HookSpec,
  execute: HookExecutor,
  event: CheckedEvent,
  timeoutMs: number,
  inFlight: InFlight,
): HookRun | Promise<HookRun> {
  const call = new Call(event, hook, inFlight)
  let answer: unknown
  try {
    answer = execute(call)
  } catch (error) {
    call.release()
    return withLogs({ kind: 'error', message: errorMessage(error) }, call.logs)
  }
  if (!isPromiseLike(answer)) {
    call.release()
    return settle(answer, call)
  }
  const pending = answer
  return new Promise<HookRun>((resolve) => {
    let done = false
    const timer = setTimeout(() => {
      if (done) return
      done = true
      call.release()
      call.controller?.abort(new Error(`hook "${hook.name}" timed out after ${timeoutMs} ms`))
      resolve(withLogs({ kind: 'timeout', message: `timed out after ${timeoutMs} ms` }, call.logs))
    }, timeoutMs)
    pending.then(
      (value) => {
        if (done) return
        done = true
        clearTimeout(timer)
        call.release()
        resolve(settle(value, call))
      },
      (error: unknown) => {
        if (done) return
        done = true
        clearTimeout(timer)
        call.release()
        resolve(withLogs({ kind: 'error', message: errorMessage(error) }, call.logs))
      },
    )
  })
}

function settle(answer: unknown, call: Call): HookRun {
  const normalized = normalizeVerdict(answer, call.event.payload)
  if (!normalized.ok) return withLogs({ kind: 'invalid-answer', message: normalized.error }, call.logs)
  return withLogs({ kind: 'verdict', verdict: normalized.verdict }, call.logs)
}

function withLogs(run: HookRun, logs: string[] | undefined): HookRun {
  if (logs) run.logs = logs
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
