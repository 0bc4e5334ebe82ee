// Where a tenant's Starlark hook runs, so that it never holds the event loop for more than
// a small slice: each run starts on the main thread with the slice as its wall-time limit
// (most scripts end in microseconds); a run that reaches the slice is dropped, unseen, and
// run again from the start in a worker thread under the hook's full limits, and the hook's
// later runs go to a worker straight away. Runs are deterministic and their writes staged,
// so the run again is the same run. The workers are a bounded pool (size, queue bound);
// one that runs past its limit is stopped and replaced, and the hook denies with the cause.

import { availableParallelism } from 'node:os'
import type { JsonObject } from '../core/index.js'
import { type IsolateMode, isolates, WorkerPool, workerStarter } from '../worker-pool/index.js'
import type { HostOp, ScriptJob, ScriptJobResult } from './script-job.js'
import type { ScriptState } from './script-state.js'

export type { IsolateMode }

/** Settings of script isolation (`scripts:` in warden.yaml). */
export interface ScriptIsolation {
  /** `tenant` (default): hooks scoped to a tenant; `all`: global hooks too; `none`: every run on the main thread. */
  isolate: IsolateMode
  /** Most worker threads (default: the cores less one, from 1 to 4). */
  workers: number
  /** Most runs waiting for a worker (default 64); past it a run is refused, naming the bound. */
  queue: number
  /**
   * Milliseconds a run may hold the main thread before it moves to a worker (default 5). A
   * hook whose wall-time limit is no longer than this always runs on the main thread.
   */
  sliceMs: number
  /**
   * Niceness of the worker threads on Linux (default 19, the lowest priority): on busy
   * cores the main thread, which answers every tenant, comes before any tenant's script.
   */
  nice: number
}

/** Extra milliseconds past its wall-time limit a worker run gets before its worker is stopped. */
export const WORKER_GRACE_MS = 250

/** The default isolation settings on this machine. */
export function defaultIsolation(): ScriptIsolation {
  return {
    isolate: 'tenant',
    workers: Math.max(1, Math.min(4, availableParallelism() - 1)),
    queue: 64,
    sliceMs: 5,
    nice: 19,
  }
}

export { isolates }

/** Heap a script worker may use, in MB: past it the worker stops and the run denies. */
const WORKER_HEAP_MB = 128

/** Starts one script worker thread. */
const startScriptWorker = workerStarter(import.meta.url, 'script-worker', WORKER_HEAP_MB)

/** What a run's host calls may reach: its own tenant's counters and cache, the hooks it may list. */
export interface RunScope {
  shared: ScriptState
  tenant: string
  /** The run's cache key (tenant and session). */
  run: string
  hooks(): JsonObject[]
  checkUrl(url: string): string | undefined
}

/** The script workers of one handler (started when first needed). */
export class ScriptWorkers {
  private pool: WorkerPool | undefined

  constructor(readonly settings: ScriptIsolation) {}

  /**
   * Runs a job in a worker; its host calls are answered within `scope` only.
   * @throws PoolError when the queue is full, the run passed its limit or its worker crashed.
   */
  async run(
    job: ScriptJob,
    scope: RunScope,
    abort?: (listener: () => void) => void,
  ): Promise<ScriptJobResult> {
    this.pool ??= new WorkerPool({
      start: startScriptWorker,
      size: this.settings.workers,
      queue: this.settings.queue,
      setting: 'scripts',
      what: 'script',
      nice: this.settings.nice,
    })
    const pool = this.pool
    abort?.(() => {
      pool.cancel(job)
    })
    const timeoutMs = (job.limits.maxWallTimeMs ?? 1000) + WORKER_GRACE_MS
    return (await pool.run({
      message: job,
      timeoutMs,
      host: (op, args) => answerHostCall(op as HostOp, args, scope),
    })) as ScriptJobResult
  }

  /** Starts a worker in the background, for a hook whose runs may move to one. */
  warm(): void {
    this.started().warm()
  }

  private started(): WorkerPool {
    this.pool ??= new WorkerPool({
      start: startScriptWorker,
      size: this.settings.workers,
      queue: this.settings.queue,
      setting: 'scripts',
      what: 'script',
      nice: this.settings.nice,
    })
    return this.pool
  }

  /** The pool's counts (zeros before the first worker run). */
  stats(): { workers: number; busy: number; queued: number; replaced: number } {
    return this.pool?.stats() ?? { workers: 0, busy: 0, queued: 0, replaced: 0 }
  }

  async close(): Promise<void> {
    const pool = this.pool
    this.pool = undefined
    await pool?.close()
  }
}

/** A map's entry as `[value]`, or `[]` when it has none (a stored null stays apart from none). */
function found<V>(map: Map<string, V>, key: string): V[] {
  return map.has(key) ? [map.get(key) as V] : []
}

function keyArg(args: unknown[], op: string): string {
  const key = args[0]
  if (typeof key !== 'string') throw new Error(`${op}: the key must be a string`)
  return key
}

/** Answers a worker's host call for the run's own tenant and cache, whatever the worker asks. */
function answerHostCall(op: HostOp, args: unknown[], scope: RunScope): unknown {
  if (op === 'hooks.list') return scope.hooks()
  if (op === 'http.check') return scope.checkUrl(keyArg(args, op)) ?? null
  const [area, verb] = op.split('.')
  const map: Map<string, unknown> | undefined =
    area === 'metrics'
      ? scope.shared.metrics(scope.tenant)
      : area === 'cache'
        ? scope.shared.cache(scope.run)
        : undefined
  if (map && verb === 'get') return found(map, keyArg(args, op))
  if (map && verb === 'has') return map.has(keyArg(args, op))
  if (map && verb === 'size') return map.size
  if (map && verb === 'keys') return [...map.keys()]
  throw new Error(`unknown host call ${JSON.stringify(op)}`)
}
