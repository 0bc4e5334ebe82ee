// SQLite audit writes on a thread of their own, so a batch never holds up the event loop
// that answers requests. The main thread serializes a batch's plain rows as two JSON texts
// (one call each; a string crosses to the thread as one copy, where nested objects would be
// cloned value by value) and posts them. A batch that carries a large payload (a megabyte
// upload) crosses as objects instead: its long strings are copied as they are, and the
// thread, not the event loop, serializes them. The thread turns rows into column values, runs one
// transaction per batch on its own connection to the same WAL database and answers once it
// is committed. A thread that dies fails the batches
// it held (the audit writer retries them; every insert skips rows already written) and the
// next batch starts a new one. After a burst of large batches the thread collects its
// garbage once idle, so that its heap does not keep the burst's size.

import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { knownPayloadBytes } from '../core/index.js'
import { type AuditRowWriter, DECISION_FIELDS, EXECUTION_FIELDS, sqliteInsert } from './audit-write.js'
import { ROLLUP_COUNT_SOURCE } from './rollups-count.js'
import { FOLD_INTERVAL_MS, FOLD_PENDING_LIMIT, SQLITE_FOLD_SQL } from './rollups-roll.js'
import { LATENCY_BOUNDS_MS, SQLITE_ROLLUP_SQL } from './rollups-write.js'
import type { AuditBatch } from './types.js'

/** The writer thread of one SQLite file. */
export interface AuditThread {
  write: AuditRowWriter
  /** Waits for batches in flight, then closes the thread's connection and ends it. */
  close(): Promise<void>
}

interface Reply {
  id: number
  error?: string
}

interface Waiting {
  resolve(): void
  reject(error: Error): void
}

/**
 * The thread's code: plain CommonJS with nothing to compile, so it runs the same from the
 * sources, the build and the test runner. Statements and column order come from workerData
 * (the same field lists the other writers use).
 */
const THREAD_SOURCE = `
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')
db.pragma('foreign_keys = ON')
db.pragma('busy_timeout = 5000')
const insertDecision = db.prepare(workerData.insertDecision)
const insertExecution = db.prepare(workerData.insertExecution)
const findHook = db.prepare('select 1 from hooks where id = ?').pluck()
const { decisionFields, executionFields } = workerData
function columnValues(fields, row) {
  const out = new Array(fields.length)
  for (let i = 0; i < fields.length; i++) {
    const [, property, kind] = fields[i]
    const value = row[property]
    if (kind === 'json?') out[i] = value === undefined ? null : JSON.stringify(value)
    else out[i] = kind === 'json' ? JSON.stringify(value) : kind === 'flag' ? (value ? 1 : 0) : (value ?? null)
  }
  return out
}
// The overview's rollups: the rows a batch wrote are counted and stored as one pending row
// in its transaction, and folded every few seconds (rollups-count.ts, rollups-roll.ts);
// the counts of the pending rows this thread wrote are kept until folded, so its own fold
// reads them back without parsing. A fold that fails is tried again with the next one.
${ROLLUP_COUNT_SOURCE}
const counter = workerData.fold ? rollupCounter(workerData.latencyBounds) : undefined
const insertPending = workerData.fold ? db.prepare(workerData.fold.insertPending) : undefined
const pendingCache = new Map()
const write = db.transaction((decisions, executions) => {
  for (const row of decisions) {
    if (insertDecision.run(columnValues(decisionFields, row)).changes > 0 && counter) counter.decision(row, 1)
  }
  const known = new Map()
  const stored = (id) => {
    let hit = known.get(id)
    if (hit === undefined) {
      hit = findHook.get(id) !== undefined
      known.set(id, hit)
    }
    return hit
  }
  for (const row of executions) {
    row.hookId = stored(row.hookRef) ? row.hookRef : stored(row.hookName) ? row.hookName : null
    if (insertExecution.run(columnValues(executionFields, row)).changes > 0 && counter) counter.execution(row)
  }
  const counts = counter && counter.take()
  if (!counts) return undefined
  return [Number(insertPending.run(JSON.stringify(counts)).lastInsertRowid), counts]
})
const foldRollups = workerData.fold ? makeRollupFold(db, workerData.fold, pendingCache) : undefined
let foldTimer
let lastFold = Date.now()
function foldNow() {
  foldTimer = undefined
  lastFold = Date.now()
  try {
    foldRollups()
  } catch {}
}
function foldSoon() {
  if (!foldRollups || foldTimer) return
  foldTimer = setTimeout(foldNow, Math.max(0, lastFold + workerData.foldIntervalMs - Date.now()))
}
// Large batches leave their texts as garbage this thread's heap only collects when it
// allocates again: once it has written LARGE_TEXT characters and then idled a second, it
// runs one full collection, so that memory goes back after a burst of large payloads.
const LARGE_TEXT = 8 * 1024 * 1024
let collect
try {
  require('node:v8').setFlagsFromString('--expose-gc')
  collect = require('node:vm').runInNewContext('gc')
} catch {}
let written = 0
let idle
parentPort.on('message', (message) => {
  if (message.close) {
    clearTimeout(idle)
    clearTimeout(foldTimer)
    if (foldRollups) foldNow()
    db.close()
    parentPort.close()
    return
  }
  const text = typeof message.decisions === 'string'
  try {
    const pending = write(
      text ? JSON.parse(message.decisions) : message.decisions,
      text ? JSON.parse(message.executions) : message.executions,
    )
    if (pending) pendingCache.set(pending[0], pending[1])
    parentPort.postMessage({ id: message.id })
    if (pendingCache.size >= workerData.foldPendingLimit) {
      clearTimeout(foldTimer)
      foldNow()
    } else foldSoon()
  } catch (error) {
    // The batch was rolled back: what was counted of it is dropped (a retry counts it again).
    if (counter) counter.take()
    parentPort.postMessage({ id: message.id, error: String(error && error.message ? error.message : error) })
  }
  written += text ? message.decisions.length + message.executions.length : message.bytes
  clearTimeout(idle)
  if (typeof collect === 'function' && written >= LARGE_TEXT) {
    idle = setTimeout(() => {
      written = 0
      collect()
    }, 1000)
    idle.unref()
  }
})
`

