// Worker threads for work a tenant controls: a bounded pool on the main thread and the
// job loop its workers run.

export type { PoolJob, PoolOptions, PoolStats, PoolWorkerData, WorkerMessage } from './pool.js'
export { PoolError, WORKER_START_LIMIT_MS, WorkerPool } from './pool.js'
export type { IsolateMode } from './start.js'
export { isolates, workerStarter } from './start.js'
export type { HostCall } from './worker.js'
export { HOST_CALL_WAIT_MS, serveJobs } from './worker.js'
