// The entry of a detector worker thread: prepares each hook's detector once (kept by its
// key) from the hook's handler config and answers each scan with the verdict, exactly as
// the main thread's detector handler would.

import { serveJobs } from '../../worker-pool/index.js'
import { type DetectorRun, prepareDetector } from './handler.js'
import type { DetectorJob } from './isolation.js'

/** Most prepared detectors a worker keeps; the oldest is dropped first. */
const MAX_PREPARED = 256
const prepared = new Map<string, DetectorRun>()

function preparedFor(job: DetectorJob): DetectorRun {
  const known = prepared.get(job.key)
  if (known) return known
  const made = prepareDetector(job.config, { name: job.hookName }).run
  prepared.set(job.key, made)
  if (prepared.size > MAX_PREPARED) {
    const oldest = prepared.keys().next().value
    if (oldest !== undefined) prepared.delete(oldest)
  }
  return made
}

serveJobs((message) => {
  const job = message as DetectorJob
  return preparedFor(job)(job.event)
})
