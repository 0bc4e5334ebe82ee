// The worker side of a pool: takes one job at a time from the main thread, runs it with a
// synchronous host call (the worker blocks until the main thread answers on its port), and
// posts the answer or the error back.

import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import type { PoolWorkerData, WorkerMessage } from './pool.js'

/** Most milliseconds a worker waits for the main thread to answer a host call. */
export const HOST_CALL_WAIT_MS = 5_000

/** Asks the main thread for data while a job runs; returns its answer or throws its error. */
export type HostCall = (op: string, args: unknown[]) => unknown

/**
 * Serves the jobs the pool posts to this worker with `handle`; call it once, at the top
 * level of the worker's module.
 * @throws Error when not run inside a pool worker.
 */
export function serveJobs(handle: (message: unknown, host: HostCall) => unknown): void {
  const port = parentPort
  const data = workerData as PoolWorkerData | undefined
  if (!port || !data?.hostPort || !data.flag) throw new Error('serveJobs must run in a pool worker')
  if (data.nice > 0) lowerThreadPriority(data.nice)
  const hostPort: MessagePort = data.hostPort
  const flag = new Int32Array(data.flag)
  const post = (message: WorkerMessage) => port.postMessage(message)
  const host: HostCall = (op, args) => {
    Atomics.store(flag, 0, 0)
    post({ t: 'host', op, args })
    if (Atomics.wait(flag, 0, 0, HOST_CALL_WAIT_MS) === 'timed-out')
      throw new Error(`the main thread did not answer ${op} within ${HOST_CALL_WAIT_MS} ms`)
    const reply = receiveMessageOnPort(hostPort)?.message as { value?: unknown; error?: string } | undefined
    if (!reply) throw new Error(`no answer to ${op}`)
    if (reply.error !== undefined) throw new Error(reply.error)
    return reply.value
  }
  port.on('message', (message: unknown) => {
    let answer: WorkerMessage
    try {
      answer = { t: 'done', value: handle(message, host) }
    } catch (error) {
      answer = { t: 'done', error: error instanceof Error ? error.message : String(error) }
    }
    try {
      post(answer)
    } catch (error) {
      post({ t: 'done', error: `the answer could not be sent: ${(error as Error).message}` })
    }
  })
  post({ t: 'ready' })
}

/**
 * Gives this thread (not the process) a niceness: on Linux a thread id is a process id to
 * setpriority. Elsewhere, or when it is refused, the thread keeps the process's priority.
 */
function lowerThreadPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice)
  } catch {
    // Not Linux, or not allowed: the worker runs at the process's priority.
  }
}
