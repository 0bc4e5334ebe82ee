// Where a detector hook scans, so that a large input never holds the event loop: a payload
// whose strings are small (up to `inlineChars` characters in all, a scan of about a
// millisecond or two) is scanned on the main thread; a larger one, for a hook scoped to a
// tenant (or any hook, by setting), is sent with the hook's settings to a worker thread,
// which prepares the same detector and answers the same verdict. Detectors are pure, so the
// job is plain data both ways. The workers are a bounded pool of their own (the detectors'
// queue never waits behind tenant scripts, nor theirs behind it); a scan past the hook's
// time is stopped, its worker replaced, and the hook denies with the cause.

import { availableParallelism } from 'node:os'
import type { JsonObject, Verdict } from '../../core/index.js'
import { type IsolateMode, isolates, WorkerPool, workerStarter } from '../../worker-pool/index.js'

/** Which detector hooks may scan off the main thread. */
export type DetectorIsolateMode = IsolateMode

/** Settings of detector isolation (`detectors:` in warden.yaml). */
export interface DetectorIsolation {
  /** `tenant` (default): hooks scoped to a tenant; `all`: global hooks too; `none`: every scan on the main thread. */
  isolate: DetectorIsolateMode
  /** Most worker threads (default: the cores less one, from 1 to 4). */
  workers: number
  /** Most scans waiting for a worker (default 64); past it a scan is refused, naming the bound. */
  queue: number
  /**
   * Characters (all the strings a hook would scan, together) scanned on the main thread;
   * a larger payload goes to a worker. Default {@link DEFAULT_INLINE_CHARS}.
   */
  inlineChars: number
  /** Niceness of the worker threads on Linux (default 19): the main thread comes first. */
  nice: number
}

/**
 * The most characters a detector scans on the main thread by default. Measured on 4,096
 * characters of random text on an idle core: 0.1 to 0.7 ms for secrets, pii, egress, paths
 * and injection, 1 to 3.5 ms for shell (whose reader stops at 65,536 characters anyway);
 * the slowest on a megabyte, injection on random words, reads about 2,300 characters a
 * millisecond, so under 2 ms here.
 */
export const DEFAULT_INLINE_CHARS = 4096

/** Extra milliseconds past the hook's timeout a worker scan gets before its worker is stopped. */
export const DETECTOR_GRACE_MS = 250

/** The default detector isolation on this machine. */
export function defaultDetectorIsolation(): DetectorIsolation {
  return {
    isolate: 'tenant',
    workers: Math.max(1, Math.min(4, availableParallelism() - 1)),
    queue: 64,
    inlineChars: DEFAULT_INLINE_CHARS,
    nice: 19,
  }
}

/** Whether a hook's large scans may move to a worker under `mode`. */
export const detectorIsolates = isolates

/** One scan in a worker: the hook's handler config (plain data) and the event's parts it reads. */
export interface DetectorJob {
  /** Names the prepared detector in the worker's cache: the hook's id and its config. */
  key: string
  hookName: string
  config: unknown
  event: { payload: JsonObject; context?: { cwd?: unknown } }
}

/** Heap a detector worker may use, in MB: a payload of tens of MB fits; past it the scan denies. */
const WORKER_HEAP_MB = 256

/** Starts one detector worker thread. */
const startDetectorWorker = workerStarter(import.meta.url, 'worker', WORKER_HEAP_MB)

/** The detector workers of one handler (started when first needed). */
export class DetectorWorkers {
  private pool: WorkerPool | undefined

  constructor(readonly settings: DetectorIsolation) {}

  /**
   * Scans in a worker.
   * @returns the verdict the main thread would have answered.
   * @throws PoolError when the queue is full, the scan passed its time or its worker crashed.
   */
  async run(job: DetectorJob, timeoutMs: number, abort?: (listener: () => void) => void): Promise<Verdict> {
    this.pool ??= new WorkerPool({
      start: startDetectorWorker,
      size: this.settings.workers,
      queue: this.settings.queue,
      setting: 'detectors',
      what: 'detector',
      nice: this.settings.nice,
    })
    const pool = this.pool
    abort?.(() => {
      pool.cancel(job)
    })
    return (await pool.run({ message: job, timeoutMs: timeoutMs + DETECTOR_GRACE_MS })) as Verdict
  }

  /** The pool's counts (zeros before the first worker scan). */
  stats(): { workers: number; busy: number; queued: number; replaced: number } {
    return this.pool?.stats() ?? { workers: 0, busy: 0, queued: 0, replaced: 0 }
  }

  async close(): Promise<void> {
    const pool = this.pool
    this.pool = undefined
    await pool?.close()
  }
}
