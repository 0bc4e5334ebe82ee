// What the main thread and a script worker exchange: one run of a tenant's Starlark hook
// (its config, the event, the http answers so far) and how it ended (a verdict, a failure
// or an http request to make, with the run's logs and staged writes).

import type { EventContext, JsonObject, Verdict } from '../core/index.js'
import type { Limits } from '../starlark/index.js'
import type { HttpAnswer, HttpCall } from './script-builtins.js'
import type { ScriptConfig } from './script-run.js'
import type { WriteSet } from './script-state.js'

/** One run of a script hook in a worker. */
export interface ScriptJob {
  /** Names the compiled script in the worker's cache: the hook's id and its config. */
  key: string
  hookName: string
  config: ScriptConfig
  limits: Partial<Limits>
  event: { event: string; payload: JsonObject; context: EventContext }
  /** For agent.response: the lines the turn's scripts logged (the view's `logs`). */
  turnLogs?: string[]
  /** Answers of the http calls made so far, in order. */
  answers: HttpAnswer[]
}

/** How a run in a worker ended. */
export type ScriptJobResult =
  | { type: 'verdict'; verdict: Verdict; logs: string[]; writes: WriteSet }
  | { type: 'failed'; message: string; logs: string[]; writes: WriteSet }
  | { type: 'pending'; request: HttpCall }

/** The host calls a script worker makes while a run goes on (answered for that run's tenant only). */
export const HOST_OPS = [
  'metrics.get',
  'metrics.has',
  'metrics.size',
  'metrics.keys',
  'cache.get',
  'cache.has',
  'cache.size',
  'cache.keys',
  'hooks.list',
  'http.check',
] as const

/** One of {@link HOST_OPS}. */
export type HostOp = (typeof HOST_OPS)[number]