/** From this payload size (bytes of JSON) on, a batch crosses to the thread as objects. */
const LARGE_PAYLOAD_BYTES = 64 * 1024

/** The payload bytes of a batch's large payloads (0 when none is large), as measured at dispatch. */
function largePayloadBytes(batch: AuditBatch): number {
  let total = 0
  for (const row of batch.decisions) {
    const input = row.input
    const payload =
      typeof input === 'object' && input !== null ? (input as { payload?: unknown }).payload : undefined
    const bytes = typeof payload === 'object' && payload !== null ? knownPayloadBytes(payload) : undefined
    if (bytes !== undefined && bytes >= LARGE_PAYLOAD_BYTES) total += bytes
  }
  return total
}

/** Longest wait for the thread to close its connection before it is stopped. */
const CLOSE_TIMEOUT_MS = 5000

/**
 * Starts nothing yet: the thread is started by the first batch (and again after a crash).
 * `rollups: false` leaves the overview's rollups out (to measure what they cost).
 */
export function sqliteAuditThread(file: string, options: { rollups?: boolean } = {}): AuditThread {
  const workerData = {
    driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    file,
    insertDecision: sqliteInsert('decisions', DECISION_FIELDS, 'id'),
    insertExecution: sqliteInsert('hook_executions', EXECUTION_FIELDS, 'dedup_key'),
    decisionFields: DECISION_FIELDS,
    executionFields: EXECUTION_FIELDS,
    fold:
      options.rollups === false
        ? undefined
        : { ...SQLITE_FOLD_SQL, insertPending: SQLITE_ROLLUP_SQL.insertPending },
    latencyBounds: LATENCY_BOUNDS_MS,
    foldIntervalMs: FOLD_INTERVAL_MS,
    foldPendingLimit: FOLD_PENDING_LIMIT,
  }
  let worker: Worker | undefined
  let nextId = 0
  let closed = false
  const waiting = new Map<number, Waiting>()
  const inFlight = new Set<Promise<void>>()

  /** Rejects what a thread held once it is gone; the next batch starts a new one. */
  function lost(thread: Worker, error: Error): void {
    if (worker !== thread) return
    worker = undefined
    const held = [...waiting.values()]
    waiting.clear()
    for (const entry of held) entry.reject(error)
  }

  function start(): Worker {
    const thread = new Worker(THREAD_SOURCE, { eval: true, execArgv: [], workerData })
    thread.unref()
    thread.on('message', (reply: Reply) => {
      const entry = waiting.get(reply.id)
      if (!entry) return
      waiting.delete(reply.id)
      if (waiting.size === 0) thread.unref()
      if (reply.error === undefined) entry.resolve()
      else entry.reject(new Error(reply.error))
    })
    thread.on('error', (error) => lost(thread, new Error(`the audit writer thread failed: ${error.message}`)))
    thread.on('exit', (code) =>
      lost(thread, new Error(`the audit writer thread stopped (exit code ${code})`)),
    )
    return thread
  }

  const write: AuditRowWriter = (batch) => {
    if (closed) return Promise.reject(new Error('the audit writer thread is closed'))
    const id = ++nextId
    const bytes = largePayloadBytes(batch)
    worker ??= start()
    const thread = worker
    const done = new Promise<void>((resolve, reject) => {
      waiting.set(id, { resolve, reject })
      thread.ref()
      if (bytes > 0) {
        try {
          thread.postMessage({ id, decisions: batch.decisions, executions: batch.executions, bytes })
          return
        } catch {
          // a value structured cloning does not take (an embedder's function): sent as JSON
        }
      }
      thread.postMessage({
        id,
        decisions: JSON.stringify(batch.decisions),
        executions: JSON.stringify(batch.executions),
      })
    })
    const tracked = done.catch(() => undefined)
    inFlight.add(tracked)
    void tracked.then(() => inFlight.delete(tracked))
    return done
  }

  async function close(): Promise<void> {
    if (closed) return
    closed = true
    await Promise.all(inFlight)
    const thread = worker
    if (!thread) return
    worker = undefined
    thread.ref()
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()))
    const timer = setTimeout(() => void thread.terminate(), CLOSE_TIMEOUT_MS)
    thread.postMessage({ close: true })
    await exited
    clearTimeout(timer)
  }

  return { write, close }
}
