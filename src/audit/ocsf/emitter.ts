// Emits each decision as an OCSF event after it is made, never changing it and never making
// it wait: the recorder wrapper only queues the record (bounded) and returns the inner
// recorder's answer as it is; the event is built and serialized on a later turn of the event
// loop and handed to each sink's own bounded queue, written one batch at a time. An event a
// queue cannot take, or a batch a sink fails to write, is dropped and counted on /metrics
// (`warden_ocsf_dropped_total`) and in the security log.

import { Counter, Gauge, type Registry } from 'prom-client'
import { AfterTurnQueue, type DecisionRecord, type Recorder, ThrottledCount } from '../../core/index.js'
import { ocsfEventOf } from './event.js'
import type { OcsfSink } from './sinks.js'

/** One drop line per sink and reason in the security log at most this often. */
const DROP_LOG_EVERY_MS = 10_000

/** Where drops are reported. */
export interface OcsfDropLog {
  warn(fields: Record<string, unknown>, message: string): void
}

/** Options of {@link OcsfEmitter}. */
export interface OcsfEmitterOptions {
  sinks: OcsfSink[]
  /** Events waiting per sink (and decisions waiting to become events). */
  maxQueue: number
  /** Warden's version, in `metadata.product.version`. */
  version: string
  registry?: Registry
  log?: OcsfDropLog
}

interface SinkState {
  sink: OcsfSink
  queue: string[]
  busy: boolean
  timer: ReturnType<typeof setTimeout> | undefined
  done: Promise<void>
}

/** Turns decisions into OCSF events and feeds them to the sinks. */
export class OcsfEmitter {
  private readonly states: SinkState[]
  private readonly pending: AfterTurnQueue<DecisionRecord>
  private closed = false
  private readonly emitted: Counter<'sink'> | undefined
  private readonly dropped: Counter<'sink' | 'reason'> | undefined
  private readonly dropLog = new ThrottledCount(DROP_LOG_EVERY_MS)

  constructor(private readonly options: OcsfEmitterOptions) {
    this.pending = new AfterTurnQueue(options.maxQueue, (records) => this.drain(records))
    this.states = options.sinks.map((sink) => ({
      sink,
      queue: [],
      busy: false,
      timer: undefined,
      done: Promise.resolve(),
    }))
    const registers = options.registry ? [options.registry] : undefined
    if (!registers) return
    this.emitted = new Counter({
      name: 'warden_ocsf_events_total',
      help: 'Decisions written as OCSF events, by sink.',
      labelNames: ['sink'] as const,
      registers,
    })
    this.dropped = new Counter({
      name: 'warden_ocsf_dropped_total',
      help: 'OCSF events dropped (queue full, sink failing, shutdown), by sink and reason.',
      labelNames: ['sink', 'reason'] as const,
      registers,
    })
    for (const { sink } of this.states) {
      this.emitted.inc({ sink: sink.name }, 0)
      for (const reason of ['queue-full', 'failed', 'shutdown'])
        this.dropped.inc({ sink: sink.name, reason }, 0)
    }
    const states = this.states
    new Gauge({
      name: 'warden_ocsf_queued',
      help: 'OCSF events waiting to be written, by sink.',
      labelNames: ['sink'] as const,
      registers,
      collect() {
        for (const state of states) this.set({ sink: state.sink.name }, state.queue.length)
      },
    })
  }

  /** Wraps the engine's recorder: its answers pass through unchanged. */
  recorder(inner: Recorder): Recorder {
    const wrapped: Recorder = {
      record: (record) => {
        this.take(record)
        return inner.record(record)
      },
    }
    if (inner.breakerTripped) wrapped.breakerTripped = (trip, hook) => inner.breakerTripped?.(trip, hook)
    return wrapped
  }

  private take(record: DecisionRecord): void {
    if (this.closed || this.pending.push(record)) return
    for (const { sink } of this.states)
      this.drop(sink.name, 'queue-full', 1, 'decisions arrive faster than they are written')
  }

  private drain(records: DecisionRecord[]): void {
    for (const record of records) {
      let line: string
      try {
        line = JSON.stringify(ocsfEventOf(record, { version: this.options.version }))
      } catch (error) {
        for (const { sink } of this.states) this.drop(sink.name, 'failed', 1, (error as Error).message)
        continue
      }
      for (const state of this.states) {
        if (state.queue.length >= this.options.maxQueue) {
          this.drop(state.sink.name, 'queue-full', 1, `the queue holds ${this.options.maxQueue} events`)
          continue
        }
        state.queue.push(line)
      }
    }
    for (const state of this.states) this.schedule(state)
  }

  private schedule(state: SinkState): void {
    if (state.busy || state.timer || state.queue.length === 0) return
    const wait = this.closed || state.queue.length >= state.sink.batchSize ? 0 : state.sink.intervalMs
    if (wait === 0) {
      state.done = this.flush(state)
      return
    }
    state.timer = setTimeout(() => {
      state.timer = undefined
      state.done = this.flush(state)
    }, wait)
    state.timer.unref?.()
  }

  private async flush(state: SinkState): Promise<void> {
    state.busy = true
    try {
      while (state.queue.length > 0) {
        const batch = state.queue.splice(0, state.sink.batchSize)
        try {
          await state.sink.write(batch)
          this.emitted?.inc({ sink: state.sink.name }, batch.length)
        } catch (error) {
          this.drop(state.sink.name, 'failed', batch.length, (error as Error).message)
        }
        if (!this.closed && state.queue.length < state.sink.batchSize && state.sink.intervalMs > 0) break
      }
    } finally {
      state.busy = false
      this.schedule(state)
    }
  }

  private drop(sink: string, reason: string, count: number, cause: string): void {
    this.dropped?.inc({ sink, reason }, count)
    const total = this.dropLog.add(`${sink}\u0000${reason}`, count, Date.now())
    if (total === undefined) return
    this.options.log?.warn(
      { event: 'security.ocsf.dropped', sink, reason, count: total },
      `${total} OCSF event(s) for the ${sink} sink were dropped (${reason}): ${cause}`,
    )
  }

  /** Writes what is queued within `deadlineMs`, drops the rest (counted), closes the sinks. */
  async close(deadlineMs = 5_000): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.pending.flush()
    const flushed = Promise.all(
      this.states.map(async (state) => {
        if (state.timer) {
          clearTimeout(state.timer)
          state.timer = undefined
        }
        await state.done
        if (state.queue.length > 0) await this.flush(state)
      }),
    )
    let deadline: ReturnType<typeof setTimeout> | undefined
    await Promise.race([flushed, new Promise((done) => (deadline = setTimeout(done, deadlineMs)))])
    clearTimeout(deadline)
    for (const state of this.states) {
      if (state.queue.length > 0)
        this.drop(state.sink.name, 'shutdown', state.queue.length, 'Warden shut down first')
      state.queue.length = 0
      await state.sink.close().catch(() => undefined)
    }
  }
}
