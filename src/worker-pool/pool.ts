// A bounded pool of worker threads, each running one job at a time, so that work a tenant
// controls (a Starlark script) never holds the main thread. The pool has a size and a queue
// bound (a job past it is refused at once, naming the bound); a job that runs past its time
// has its worker stopped and replaced; a worker that crashes fails its job and is replaced.
// A worker may ask the main thread for data synchronously while a job runs (a host call):
// the pool answers with the job's own `host` function, so a job only reaches what it was
// given.

import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads'

/** What a pool worker receives as its workerData (see {@link serveJobs}). */
export interface PoolWorkerData {
  /** The port host-call answers arrive on. */
  hostPort: MessagePort
  /** Set to 1 by the main thread when an answer was posted on `hostPort`. */
  flag: SharedArrayBuffer
  /** The niceness the worker's thread takes (Linux; 0 leaves it at the process's). */
  nice: number
}

/** Settings of a pool. */
export interface PoolOptions {
  /** Starts one worker thread with the given workerData (and its transfer list). */
  start(workerData: PoolWorkerData, transferList: MessagePort[]): Worker
  /** Most workers at once. */
  size: number
  /** Most jobs waiting for a worker. */
  queue: number
  /** The settings prefix named in refusals, e.g. `scripts` (for `scripts.queue`). */
  setting: string
  /** What a worker runs, named in errors, e.g. `script`. */
  what: string
  /**
   * Niceness of the worker threads (0 to 19, Linux), so that the main thread, which
   * answers every other caller, comes first when the cores are busy. Default 0.
   */
  nice?: number
}

/** One job for a pool worker. */
export interface PoolJob {
  /** Posted to the worker (structured clone). */
  message: unknown
  /** Milliseconds the job may run once its worker is ready; past it the worker is stopped. */
  timeoutMs: number
  /** Answers the worker's host calls while this job runs. */
  host?: (op: string, args: unknown[]) => unknown
}

/** Why a pool did not return a job's result. */
export class PoolError extends Error {
  override readonly name = 'PoolError'
  constructor(
    readonly code: 'queue-full' | 'timeout' | 'crashed' | 'closed' | 'failed',
    message: string,
  ) {
    super(message)
  }
}

/** Milliseconds a worker whose job passed its time has to stop by itself before it is stopped. */
export const STOP_AFTER_MS = 1000

/** Most milliseconds a new worker may take to load before its job fails. */
export const WORKER_START_LIMIT_MS = 15_000

interface Pending {
  job: PoolJob
  resolve(value: unknown): void
  reject(error: Error): void
}

interface Slot {
  worker: Worker
  port: MessagePort
  flag: Int32Array
  ready: boolean
  dead: boolean
  active?: Pending
  timer?: NodeJS.Timeout
}

/** Counts of a pool, for metrics and tests. */
export interface PoolStats {
  workers: number
  busy: number
  queued: number
  /** Workers stopped past their time or lost to a crash. */
  replaced: number
}

/** A bounded pool of worker threads (see the file header). */
export class WorkerPool {
  private readonly slots: Slot[] = []
  private readonly waiting: Pending[] = []
  private replaced = 0
  private closed = false

  constructor(private readonly options: PoolOptions) {}

  /**
   * Runs a job on a free worker (starting one when the pool is below its size), or queues it.
   * @returns the worker's answer.
   * @throws PoolError `queue-full` at once when the queue is at its bound; `timeout`,
   *   `crashed`, `failed` (the job threw in the worker) or `closed` later.
   */
  run(job: PoolJob): Promise<unknown> {
    if (this.closed) return Promise.reject(new PoolError('closed', `the ${this.options.what} pool is closed`))
    return new Promise((resolve, reject) => {
      const pending: Pending = { job, resolve, reject }
      const slot = this.freeSlot()
      if (slot) return this.dispatch(slot, pending)
      if (this.waiting.length >= this.options.queue) {
        const { size, queue, setting, what } = this.options
        return reject(
          new PoolError(
            'queue-full',
            `all ${size} ${what} workers are busy and ${queue} runs already wait (limit ${setting}.queue = ${queue}; ${setting}.workers = ${size})`,
          ),
        )
      }
      this.waiting.push(pending)
    })
  }

  /** Starts one worker ahead of the first job (when none runs yet), so that job does not wait for it to load. */
  warm(): void {
    if (!this.closed && this.slots.length === 0) this.spawn()
  }

  /**
   * Drops a job that still waits for a worker (its caller gave up on it): it fails with
   * `failed`. False when it already runs or ended.
   */
  cancel(message: unknown): boolean {
    const at = this.waiting.findIndex((p) => p.job.message === message)
    if (at < 0) return false
    const [pending] = this.waiting.splice(at, 1)
    pending?.reject(
      new PoolError('failed', `the ${this.options.what} run was given up before a worker took it`),
    )
    return true
  }

