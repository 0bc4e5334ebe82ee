// The audit writer: the engine's Recorder that writes every decision to the store. In
// `async` mode (the default) decisions are queued and written in batches off the hot path,
// at most `intervalMs` after they were decided; in `sync` mode `record` resolves only once
// the row is committed (concurrent decisions share one transaction). A sync record that
// times out has its blocking decision answered deny, and the trail says so: a row not yet
// handed over is written as that deny, one already handed over is corrected to it once
// written. A retried batch never doubles a row; `close` writes everything still queued.

import {
  type DecisionRecord,
  errorMessage,
  type JsonObject,
  knownPayloadBytes,
  payloadBytes,
  type Recorder,
  unrecordedReason,
} from '../core/index.js'
import type { AuditBatch, DecisionCorrection, SecretBox, Store } from '../store/index.js'
import { type AuditRows, toAuditRows } from './rows.js'

/** When rows are written. */
export type AuditMode = 'async' | 'sync'

/** Options of {@link createAuditWriter}. */
export interface AuditOptions {
  mode?: AuditMode
  /** A full batch is written at once (a writer that is behind writes up to 8 per transaction). Default 256. */
  batchSize?: number
  /** Longest wait before queued decisions are written, in ms. Default 100. */
  intervalMs?: number
  /** Decisions that may wait; beyond it `record` fails and blocking decisions are denied. Default 50 000. */
  maxQueue?: number
  /** Longest a sync `record` waits for its row; past it the decision is refused (blocking: denied). Default 10 000. */
  syncTimeoutMs?: number
  /** Seals the full error text of hook executions. */
  secrets?: SecretBox
  /** The trace id to store with a decision (e.g. the active span's). */
  traceId?: () => string | undefined
  /** Where the hooks came from, stored with every decision's input (see audit/sources.ts). */
  sources?: JsonObject
  /** Told when a batch could not be written (it is retried). */
  onError?: (error: Error) => void
  /** Told about every decision whose record was refused (queue full, writer closed). */
  onDrop?: (drop: AuditDrop) => void
}

/** A decision whose audit record was refused: never written anywhere. */
export interface AuditDrop {
  decisionId: string
  event: string
  /** A blocking decision is denied by the engine; a non-blocking one only goes unrecorded. */
  blocking: boolean
  cause: 'queue-full' | 'closed'
  /** Decisions waiting to be written when it was refused. */
  queueDepth: number
}

/** The writer: a Recorder plus flushing and shutdown. */
export interface AuditWriter extends Recorder {
  readonly mode: AuditMode
  /** Writes everything queued now. */
  flush(): Promise<void>
  /** Stops the timer and writes everything still queued; later records fail. */
  close(): Promise<void>
  /** Decisions waiting to be written (queued or being written). */
  queueDepth(): number
  /** Payload bytes those decisions hold (as the engine measured them), for limits on memory. */
  heldBytes(): number
  /** Decisions written since start. */
  written(): number
  /**
   * Sets a decision's row to the answer its caller was actually given (written with the next
   * batch, after the row itself).
   */
  correct(correction: DecisionCorrection): void
  /** The longest a sync `record` waits for its row, in ms. */
  readonly syncTimeoutMs: number
  /** Decisions that may wait before records are refused. */
  readonly maxQueue: number
}

interface Pending {
  rows: AuditRows
  /** The event's payload size, as the engine measured it (or measured here when it did not). */
  bytes: number
  done?: { resolve(): void; reject(error: Error): void }
}

/** When the writer is behind, up to this many batches go into one transaction. */
const CATCH_UP_BATCHES = 8

/** The defaults of {@link AuditOptions}. */
export const AUDIT_DEFAULTS = {
  mode: 'async',
  batchSize: 256,
  intervalMs: 100,
  maxQueue: 50_000,
  syncTimeoutMs: 10_000,
} as const

function toBatch(entries: Pending[], corrections: DecisionCorrection[]): AuditBatch {
  const batch: AuditBatch = { decisions: [], executions: [], approvals: [] }
  if (corrections.length > 0) batch.corrections = corrections
  for (const { rows } of entries) {
    batch.decisions.push(rows.decision)
    for (const execution of rows.executions) batch.executions.push(execution)
    if (rows.approval) batch.approvals.push(rows.approval)
  }
  return batch
}

