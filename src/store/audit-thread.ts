// SQLite audit writes on a thread of their own, so a batch never holds up the event loop
// that answers requests. The main thread serializes a batch's plain rows as two JSON texts
// (one call each; a string crosses to the thread as one copy, where nested objects would be
// cloned value by value) and posts them; the thread turns them into column values, runs one
// transaction per batch on its own connection to the same WAL database and answers once it
// is committed. A thread that dies fails the batches
// it held (the audit writer retries them; every insert skips rows already written) and the
// next batch starts a new one. After a burst of large batches the thread collects its
// garbage once idle, so that its heap does not keep the burst's size.

import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { type AuditRowWriter, DECISION_FIELDS, EXECUTION_FIELDS, sqliteInsert } from './audit-write.js'
import { FOLD_INTERVAL_MS, FOLD_SOURCE, SQLITE_FOLD_SQL } from './rollups-roll.js'

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
const write = db.transaction((decisions, executions) => {
  for (const row of decisions) insertDecision.run(columnValues(decisionFields, row))
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
    insertExecution.run(columnValues(executionFields, row))
  }
})
// The overview's rollups: what was written is folded about once a second (rollups-roll.ts);
// a fold that fails is tried again with the next one (its marks did not move).
${FOLD_SOURCE}
const foldRollups = workerData.fold ? makeFolder(db, workerData.fold) : undefined
let foldTimer
let lastFold = 0
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
  try {
    write(JSON.parse(message.decisions), JSON.parse(message.executions))
    parentPort.postMessage({ id: message.id })
    foldSoon()
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error && error.message ? error.message : error) })
  }
  written += message.decisions.length + message.executions.length
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
    fold: options.rollups === false ? undefined : SQLITE_FOLD_SQL,
    foldIntervalMs: FOLD_INTERVAL_MS,
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
    const message = {
      id: ++nextId,
      decisions: JSON.stringify(batch.decisions),
      executions: JSON.stringify(batch.executions),
    }
    worker ??= start()
    const thread = worker
    const done = new Promise<void>((resolve, reject) => {
      waiting.set(message.id, { resolve, reject })
      thread.ref()
      thread.postMessage(message)
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
