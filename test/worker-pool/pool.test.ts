// The worker pool against real worker threads: jobs answered in order, host calls answered
// by the job's own host function, the queue bound refused at once naming the setting, a
// worker past its time stopped and replaced, a crashed worker or one out of heap replaced.

import { Worker } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { PoolError, type PoolWorkerData, WorkerPool } from '../../src/worker-pool/index.js'

// A worker in plain JavaScript speaking the pool's protocol: `{op: 'echo'}` answers its
// value, `{op: 'host'}` makes a host call, `{op: 'spin'}` never ends, `{op: 'crash'}` exits.
const WORKER = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads')
const flag = new Int32Array(workerData.flag)
parentPort.on('message', (job) => {
  if (job.op === 'echo') return parentPort.postMessage({ t: 'done', value: job.value })
  if (job.op === 'host') {
    Atomics.store(flag, 0, 0)
    parentPort.postMessage({ t: 'host', op: 'read', args: [job.key] })
    Atomics.wait(flag, 0, 0, 5000)
    const reply = receiveMessageOnPort(workerData.hostPort).message
    return parentPort.postMessage({ t: 'done', value: reply.value, error: reply.error })
  }
  if (job.op === 'spin') for (;;) {}
  if (job.op === 'crash') process.exit(3)
  if (job.op === 'hog') { const kept = []; for (;;) kept.push(new Array(1e6).fill(kept.length)) }
})
parentPort.postMessage({ t: 'ready' })
`

function pool(size: number, queue: number): WorkerPool {
  return new WorkerPool({
    start: (workerData: PoolWorkerData, transferList) =>
      new Worker(WORKER, {
        eval: true,
        workerData,
        transferList,
        resourceLimits: { maxOldGenerationSizeMb: 32 },
      }),
    size,
    queue,
    setting: 'scripts',
    what: 'script',
  })
}

/** A job's promise with its rejection already observed (the test asserts on it later). */
function watched<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {})
  return promise
}

const pools: WorkerPool[] = []
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()))
})

describe('worker pool', () => {
  it('answers jobs and host calls with the job’s own host function', async () => {
    const p = pool(2, 4)
    pools.push(p)
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((value) => p.run({ message: { op: 'echo', value }, timeoutMs: 5000 })),
    )
    expect(answers).toEqual([1, 2, 3, 4, 5])
    expect(p.stats().workers).toBe(2)
    const read = await p.run({
      message: { op: 'host', key: 'k' },
      timeoutMs: 5000,
      host: (op, args) => `${op}:${String(args[0])}:tenant-a`,
    })
    expect(read).toBe('read:k:tenant-a')
    // A job without a host function gets an error, not another job's data.
    await expect(p.run({ message: { op: 'host', key: 'k' }, timeoutMs: 5000 })).rejects.toThrow(
      /no host call "read" is open to this job/,
    )
  })

  it('refuses past the queue bound at once, naming the setting', async () => {
    const p = pool(1, 1)
    pools.push(p)
    const running = watched(p.run({ message: { op: 'spin' }, timeoutMs: 300 }))
    const queued = p.run({ message: { op: 'echo', value: 'after' }, timeoutMs: 5000 })
    const refused = watched(p.run({ message: { op: 'echo', value: 'refused' }, timeoutMs: 5000 }))
    await expect(refused).rejects.toThrow(/limit scripts\.queue = 1; scripts\.workers = 1/)
    await expect(refused).rejects.toBeInstanceOf(PoolError)
    // The spinning worker is stopped at its limit and replaced: the queued job still runs.
    // Its caller is answered at its limit; the worker, still spinning, is stopped a second
    // later and replaced: the queued job still runs.
    const started = performance.now()
    await expect(running).rejects.toThrow(/ran past its limit of 300 ms/)
    await expect(queued).resolves.toBe('after')
    expect(performance.now() - started).toBeGreaterThan(900)
    expect(p.stats()).toMatchObject({ workers: 1, replaced: 1, busy: 0, queued: 0 })
  })

  it('replaces a worker that crashes and fails only its job', async () => {
    const p = pool(1, 4)
    pools.push(p)
    const crashed = watched(p.run({ message: { op: 'crash' }, timeoutMs: 5000 }))
    const next = p.run({ message: { op: 'echo', value: 'next' }, timeoutMs: 5000 })
    await expect(crashed).rejects.toThrow(/the script worker exited \(code 3\)/)
    await expect(next).resolves.toBe('next')
    expect(p.stats().replaced).toBe(1)
  })

  it('replaces a worker that runs out of heap and fails only its job', async () => {
    const p = pool(1, 4)
    pools.push(p)
    const hog = watched(p.run({ message: { op: 'hog' }, timeoutMs: 20_000 }))
    const next = p.run({ message: { op: 'echo', value: 'next' }, timeoutMs: 5000 })
    await expect(hog).rejects.toThrow(/the script worker (crashed|exited)/)
    await expect(next).resolves.toBe('next')
    expect(p.stats().replaced).toBe(1)
  })

  it('fails a queued job its caller gave up on, and runs the next', async () => {
    const p = pool(1, 4)
    pools.push(p)
    const running = p.run({ message: { op: 'echo', value: 'first' }, timeoutMs: 5000 })
    const job = { op: 'echo', value: 'abandoned' }
    const abandoned = watched(p.run({ message: job, timeoutMs: 5000 }))
    const after = p.run({ message: { op: 'echo', value: 'after' }, timeoutMs: 5000 })
    expect(p.cancel(job)).toBe(true)
    await expect(abandoned).rejects.toThrow(/given up before a worker took it/)
    await expect(running).resolves.toBe('first')
    await expect(after).resolves.toBe('after')
    expect(p.cancel(job)).toBe(false)
  })

  it('fails queued work when closed', async () => {
    const p = pool(1, 4)
    const running = watched(p.run({ message: { op: 'spin' }, timeoutMs: 10_000 }))
    const queued = watched(p.run({ message: { op: 'echo', value: 1 }, timeoutMs: 5000 }))
    await p.close()
    await expect(running).rejects.toThrow(/pool is closed/)
    await expect(queued).rejects.toThrow(/pool is closed/)
    await expect(p.run({ message: { op: 'echo', value: 1 }, timeoutMs: 5000 })).rejects.toThrow(
      /pool is closed/,
    )
  })
})