/** The rows of a decision as the deny its caller got when its record timed out. */
function answeredDeny(rows: AuditRows, correction: DecisionCorrection): AuditRows {
  const output = { ...(rows.decision.output as Record<string, unknown>) }
  delete output.payload
  return {
    ...rows,
    decision: {
      ...rows.decision,
      decision: correction.decision,
      reason: correction.reason,
      reasonCode: correction.reasonCode,
      decidingHooks: [],
      output,
    },
  }
}

/** Creates an audit writer over a store. */
export function createAuditWriter(store: Store, options: AuditOptions = {}): AuditWriter {
  const mode = options.mode ?? AUDIT_DEFAULTS.mode
  const batchSize = Math.max(1, options.batchSize ?? AUDIT_DEFAULTS.batchSize)
  const intervalMs = Math.max(1, options.intervalMs ?? AUDIT_DEFAULTS.intervalMs)
  const maxQueue = Math.max(batchSize, options.maxQueue ?? AUDIT_DEFAULTS.maxQueue)
  const syncTimeoutMs = Math.max(1, options.syncTimeoutMs ?? AUDIT_DEFAULTS.syncTimeoutMs)
  let queue: Pending[] = []
  /** Rows to set to what their callers were told, written with the next batch. */
  let corrections: DecisionCorrection[] = []
  /** Decisions handed to the store and not yet committed. */
  let inFlight = 0
  let writing: Promise<void> | undefined
  let scheduled = false
  let closed = false
  let count = 0
  let held = 0
  const letGo = (entries: readonly Pending[]) => {
    for (const entry of entries) held -= entry.bytes
  }

  // Sync mode writes as records arrive; its timer only retries what a timeout left behind.
  const timer = setInterval(() => void drainOnce(), intervalMs)
  timer.unref?.()

  async function writeBatch(): Promise<void> {
    const take = Math.min(queue.length, batchSize * CATCH_UP_BATCHES)
    const entries = queue.length <= take ? queue : queue.slice(0, take)
    queue = queue.length <= take ? [] : queue.slice(take)
    const fixes = corrections
    corrections = []
    inFlight += entries.length
    try {
      await store.writeAudit(toBatch(entries, fixes))
      count += entries.length
      letGo(entries)
      for (const entry of entries) entry.done?.resolve()
    } catch (cause) {
      const error = new Error(`could not write ${entries.length} audit record(s): ${errorMessage(cause)}`)
      const waiting = entries.filter((e) => e.done)
      letGo(waiting)
      for (const entry of waiting) entry.done?.reject(error)
      const retry = entries.filter((e) => !e.done)
      if (retry.length > 0) queue = [...retry, ...queue]
      corrections = [...fixes, ...corrections]
      options.onError?.(error)
      throw error
    } finally {
      inFlight -= entries.length
    }
  }

  /**
   * Writes what is queued, then further batches only while full ones are waiting: what
   * arrives during a write waits for the next tick, so a store that answers asynchronously
   * (the SQLite thread, PostgreSQL) gets a few large transactions, not a stream of tiny ones.
   */
  function drainOnce(): Promise<void> {
    if (writing) return writing
    if (queue.length === 0 && corrections.length === 0) return Promise.resolve()
    writing = (async () => {
      try {
        await writeBatch()
        while (queue.length >= batchSize) await writeBatch()
      } catch {
        // the batch stays queued (async) or its callers were told (sync); the next tick retries
      } finally {
        writing = undefined
      }
    })()
    return writing
  }

  function schedule(): void {
    if (scheduled) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      void drainOnce()
    })
  }

  /** Reports a refused record, then throws so the engine denies a blocking decision. */
  function refuse(record: DecisionRecord, cause: AuditDrop['cause'], message: string): never {
    const { decision } = record
    try {
      options.onDrop?.({
        decisionId: decision.id,
        event: decision.event,
        blocking: decision.blocking,
        cause,
        queueDepth: queue.length + inFlight,
      })
    } catch {
      // a failing listener must not change what the engine is told
    }
    throw new Error(message)
  }

  function record(record: DecisionRecord): void | Promise<void> {
    if (closed) refuse(record, 'closed', 'the audit writer is closed')
    const waiting = queue.length + inFlight
    if (waiting >= maxQueue) {
      refuse(record, 'queue-full', `the audit queue is full (${waiting} decisions waiting to be written)`)
    }
    const rows = toAuditRows(record, {
      secrets: options.secrets,
      traceId: options.traceId?.(),
      sources: options.sources,
    })
    const payload = record.event.payload
    const bytes = knownPayloadBytes(payload) ?? payloadBytes(payload, Number.POSITIVE_INFINITY)
    held += bytes
    if (mode === 'async') {
      queue.push({ rows, bytes })
      if (queue.length >= batchSize) schedule()
      return
    }
    return new Promise<void>((resolve, reject) => {
      // A database that stops answering (a hung host, a partition) must not hold the
      // decision forever: past the deadline it is refused (a blocking one denied), and the
      // row, still written later, says what the caller was told.
      const timer = setTimeout(() => {
        const message = `the audit write did not finish within ${syncTimeoutMs} ms`
        timedOut(entry, record, message)
        reject(new Error(message))
      }, syncTimeoutMs)
      timer.unref?.()
      const entry: Pending = {
        rows,
        bytes,
        done: {
          resolve() {
            clearTimeout(timer)
            resolve()
          },
          reject(error) {
            clearTimeout(timer)
            reject(error)
          },
        },
      }
      queue.push(entry)
      if (!writing) schedule()
      else void writing.then(schedule)
    })
  }

  /**
   * A sync record past its deadline: the entry is written later like an async one (retried,
   * nobody waiting), as the deny its caller got when the decision blocks.
   */
  function timedOut(entry: Pending, record: DecisionRecord, message: string): void {
    entry.done = undefined
    const { decision } = record
    if (!decision.blocking || decision.decision === 'deny') return
    const correction: DecisionCorrection = {
      id: decision.id,
      decision: 'deny',
      reason: unrecordedReason(message),
      reasonCode: ['audit'],
    }
    entry.rows = answeredDeny(entry.rows, correction)
    // Still queued: the row is written as the deny. Handed over: corrected once written.
    if (!queue.includes(entry)) corrections.push(correction)
  }

  async function flush(): Promise<void> {
    while (writing) await writing
    while (queue.length > 0 || corrections.length > 0) await writeBatch()
  }

  return {
    mode,
    record,
    flush,
    async close() {
      if (closed) return flush()
      closed = true
      clearInterval(timer)
      let attempts = 0
      for (;;) {
        try {
          await flush()
          return
        } catch (error) {
          attempts += 1
          if (attempts >= 5) {
            throw new Error(
              `${queue.length} audit record(s) could not be written at shutdown: ${errorMessage(error)}`,
            )
          }
          await new Promise((resolve) => setTimeout(resolve, 200 * attempts))
        }
      }
    },
    queueDepth: () => queue.length + inFlight,
    heldBytes: () => held,
    written: () => count,
    syncTimeoutMs,
    maxQueue,
    correct(correction) {
      corrections.push(correction)
      schedule()
    },
  }
}

/** One recorder that hands every decision to several (awaiting those that return promises). */
export function fanOutRecorders(recorders: Recorder[]): Recorder {
  return {
    record(record) {
      const waits: Promise<void>[] = []
      for (const recorder of recorders) {
        const result = recorder.record(record)
        if (result) waits.push(result)
      }
      if (waits.length === 1) return waits[0]
      if (waits.length > 1) return Promise.all(waits).then(() => undefined)
    },
    breakerTripped(trip, hook) {
      const waits: Promise<void>[] = []
      for (const recorder of recorders) {
        const result = recorder.breakerTripped?.(trip, hook)
        if (result) waits.push(result)
      }
      if (waits.length > 0) return Promise.all(waits).then(() => undefined)
    },
  }
}