  /** The pool's counts. */
  stats(): PoolStats {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.active).length,
      queued: this.waiting.length,
      replaced: this.replaced,
    }
  }

  /** Stops every worker; queued and running jobs fail with `closed`. */
  async close(): Promise<void> {
    this.closed = true
    const error = new PoolError('closed', `the ${this.options.what} pool is closed`)
    for (const pending of this.waiting.splice(0)) pending.reject(error)
    const slots = this.slots.splice(0)
    await Promise.all(
      slots.map((slot) => {
        slot.dead = true
        if (slot.timer) clearTimeout(slot.timer)
        slot.active?.reject(error)
        slot.port.close()
        return slot.worker.terminate()
      }),
    )
  }

  private freeSlot(): Slot | undefined {
    const idle = this.slots.find((s) => !s.active && !s.dead)
    if (idle) return idle
    return this.slots.length < this.options.size ? this.spawn() : undefined
  }

  private spawn(): Slot {
    const channel = new MessageChannel()
    const flag = new SharedArrayBuffer(4)
    const worker = this.options.start({ hostPort: channel.port2, flag, nice: this.options.nice ?? 0 }, [
      channel.port2,
    ])
    worker.unref()
    channel.port1.unref()
    const slot: Slot = { worker, port: channel.port1, flag: new Int32Array(flag), ready: false, dead: false }
    worker.on('message', (message: WorkerMessage) => this.onMessage(slot, message))
    worker.on('error', (error: Error) =>
      this.fail(slot, 'crashed', `the ${this.options.what} worker crashed: ${error.message}`),
    )
    worker.on('exit', (code: number) =>
      this.fail(slot, 'crashed', `the ${this.options.what} worker exited (code ${code})`),
    )
    this.slots.push(slot)
    return slot
  }

  private dispatch(slot: Slot, pending: Pending): void {
    slot.active = pending
    this.arm(slot, slot.ready ? pending.job.timeoutMs : WORKER_START_LIMIT_MS + pending.job.timeoutMs)
    slot.worker.postMessage(pending.job.message)
  }

  private arm(slot: Slot, ms: number): void {
    if (slot.timer) clearTimeout(slot.timer)
    const limit = slot.active?.job.timeoutMs ?? ms
    slot.timer = setTimeout(() => this.overdue(slot, limit), ms)
    slot.timer.unref()
  }

  /**
   * A job past its time: its caller is answered at once; the worker gets a little longer
   * to stop by itself (a starved thread on a busy machine), then it is stopped and replaced.
   */
  private overdue(slot: Slot, limit: number): void {
    const pending = slot.active
    if (!pending) return
    const what = this.options.what
    pending.reject(new PoolError('timeout', `the ${what} ran past its limit of ${limit} ms`))
    pending.resolve = () => {}
    pending.reject = () => {}
    slot.timer = setTimeout(
      () =>
        this.fail(
          slot,
          'timeout',
          `the ${what} ran past its limit of ${limit} ms: its worker was stopped and replaced`,
        ),
      Math.max(STOP_AFTER_MS, limit),
    )
    slot.timer.unref()
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    if (slot.dead) return
    if (message.t === 'ready') {
      slot.ready = true
      if (slot.active) this.arm(slot, slot.active.job.timeoutMs)
    } else if (message.t === 'host') {
      this.answerHost(slot, message.op, message.args)
    } else if (message.t === 'done') {
      const pending = slot.active
      if (slot.timer) clearTimeout(slot.timer)
      slot.active = undefined
      slot.timer = undefined
      if (pending) {
        if (message.error !== undefined) pending.reject(new PoolError('failed', message.error))
        else pending.resolve(message.value)
      }
      this.next(slot)
    }
  }

  private answerHost(slot: Slot, op: string, args: unknown[]): void {
    let reply: { value?: unknown; error?: string }
    try {
      const host = slot.active?.job.host
      if (!host) throw new Error(`no host call "${op}" is open to this job`)
      reply = { value: host(op, args) }
    } catch (error) {
      reply = { error: error instanceof Error ? error.message : String(error) }
    }
    slot.port.postMessage(reply)
    Atomics.store(slot.flag, 0, 1)
    Atomics.notify(slot.flag, 0)
  }

  private next(slot: Slot): void {
    const pending = this.waiting.shift()
    if (pending) this.dispatch(slot, pending)
  }

  private fail(slot: Slot, code: PoolError['code'], message: string): void {
    if (slot.dead || this.closed) return
    slot.dead = true
    if (slot.timer) clearTimeout(slot.timer)
    this.replaced++
    const at = this.slots.indexOf(slot)
    if (at >= 0) this.slots.splice(at, 1)
    slot.port.close()
    void slot.worker.terminate()
    slot.active?.reject(new PoolError(code, message))
    slot.active = undefined
    // The queue goes on with a new worker.
    const pending = this.waiting.shift()
    if (pending) this.dispatch(this.spawn(), pending)
  }
}

/** Messages a pool worker posts to the main thread. */
export type WorkerMessage =
  | { t: 'ready' }
  | { t: 'host'; op: string; args: unknown[] }
  | { t: 'done'; value?: unknown; error?: string }
